package engine

import (
	"context"
	"slices"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// Notification preferences (EXTENSIONS.md 7): each member's own, stored whole in one row, and
// sent to the member's own devices as notification_prefs when they change. The notifier
// (engine/notify) follows those events to know everyone's preferences as of each message.

// prefsChannelsMax bounds the channel entries of a member's preferences.
const prefsChannelsMax = 500

// MutedForever is ChannelNotificationPrefs.muted_until_ms for a channel muted until unmuted.
const MutedForever = -1

// GetNotificationPrefs returns the caller's preferences (the defaults when they never set any).
func (e *Engine) GetNotificationPrefs(ctx context.Context, c Caller, _ *svcv1.GetNotificationPrefsRequest) (*svcv1.GetNotificationPrefsResponse, error) {
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	var p *svcv1.NotificationPrefs
	err := e.db.View(func(r *store.Reader) error {
		var err error
		p, err = storedPrefs(r, c.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &svcv1.GetNotificationPrefsResponse{Prefs: prefsAsOf(d, c.ID, p, e.now().UnixMilli())}, nil
}

// prefsAsOf is a member's stored preferences as they read now: without the entries of
// channels the member no longer sees (left, deleted, out of reach) and with mutes that ran out
// cleared, so that what a client reads it may set again as it is.
func prefsAsOf(d *Snapshot, memberID string, p *svcv1.NotificationPrefs, nowMs int64) *svcv1.NotificationPrefs {
	out := &svcv1.NotificationPrefs{Level: p.GetLevel(), HideContent: p.GetHideContent(), Email: p.GetEmail()}
	for _, ch := range p.GetChannels() {
		if !d.sees(memberID, d.Channel(ch.GetChannelId())) {
			continue
		}
		until := ch.GetMutedUntilMs()
		if until > 0 && until <= nowMs {
			until = 0
		}
		if ch.GetLevel() == svcv1.NotifyLevel_NOTIFY_LEVEL_UNSPECIFIED && until == 0 {
			continue
		}
		out.Channels = append(out.Channels, &svcv1.ChannelNotificationPrefs{ChannelId: ch.GetChannelId(), Level: ch.GetLevel(), MutedUntilMs: until})
	}
	return out
}

// storedPrefs reads a member's preferences, the defaults when there are none.
func storedPrefs(r *store.Reader, memberID string) (*svcv1.NotificationPrefs, error) {
	p, err := r.NotificationPrefs(memberID)
	if isNotFound(err) {
		return DefaultNotificationPrefs(), nil
	}
	return p, err
}

// DefaultNotificationPrefs are the preferences of a member who never set any.
func DefaultNotificationPrefs() *svcv1.NotificationPrefs {
	return &svcv1.NotificationPrefs{Level: svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS}
}

// SetNotificationPrefs replaces the caller's preferences.
func (e *Engine) SetNotificationPrefs(ctx context.Context, c Caller, req *svcv1.SetNotificationPrefsRequest) (*svcv1.SetNotificationPrefsResponse, error) {
	in := req.GetPrefs()
	if in == nil {
		in = DefaultNotificationPrefs()
	}
	if err := checkLevel("prefs.level", in.GetLevel()); err != nil {
		return nil, err
	}
	if n := len(in.GetChannels()); n > prefsChannelsMax {
		return nil, invalid("prefs.channels has %s entries; the limit is %s", thousands(n), thousands(prefsChannelsMax))
	}
	return submit(e, func(tx *Tx) (*svcv1.SetNotificationPrefsResponse, error) {
		d := tx.Snap()
		if _, err := d.caller(c); err != nil {
			return nil, err
		}
		p, err := cleanPrefs(d, c, in, tx.NowMs())
		if err != nil {
			return nil, err
		}
		old, err := storedPrefs(tx.read(), c.ID)
		if err != nil {
			return nil, err
		}
		if proto.Equal(old, p) {
			return &svcv1.SetNotificationPrefsResponse{Prefs: p}, nil
		}
		if err := tx.mutate().PutNotificationPrefs(c.ID, p); err != nil {
			return nil, err
		}
		ev := &svcv1.Event{Kind: &svcv1.Event_NotificationPrefs{NotificationPrefs: p}}
		if _, err := tx.emit(toMembers(c.ID), ev); err != nil {
			return nil, err
		}
		return &svcv1.SetNotificationPrefsResponse{Prefs: p}, nil
	})
}

// cleanPrefs checks preferences against the community and returns them as they are stored:
// the level spelled out, one entry per channel in the order given, entries that say nothing
// dropped.
func cleanPrefs(d *Snapshot, c Caller, in *svcv1.NotificationPrefs, nowMs int64) (*svcv1.NotificationPrefs, error) {
	out := &svcv1.NotificationPrefs{
		Level:       in.GetLevel(),
		HideContent: in.GetHideContent(),
		Email:       in.GetEmail(),
	}
	if out.Level == svcv1.NotifyLevel_NOTIFY_LEVEL_UNSPECIFIED {
		out.Level = svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS
	}
	seen := map[string]bool{}
	for i, ch := range in.GetChannels() {
		field := "prefs.channels[" + itoa(i) + "]"
		id := ch.GetChannelId()
		if id == "" {
			return nil, invalid("%s.channel_id is required", field)
		}
		if seen[id] {
			return nil, invalid("%s.channel_id %.64s is listed twice; give one entry per channel", field, id)
		}
		seen[id] = true
		if !d.sees(c.ID, d.Channel(id)) {
			return nil, notFound("%s.channel_id %.64s is not a channel you can see", field, id)
		}
		if err := checkLevel(field+".level", ch.GetLevel()); err != nil {
			return nil, err
		}
		until := ch.GetMutedUntilMs()
		if until < MutedForever || (until > 0 && until <= nowMs) {
			return nil, invalid("%s.muted_until_ms must be 0 (not muted), -1 (until unmuted) or a time in the future; got %d", field, until)
		}
		if ch.GetLevel() == svcv1.NotifyLevel_NOTIFY_LEVEL_UNSPECIFIED && until == 0 {
			continue
		}
		out.Channels = append(out.Channels, &svcv1.ChannelNotificationPrefs{ChannelId: id, Level: ch.GetLevel(), MutedUntilMs: until})
	}
	return out, nil
}

func checkLevel(field string, l svcv1.NotifyLevel) error {
	if _, ok := svcv1.NotifyLevel_name[int32(l)]; !ok {
		return invalid("%s %d is not a NotifyLevel (ALL, MENTIONS or NONE)", field, l)
	}
	return nil
}

// NotifyChoice is what a member's preferences say about one channel at one time.
type NotifyChoice struct {
	// Level is the channel's level, or the member's where the channel has none (MENTIONS
	// when neither is set).
	Level svcv1.NotifyLevel
	// Muted: the channel is muted for the member at that time.
	Muted bool
}

// ChoiceFor reads what prefs say about a channel at nowMs.
func ChoiceFor(p *svcv1.NotificationPrefs, channelID string, nowMs int64) NotifyChoice {
	out := NotifyChoice{Level: p.GetLevel()}
	if i := slices.IndexFunc(p.GetChannels(), func(c *svcv1.ChannelNotificationPrefs) bool { return c.GetChannelId() == channelID }); i >= 0 {
		ch := p.GetChannels()[i]
		if ch.GetLevel() != svcv1.NotifyLevel_NOTIFY_LEVEL_UNSPECIFIED {
			out.Level = ch.GetLevel()
		}
		until := ch.GetMutedUntilMs()
		out.Muted = until == MutedForever || until > nowMs
	}
	if out.Level == svcv1.NotifyLevel_NOTIFY_LEVEL_UNSPECIFIED {
		out.Level = svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS
	}
	return out
}

// AllNotificationPrefs returns the preferences of every member who set any, and the seq they
// are current at (or newer: a change committed meanwhile may be in them, and its
// notification_prefs event after that seq carries the same preferences).
func (e *Engine) AllNotificationPrefs() (map[string]*svcv1.NotificationPrefs, int64, error) {
	seq := e.Seq()
	out := map[string]*svcv1.NotificationPrefs{}
	err := e.db.View(func(r *store.Reader) error {
		return r.AllNotificationPrefs(func(id string, p *svcv1.NotificationPrefs) error {
			out[id] = p
			return nil
		})
	})
	return out, seq, err
}

// NotificationPrefsOf reads a member's preferences as stored now (the defaults when they never
// set any).
func (e *Engine) NotificationPrefsOf(memberID string) (*svcv1.NotificationPrefs, error) {
	var p *svcv1.NotificationPrefs
	err := e.db.View(func(r *store.Reader) error {
		var err error
		p, err = storedPrefs(r, memberID)
		return err
	})
	return p, err
}
