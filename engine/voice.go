package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Voice channels (EXTENSIONS.md 10): who is in which voice channel, and how (muted, deafened,
// sharing a screen, speaking). The media go through the SFU (package engine/voice), which asks
// the engine whether a member may join and tells it what changes; the engine keeps the seats,
// applies the rules and sends the voice_state events.
//
// Voice is live: the seats are kept in memory only, so a restart empties every voice channel,
// and voice_state events are ephemeral (seq 0), like presence. A logged event would replay
// "joined" to a client after a restart that emptied the channel; a client that (re)connects
// learns who is in voice from GetState.voice_states or ListVoiceStates instead, ordered
// against the events by VoiceState.version.
//
// A member is in one voice channel at a time, with one session (one device): joining again
// replaces their seat. The engine takes members out of voice the moment they may no longer be
// there: after every commit it checks each seat against the community as it now is (the member
// left, was kicked or banned, is timed out, or no longer sees the channel) and tells the SFU
// through the voice hook.

// VoiceChannelMax is how many people may be in one voice channel at once.
const VoiceChannelMax = 25

// VoiceEnded tells the SFU that the engine took a member out of voice: it ends the session.
type VoiceEnded struct {
	MemberID, SessionID string
	Reason              svcv1.VoiceEndReason
	// Message says why, for people.
	Message string
}

// voiceRooms are the seats of every voice channel.
type voiceRooms struct {
	mu    sync.Mutex
	seats map[string]*voiceSeat // by member id
	// version numbers every change; it starts from the clock in microseconds, so that it keeps
	// growing across restarts.
	version int64
	// occupied is how many seats are taken, read without the lock by the writer's check after
	// every commit.
	occupied atomic.Int32
	// hook hears of the sessions the engine ended (SetVoiceHook); it must not block.
	hook func(VoiceEnded)
}

// voiceSeat is one member in voice: their session and their state as last sent.
type voiceSeat struct {
	session string
	// state is never changed in place: events share it.
	state *svcv1.VoiceState
}

// SetVoiceHook sets the function told of every voice session the engine ends. It is called
// after the engine's locks are released, from the writer's goroutine: it must not block.
func (e *Engine) SetVoiceHook(fn func(VoiceEnded)) {
	e.voice.mu.Lock()
	e.voice.hook = fn
	e.voice.mu.Unlock()
}

// nextVersion returns the next voice version. Called with v.mu held.
func (v *voiceRooms) nextVersion(now time.Time) int64 {
	if v.version == 0 {
		v.version = now.UnixMicro()
	}
	v.version++
	return v.version
}

// JoinVoice seats the caller in a voice channel for a session of the SFU, after the rules:
// the channel exists, is VOICE and is seen by the caller, who is not timed out, and it has a
// free seat. It returns the caller's state, everyone in the channel now (the caller included),
// and the session the caller had before, which the SFU ends (empty when none).
func (e *Engine) JoinVoice(c Caller, channelID, sessionID string, muted, deafened bool) (me *svcv1.VoiceState, room []*svcv1.VoiceState, replaced string, err error) {
	v := &e.voice
	v.mu.Lock()
	defer v.mu.Unlock()
	// Loaded under the lock: a commit that takes the caller's right away is checked after it
	// is published (checkVoice), so either this sees it or that check sees this seat.
	d := e.snap.Load()
	rec, err := d.visibleChannel(c, channelID)
	if err != nil {
		return nil, nil, "", err
	}
	if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_VOICE {
		return nil, nil, "", invalid("channel %s is %s, not a voice channel", channelID, kindName(rec))
	}
	now := e.now()
	if until := d.active(c.ID).GetMember().GetTimedOutUntilMs(); until > now.UnixMilli() {
		return nil, nil, "", denied("you are timed out until %s", time.UnixMilli(until).UTC().Format(time.RFC3339))
	}
	n := 0
	for id, s := range v.seats {
		if id != c.ID && s.state.GetChannelId() == channelID {
			n++
		}
	}
	if n >= VoiceChannelMax {
		return nil, nil, "", newError(CodeResourceExhausted, "this voice channel is full: %d people are in it; the limit is %d", n, VoiceChannelMax)
	}
	if v.seats == nil {
		v.seats = map[string]*voiceSeat{}
	}
	if prev := v.seats[c.ID]; prev != nil {
		replaced = prev.session
		if prev.state.GetChannelId() != channelID {
			v.publishLocked(e, left(prev.state, v.nextVersion(now)))
		}
	} else {
		v.occupied.Add(1)
	}
	me = &svcv1.VoiceState{
		ChannelId:  channelID,
		MemberId:   c.ID,
		Joined:     true,
		Muted:      muted,
		Deafened:   deafened,
		JoinedAtMs: now.UnixMilli(),
		Version:    v.nextVersion(now),
	}
	v.seats[c.ID] = &voiceSeat{session: sessionID, state: me}
	v.publishLocked(e, me)
	for _, s := range v.seats {
		if s.state.GetChannelId() == channelID {
			room = append(room, s.state)
		}
	}
	sortVoiceStates(room)
	return me, room, replaced, nil
}

// LeaveVoice takes a member out of voice when sessionID is still their session; it reports
// whether it did. The SFU calls it for every session that ends, whoever ended it.
func (e *Engine) LeaveVoice(memberID, sessionID string) bool {
	v := &e.voice
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.seats[memberID]
	if s == nil || s.session != sessionID {
		return false
	}
	v.removeLocked(e, memberID, e.now())
	return true
}

// removeLocked frees a member's seat and tells those who see the channel. Called with v.mu held.
func (v *voiceRooms) removeLocked(e *Engine, memberID string, now time.Time) {
	s := v.seats[memberID]
	delete(v.seats, memberID)
	v.occupied.Add(-1)
	v.publishLocked(e, left(s.state, v.nextVersion(now)))
}

// VoiceChange is what SetVoiceState or the SFU changes of a member's voice state: the fields
// that are set.
type VoiceChange struct {
	Muted, Deafened, SharingScreen, Speaking *bool
}

// UpdateVoice applies a change to a member's state in their session; not_found when the
// session is no longer theirs. It returns the state as it now is; an event goes out when
// anything changed. Speaking is never true while muted or deafened.
func (e *Engine) UpdateVoice(memberID, sessionID string, ch VoiceChange) (*svcv1.VoiceState, error) {
	v := &e.voice
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.seats[memberID]
	if s == nil || s.session != sessionID {
		return nil, notFound("voice session %s is over", sessionID)
	}
	next := proto.Clone(s.state).(*svcv1.VoiceState)
	set := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	set(&next.Muted, ch.Muted)
	set(&next.Deafened, ch.Deafened)
	set(&next.SharingScreen, ch.SharingScreen)
	set(&next.Speaking, ch.Speaking)
	if next.Muted || next.Deafened {
		next.Speaking = false
	}
	if next.Muted == s.state.Muted && next.Deafened == s.state.Deafened && next.SharingScreen == s.state.SharingScreen && next.Speaking == s.state.Speaking {
		return s.state, nil
	}
	next.Version = v.nextVersion(e.now())
	s.state = next
	v.publishLocked(e, next)
	return next, nil
}

// publishLocked sends a voice_state to those who see its channel. Called with v.mu held, so
// that the events of one member reach the streams in the order of their versions.
func (v *voiceRooms) publishLocked(e *Engine, st *svcv1.VoiceState) {
	e.pub.publishEphemeral(&svcv1.Event{AtMs: e.now().UnixMilli(), Kind: &svcv1.Event_VoiceState{VoiceState: st}}, toViewers(st.GetChannelId()))
}

// left is the event state of a member leaving: their last state, joined false.
func left(st *svcv1.VoiceState, version int64) *svcv1.VoiceState {
	out := proto.Clone(st).(*svcv1.VoiceState)
	out.Joined, out.Speaking, out.SharingScreen = false, false, false
	out.Version = version
	return out
}

// ListVoiceStates answers who is in the voice channels the caller sees.
func (e *Engine) ListVoiceStates(ctx context.Context, c Caller, _ *svcv1.ListVoiceStatesRequest) (*svcv1.ListVoiceStatesResponse, error) {
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	states, version := e.voiceStates(d, c.ID)
	return &svcv1.ListVoiceStatesResponse{States: states, Version: version}, nil
}

// voiceStates is everyone in the voice channels a member sees in d, and the version they are
// as of.
func (e *Engine) voiceStates(d *Snapshot, memberID string) ([]*svcv1.VoiceState, int64) {
	v := &e.voice
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []*svcv1.VoiceState
	me := d.active(memberID)
	for _, s := range v.seats {
		if seesAs(memberID, me, d.Channel(s.state.GetChannelId())) {
			out = append(out, s.state)
		}
	}
	sortVoiceStates(out)
	return out, v.nextVersionPeek(e.now())
}

// nextVersionPeek is the version as of now (the last one given), without taking a new one.
// Called with v.mu held.
func (v *voiceRooms) nextVersionPeek(now time.Time) int64 {
	if v.version == 0 {
		v.version = now.UnixMicro()
	}
	return v.version
}

func sortVoiceStates(states []*svcv1.VoiceState) {
	slices.SortFunc(states, func(a, b *svcv1.VoiceState) int {
		if c := strings.Compare(a.GetChannelId(), b.GetChannelId()); c != 0 {
			return c
		}
		if a.GetJoinedAtMs() != b.GetJoinedAtMs() {
			if a.GetJoinedAtMs() < b.GetJoinedAtMs() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.GetMemberId(), b.GetMemberId())
	})
}

// checkVoice takes out of voice everyone who may no longer be there in d, the community as a
// commit just published it: the writer calls it after every commit. It costs nothing while
// nobody is in voice.
func (e *Engine) checkVoice(d *Snapshot) {
	v := &e.voice
	if v.occupied.Load() == 0 {
		return
	}
	var ended []VoiceEnded
	v.mu.Lock()
	now := e.now()
	for id, s := range v.seats {
		why := voiceRefusal(d, id, s.state.GetChannelId(), now)
		if why == "" {
			continue
		}
		ended = append(ended, VoiceEnded{MemberID: id, SessionID: s.session, Reason: svcv1.VoiceEndReason_VOICE_END_REASON_REMOVED, Message: why})
		v.removeLocked(e, id, now)
	}
	hook := v.hook
	v.mu.Unlock()
	if hook != nil {
		for _, x := range ended {
			hook(x)
		}
	}
}

// voiceRefusal says why a member may not be in a voice channel in d, or "" when they may.
func voiceRefusal(d *Snapshot, memberID, channelID string, now time.Time) string {
	m := d.active(memberID)
	if m == nil {
		return "you are no longer a member of this community"
	}
	rec := d.Channel(channelID)
	if rec.GetChannel().GetKind() != svcv1.ChannelKind_CHANNEL_KIND_VOICE || !seesAs(memberID, m, rec) {
		return "you can no longer see this voice channel"
	}
	if m.GetMember().GetTimedOutUntilMs() > now.UnixMilli() {
		return "you are timed out"
	}
	return ""
}

// voiceChannel reports whether a channel is a voice channel, which holds no messages.
func voiceChannel(rec *storepb.ChannelRecord) bool {
	return rec.GetChannel().GetKind() == svcv1.ChannelKind_CHANNEL_KIND_VOICE
}
