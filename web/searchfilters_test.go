package web_test

import (
	"slices"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestSearchFilters: each filter of EXTENSIONS.md 5 alone, with words and with each other,
// newest first, from the index's memory and from its lists, and after a restart.
func TestSearchFilters(t *testing.T) {
	t.Parallel()
	c := newCommunity(t) // the clock starts on 2026-11-01, 12:00 UTC
	bob, carol := c.join("bob"), c.join("carol")
	general, random := c.channel("general"), c.channel("random")
	bob.Subscribe(t, c.s.Engine.Seq()) // online: the <!here> reaches bob, not carol
	waitOnline(t, c, bob)
	send := func(by *webtest.Client, r *svcv1.SendMessageRequest) *svcv1.Message {
		t.Helper()
		c.clock.Advance(time.Second)
		return mustSend(t, by, r)
	}
	photo := mustUpload(t, c.s, carol, "photo.png", pngImage(t, 4, 4))
	notes := mustUpload(t, c.s, carol, "notes.txt", []byte("some notes"))

	// 2026-11-01
	m1 := send(bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "lunch plans https://example.com/menu"})
	m2 := send(carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "photo of lunch", AttachmentIds: []string{photo.GetId()}})
	m3 := send(carol, &svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: "notes", AttachmentIds: []string{notes.GetId()}})
	// 2026-11-02
	c.clock.Advance(24 * time.Hour)
	m4 := send(bob, &svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: "hey <@" + carol.Member.GetId() + "> lunch?"})
	m5 := send(c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "nice lunch", ReplyToId: m2.GetId()})
	m6 := send(c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<!everyone> lunch at noon"})
	// 2026-11-03
	c.clock.Advance(24 * time.Hour)
	m7 := send(c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<!here> anyone?"})
	m8 := send(carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "foo bar is text"})
	if _, err := c.owner.Chat.PinMessage(ctx, req(&svcv1.PinMessageRequest{MessageId: m1.GetId()})); err != nil {
		t.Fatal(err)
	}

	type query struct {
		by    *webtest.Client
		q     string
		ch    string
		limit int32
		want  []*svcv1.Message
	}
	queries := []query{
		{carol, "from:bob", "", 0, []*svcv1.Message{m4, m1}},
		{carol, "from:@Bob lunch", "", 0, []*svcv1.Message{m4, m1}},
		{carol, "lun from:bob", "", 0, nil}, // a word before a filter is whole, not a prefix
		{carol, "in:general", "", 0, []*svcv1.Message{m8, m7, m6, m5, m2, m1}},
		{carol, "in:#random", "", 0, []*svcv1.Message{m4, m3}},
		{carol, "in:" + random.GetId(), "", 0, []*svcv1.Message{m4, m3}},
		{carol, "in:random", random.GetId(), 0, []*svcv1.Message{m4, m3}},
		{carol, "in:random", general.GetId(), 0, nil},
		{carol, "has:file", "", 0, []*svcv1.Message{m3, m2}},
		{carol, "has:image", "", 0, []*svcv1.Message{m2}},
		{carol, "has:link", "", 0, []*svcv1.Message{m1}},
		{carol, "has:file has:image", "", 0, []*svcv1.Message{m2}},
		{carol, "is:pinned", "", 0, []*svcv1.Message{m1}},
		{carol, "mentions:me", "", 0, []*svcv1.Message{m6, m5, m4}},
		{bob, "mentions:me", "", 0, []*svcv1.Message{m7, m6}},
		{c.owner, "mentions:me", "", 0, nil}, // the owner's group mentions are not the owner's
		{carol, "before:2026-11-02", "", 0, []*svcv1.Message{m3, m2, m1}},
		{carol, "after:2026-11-01", "", 0, []*svcv1.Message{m8, m7, m6, m5, m4}},
		{carol, "after:2026-11-01 before:2026-11-03", "", 0, []*svcv1.Message{m6, m5, m4}},
		{carol, "before:2026-11-01", "", 0, nil},
		{carol, "after:2026-11-03", "", 0, nil},
		{carol, "from:carol has:image", "", 0, []*svcv1.Message{m2}},
		{carol, "lunch in:general after:2026-11-01", "", 0, []*svcv1.Message{m6, m5}},
		{carol, "AFTER:2026-11-02 From:carol", "", 0, []*svcv1.Message{m8}},
		{carol, "foo:bar", "", 0, []*svcv1.Message{m8}}, // not a filter: text
		{carol, "in:general", "", 2, []*svcv1.Message{m8, m7}},
	}
	run := func(when string) {
		t.Helper()
		for _, q := range queries {
			res, err := q.by.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: q.q, ChannelId: q.ch, Limit: q.limit}))
			if err != nil {
				t.Errorf("%s: %q: %v", when, q.q, err)
				continue
			}
			if got := idsOf(res.Msg.GetMessages()); !slices.Equal(got, ids(q.want...)) {
				t.Errorf("%s: %q (channel %q) as %s: %v, want %v", when, q.q, q.ch, q.by.Member.GetUsername(), got, ids(q.want...))
			}
		}
	}
	run("from the index's memory")
	if _, err := c.s.Engine.SearchIndexTerms(); err != nil { // applies what waits
		t.Fatal(err)
	}
	run("from the lists")

	// What a filter checks follows the message: an unpin, a delete.
	if _, err := c.owner.Chat.UnpinMessage(ctx, req(&svcv1.UnpinMessageRequest{MessageId: m1.GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m3.GetId()})); err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		switch q.q {
		case "is:pinned":
			queries[i].want = nil
		case "has:file":
			queries[i].want = []*svcv1.Message{m2}
		case "in:#random", "in:" + random.GetId(), "in:random":
			if q.ch != general.GetId() {
				queries[i].want = []*svcv1.Message{m4}
			}
		case "before:2026-11-02":
			queries[i].want = []*svcv1.Message{m2, m1}
		}
	}
	run("after an unpin and a delete")
	terms := indexedTerms(t, c.s)
	if n := terms["\x04is pinned"]; n != 0 {
		t.Errorf("the index lists %d pinned messages after the unpin", n)
	}
	if n := terms["\x04has file"]; n != 1 {
		t.Errorf("the index lists %d messages with files after the delete, want 1", n)
	}
	c.s.Restart()
	for _, who := range []*webtest.Client{bob, carol, c.owner} {
		member := who.Member
		*who = *c.s.Client(who.Token)
		who.Member = member
	}
	run("after a restart")
}

// TestSearchFilterErrors: a malformed date, an unknown username or channel, a value a filter
// does not take and a filter given twice are invalid_argument naming the word.
func TestSearchFilterErrors(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	bob := c.join("bob")
	c.channel("general")
	mustChannel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	for _, tc := range []struct{ q, says string }{
		{"before:2026-13-01", `"before:2026-13-01" is not a date`},
		{"after:yesterday", `"after:yesterday" is not a date`},
		{"from:nobody", "from:nobody: no member has this username"},
		{"in:nowhere", "in:nowhere: no channel you can see has this name or id"},
		{"in:secret", "in:secret: no channel you can see"},
		{"has:video", `"has:video": has: takes file, image or link`},
		{"is:open", `"is:open": is: takes pinned`},
		{"mentions:owner", `"mentions:owner": mentions: takes me`},
		{"from:bob from:owner", `"from:" may be used once`},
		{"has:file has:FILE", `"has:" may be used once`},
		{"lunch from:", `"from:" needs a value`},
	} {
		_, err := bob.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: tc.q}))
		wantCode(t, tc.q, err, connect.CodeInvalidArgument, tc.says)
	}
	// The owner sees the private channel: in: finds it (empty, but no error).
	if _, err := c.owner.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: "in:secret"})); err != nil {
		t.Errorf("in: a channel the caller sees: %v", err)
	}
}
