package engine

import (
	"context"
	"unicode/utf8"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// CreateChannel creates a TEXT, PRIVATE or VOICE channel (admins and the owner).
func (e *Engine) CreateChannel(ctx context.Context, c Caller, req *svcv1.CreateChannelRequest) (*svcv1.CreateChannelResponse, error) {
	kind := req.GetKind()
	if kind != svcv1.ChannelKind_CHANNEL_KIND_TEXT && kind != svcv1.ChannelKind_CHANNEL_KIND_PRIVATE && kind != svcv1.ChannelKind_CHANNEL_KIND_VOICE {
		return nil, invalid("kind must be CHANNEL_KIND_TEXT, CHANNEL_KIND_PRIVATE or CHANNEL_KIND_VOICE (DMs are opened with OpenDM)")
	}
	name, err := channelName(req.GetName())
	if err != nil {
		return nil, err
	}
	if err := checkChannelText(req.GetTopic(), req.GetCategory()); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.CreateChannelResponse, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "creating a channel"); err != nil {
			return nil, err
		}
		ch := &svcv1.Channel{
			Id:          uuid.Must(uuid.NewV7()).String(),
			Kind:        kind,
			Name:        name,
			Topic:       req.GetTopic(),
			Category:    req.GetCategory(),
			Position:    nextPosition(d, req.GetCategory()),
			CreatedAtMs: tx.NowMs(),
		}
		if kind == svcv1.ChannelKind_CHANNEL_KIND_PRIVATE {
			ch.MemberIds = []string{c.ID}
		}
		if err := tx.putChannel(&storepb.ChannelRecord{Channel: ch}); err != nil {
			return nil, err
		}
		// In OPT_IN mode the creator is in the TEXT channel they made; others join when they like.
		if kind == svcv1.ChannelKind_CHANNEL_KIND_TEXT && d.OptIn() {
			if err := tx.setJoined(ch.Id, c.ID, true); err != nil {
				return nil, err
			}
		}
		if _, err := tx.emit(toViewers(ch.Id), &svcv1.Event{Kind: &svcv1.Event_ChannelCreated{ChannelCreated: ch}}); err != nil {
			return nil, err
		}
		if err := auditChannel(tx, c, nil, ch); err != nil {
			return nil, err
		}
		return &svcv1.CreateChannelResponse{Channel: ch}, nil
	})
}

// UpdateChannel changes the fields of a TEXT, PRIVATE or VOICE channel that are set.
func (e *Engine) UpdateChannel(ctx context.Context, c Caller, req *svcv1.UpdateChannelRequest) (*svcv1.UpdateChannelResponse, error) {
	var name string
	if req.Name != nil {
		var err error
		if name, err = channelName(req.GetName()); err != nil {
			return nil, err
		}
	}
	if err := checkChannelText(req.GetTopic(), req.GetCategory()); err != nil {
		return nil, err
	}
	if err := checkBytes("header_image_id", req.GetHeaderImageId(), uploadIDMax); err != nil {
		return nil, err
	}
	if err := checkSlowmode(req); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.UpdateChannelResponse, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "changing a channel"); err != nil {
			return nil, err
		}
		rec, err := d.visibleChannel(c, req.GetChannelId())
		if err != nil {
			return nil, err
		}
		if rec.GetChannel().GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
			return nil, invalid("DMs cannot be updated")
		}
		var img *storepb.UploadRecord
		if id := req.GetHeaderImageId(); id != "" {
			if img, err = imageUpload(tx, c, "header_image_id", id); err != nil {
				return nil, err
			}
		}
		old := rec.GetChannel()
		rec = proto.Clone(rec).(*storepb.ChannelRecord)
		ch := rec.Channel
		if req.Name != nil {
			ch.Name = name
		}
		if req.SlowmodeS != nil {
			ch.SlowmodeS = req.GetSlowmodeS()
		}
		if req.Topic != nil {
			ch.Topic = req.GetTopic()
		}
		if req.Category != nil {
			ch.Category = req.GetCategory()
		}
		if req.Position != nil {
			ch.Position = req.GetPosition()
		}
		if req.HeaderImageId != nil {
			if ch.HeaderImage, err = tx.replaceImage(ch.GetHeaderImage(), img, storepb.UploadUse_UPLOAD_USE_CHANNEL_HEADER, ch.Id); err != nil {
				return nil, err
			}
		}
		if err := tx.putChannel(rec); err != nil {
			return nil, err
		}
		view, err := e.channelUpdated(tx, rec, toViewers(ch.Id))
		if err != nil {
			return nil, err
		}
		if err := auditChannel(tx, c, old, ch); err != nil {
			return nil, err
		}
		return &svcv1.UpdateChannelResponse{Channel: view}, nil
	})
}

// channelUpdated emits channel_updated with the channel as it now is (last_message_seq
// included) and returns that view.
func (e *Engine) channelUpdated(tx *Tx, rec *storepb.ChannelRecord, aud *storepb.Audience) (*svcv1.Channel, error) {
	view, err := e.channelView(tx.read(), rec, tx.seq)
	if err != nil {
		return nil, err
	}
	_, err = tx.emit(aud, &svcv1.Event{Kind: &svcv1.Event_ChannelUpdated{ChannelUpdated: view}})
	return view, err
}

// visibleChannel finds a channel the caller can see: permission_denied when the caller is no
// longer a member, not_found for an unknown id, permission_denied (saying nothing of it) for one
// they cannot see.
func (d *Snapshot) visibleChannel(c Caller, id string) (*storepb.ChannelRecord, error) {
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, invalid("channel_id is required")
	}
	rec := d.Channel(id)
	if rec == nil {
		return nil, notFound("channel %s does not exist", id)
	}
	if !d.sees(c.ID, rec) {
		return nil, denied("you cannot see this channel")
	}
	return rec, nil
}

// channelNameTypedMax bounds a channel name as typed, before it is normalized: normalizing
// drops runs of spaces and punctuation, so a name may be longer as typed than its 80 characters.
const channelNameTypedMax = 4 * channelNameMax

// channelName normalizes a channel name and checks it is not empty or too long.
func channelName(raw string) (string, error) {
	// The bound as typed is not the name's limit: the refusal says which of the two it is.
	if n := utf8.RuneCountInString(raw); n > channelNameTypedMax && utf8.ValidString(raw) {
		return "", invalid("name is %s characters as typed; the limit is %s as typed (%d once normalized)", thousands(n), thousands(channelNameTypedMax), channelNameMax)
	}
	if err := checkShownText("name", raw, channelNameTypedMax); err != nil {
		return "", err
	}
	name := normalizeChannelName(raw)
	if name == "" {
		return "", invalid("name must contain a letter or a digit; got %q", raw)
	}
	if err := checkLen("name", name, channelNameMax); err != nil {
		return "", err
	}
	return name, nil
}

func checkChannelText(topic, category string) error {
	if err := checkShownText("topic", topic, channelTopicMax); err != nil {
		return err
	}
	return checkShownText("category", category, channelCategory)
}

// nextPosition puts a new channel last in its category.
func nextPosition(d *Snapshot, category string) int32 {
	var pos int32
	for _, rec := range d.channels {
		ch := rec.GetChannel()
		if ch.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_DM && ch.GetCategory() == category && ch.GetPosition() >= pos {
			pos = ch.GetPosition() + 1
		}
	}
	return pos
}
