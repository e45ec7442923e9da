package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// wantSigned checks that a message's attachments are the uploads, in order, with URLs that
// are fresh (one to two hours) and fetch the file.
func wantSigned(t *testing.T, what string, s *webtest.Server, clock *webtest.Clock, m *svcv1.Message, want ...*svcv1.Attachment) {
	t.Helper()
	got := m.GetAttachments()
	if len(got) != len(want) {
		t.Errorf("%s: %d attachments, want %d", what, len(got), len(want))
		return
	}
	for i, a := range got {
		w := want[i]
		if a.GetId() != w.GetId() || a.GetName() != w.GetName() || a.GetContentType() != w.GetContentType() ||
			a.GetSize() != w.GetSize() || a.GetWidth() != w.GetWidth() || a.GetHeight() != w.GetHeight() {
			t.Errorf("%s: attachment %d is %v, want %v", what, i, a, w)
			continue
		}
		if d := urlExpiry(t, a.GetUrl()).Sub(clock.Now()); d < time.Hour || d > 2*time.Hour {
			t.Errorf("%s: attachment %d's URL expires in %v", what, i, d)
		}
		if f := fetch(t, s, http.MethodGet, a.GetUrl()); f.status != http.StatusOK || int64(len(f.body)) != w.GetSize() {
			t.Errorf("%s: attachment %d: GET %d, %d bytes", what, i, f.status, len(f.body))
		}
	}
}

func TestAttachments(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		c := newCommunity(t, bucket)
		s, clock, owner := c.s, c.clock, c.owner
		bob := c.join("bob")
		ch := c.channel("general")
		st := bob.Subscribe(t, s.Engine.Seq())
		photo := mustUpload(t, s, owner, "photo.png", pngImage(t, 4, 3))
		notes := mustUpload(t, s, owner, "notes.txt", []byte("notes"))

		// Empty text is fine with attachments; they keep the order given.
		m := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{notes.GetId(), photo.GetId()}})
		wantSigned(t, "SendMessage", s, clock, m, notes, photo)
		wantSigned(t, "live message_created", s, clock, st.Next().GetMessageCreated(), notes, photo)
		list, err := bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId()}))
		if err != nil {
			t.Fatal(err)
		}
		wantSigned(t, "ListMessages", s, clock, list.Msg.GetMessages()[0], notes, photo)
		edited, err := owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: m.GetId(), Text: "now with words"}))
		wantOK(t, "EditMessage", err)
		wantSigned(t, "EditMessage", s, clock, edited.Msg.GetMessage(), notes, photo)
		reacted, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: "👍"}))
		wantOK(t, "React", err)
		wantSigned(t, "React", s, clock, reacted.Msg.GetMessage(), notes, photo)

		// Hours later, the URLs in hand have expired; replay and listing sign fresh ones.
		old := m.GetAttachments()[0].GetUrl()
		clock.Advance(3 * time.Hour)
		if status, text := fetchError(t, s, old); status != 403 || text != "this file link has expired; fetch the message again for a fresh one" {
			t.Errorf("an expired URL: %d %q", status, text)
		}
		replay := bob.Subscribe(t, 0)
		var replayed *svcv1.Message
		replay.Until(func(ev *svcv1.Event) bool { replayed = ev.GetMessageCreated(); return replayed != nil })
		wantSigned(t, "replayed message_created", s, clock, replayed, notes, photo)
		list, err = bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId()}))
		wantOK(t, "ListMessages", err)
		wantSigned(t, "ListMessages later", s, clock, list.Msg.GetMessages()[0], notes, photo)

		// Refusals, each leaving nothing behind.
		clock.Advance(time.Minute)
		bobs := mustUpload(t, s, bob, "bob.txt", []byte("bob's"))
		mine := mustUpload(t, s, owner, "mine.txt", []byte("mine"))
		send := func(ids ...string) error {
			clock.Advance(time.Second)
			_, err := owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "x", AttachmentIds: ids}))
			return err
		}
		wantCode(t, "an attached upload again", send(photo.GetId()), connect.CodeFailedPrecondition,
			"attachment_ids: upload "+photo.GetId()+" is already in use; an upload is used once, so upload the file again")
		wantCode(t, "somebody else's upload", send(mine.GetId(), bobs.GetId()), connect.CodePermissionDenied,
			"attachment_ids: upload "+bobs.GetId()+" is not yours; only its uploader can use it")
		wantCode(t, "an unknown upload", send("0193a000-0000-7000-8000-000000000000"), connect.CodeNotFound,
			"attachment_ids: upload 0193a000-0000-7000-8000-000000000000 does not exist (an upload not used within a day is deleted)")
		wantCode(t, "a repeated id", send(mine.GetId(), mine.GetId()), connect.CodeInvalidArgument, "attachment_ids lists upload "+mine.GetId()+" twice")
		eleven := make([]string, 11)
		for i := range eleven {
			eleven[i] = mine.GetId()
		}
		wantCode(t, "11 attachments", send(eleven...), connect.CodeInvalidArgument, "attachment_ids has 11 ids; the limit is 10")
		// The refused sends used nothing up: both uploads still attach, once each.
		clock.Advance(time.Second)
		mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{mine.GetId()}})
		clock.Advance(time.Second)
		mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{bobs.GetId()}})
		// A client_id repeat returns the first message, attachments included.
		again := mustUpload(t, s, owner, "again.txt", []byte("again"))
		first := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), ClientId: "k1", AttachmentIds: []string{again.GetId()}})
		clock.Advance(time.Second)
		repeat := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), ClientId: "k1", AttachmentIds: []string{again.GetId()}})
		if repeat.GetId() != first.GetId() {
			t.Errorf("a client_id repeat made a new message")
		}
		wantSigned(t, "client_id repeat", s, clock, repeat, again)

		// Deleting the message deletes its files: out of the bucket, and their URLs with them.
		list, err = bob.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: ch.GetId()}))
		wantOK(t, "ListMessages", err)
		fresh := list.Msg.GetMessages()[0].GetAttachments()
		_, err = owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()}))
		wantOK(t, "DeleteMessage", err)
		for _, a := range fresh {
			if status, text := fetchError(t, s, a.GetUrl()); status != 404 || text != "this file was deleted" {
				t.Errorf("the file of a deleted message: %d %q", status, text)
			}
			if inBucket(t, s, a.GetId()) {
				t.Errorf("the file %s of a deleted message is still in the bucket", a.GetId())
			}
		}
	})
}

// A member outside a private channel is never issued a URL of a file sent there: not by a
// call, not by a live event, not by replay.
func TestAttachmentURLsOnlyToThoseWhoSeeTheFile(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	s := c.s
	carol := c.join("carol")
	secret := mustChannel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	live := carol.Subscribe(t, s.Engine.Seq())
	att := mustUpload(t, s, c.owner, "plans.pdf", []byte("%PDF-1.4 the plans"))
	m := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: "see", AttachmentIds: []string{att.GetId()}})
	if len(m.GetAttachments()) != 1 {
		t.Fatalf("sent %v", m)
	}
	// A marker carol does see, to know her stream has caught up.
	general := c.channel("general")
	c.send(c.owner, general.GetId(), "marker")

	saw := func(what string, msgs ...proto.Message) {
		t.Helper()
		for _, msg := range msgs {
			b, err := protojson.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), att.GetId()) {
				t.Errorf("%s gave carol the file: %s", what, b)
			}
		}
	}
	for _, st := range []*webtest.Stream{live, carol.Subscribe(t, 0)} {
		for _, ev := range st.Until(func(ev *svcv1.Event) bool { return ev.GetMessageCreated().GetText() == "marker" }) {
			saw("an event", ev)
		}
	}
	state, err := carol.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	wantOK(t, "GetState", err)
	saw("GetState", state.Msg)
	_, err = carol.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: secret.GetId()}))
	wantCode(t, "ListMessages of the private channel", err, connect.CodePermissionDenied, "you cannot see this channel")
	// Nor can she send it herself.
	_, err = carol.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "x", AttachmentIds: []string{att.GetId()}}))
	wantCode(t, "carol attaching it", err, connect.CodePermissionDenied, "is not yours")
}
