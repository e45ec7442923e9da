package web_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// searchIDs runs a search as c and returns the ids found, in order.
func searchIDs(t *testing.T, c *webtest.Client, r *svcv1.SearchRequest) []string {
	t.Helper()
	res, err := c.Chat.Search(ctx, req(r))
	if err != nil {
		t.Fatalf("Search(%q): %v", r.GetQuery(), err)
	}
	var ids []string
	for _, m := range res.Msg.GetMessages() {
		ids = append(ids, m.GetId())
	}
	return ids
}

func ids(ms ...*svcv1.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.GetId())
	}
	return out
}

// TestSearchRules: each rule of the query language, with the message that must match and the
// one that must not, and the order (newest first).
func TestSearchRules(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	bob := c.join("bob")
	general := c.channel("general")
	send := func(text string) *svcv1.Message { return c.send(bob, general.GetId(), text) }
	deployFriday := send("We deploy on Friday")
	deployMonday := send("deploy the Monday build")
	deployed := send("Deployed it already")
	fox := send("the quick brown fox")
	foxReversed := send("the brown quick fox")
	cafe := send("Café au lait")
	cafePlain := send("CAFE NOIR")
	tokyo := send("明日東京に行きます")
	kyoto := send("京都が好き")
	rocket := send("ship it 🚀")
	noRocket := send("ship it now")
	tada := send("done :tada:")
	tadaWord := send("tada, said the magician")
	mention := send("hey <@" + c.owner.Member.GetId() + "> look")
	email := send("send an e-mail")
	emailSplit := send("mail me an e")
	shout := send("ЁЛКА и Straße")

	for _, tc := range []struct {
		query string
		want  []*svcv1.Message
	}{
		{"deploy", []*svcv1.Message{deployed, deployMonday, deployFriday}}, // prefix on the last word, newest first
		{"deploy friday", []*svcv1.Message{deployFriday}},                  // every word must match
		{"deploy fri", []*svcv1.Message{deployFriday}},
		{"fri deploy", nil}, // only the last word is a prefix
		{"DEPLOY FRIDAY", []*svcv1.Message{deployFriday}},
		{`"quick brown"`, []*svcv1.Message{fox}}, // a phrase: in that order, next to each other
		{`"brown quick"`, []*svcv1.Message{foxReversed}},
		{"quick brown", []*svcv1.Message{foxReversed, fox}},
		{`"quick fox"`, []*svcv1.Message{foxReversed}},
		{`"fox quick"`, nil},
		{"café", []*svcv1.Message{cafePlain, cafe}}, // case and accents folded both ways
		{"cafe", []*svcv1.Message{cafePlain, cafe}},
		{"東京", []*svcv1.Message{tokyo}}, // CJK by pairs of characters
		{"京都", []*svcv1.Message{kyoto}},
		{"京", []*svcv1.Message{kyoto, tokyo}},
		{"🚀", []*svcv1.Message{rocket}}, // emoji are words
		{"ship it", []*svcv1.Message{noRocket, rocket}},
		{":tada:", []*svcv1.Message{tada}}, // a shortcode is a word of its own
		{"magician tada", []*svcv1.Message{tadaWord}},
		{c.owner.Member.GetId()[:8], nil}, // mentions are not text
		{"hey look", []*svcv1.Message{mention}},
		{"e-mail", []*svcv1.Message{email}}, // a word the analyzer splits is a phrase
		{"mail e", []*svcv1.Message{emailSplit, email}},
		{"елка strasse", []*svcv1.Message{shout}},
	} {
		if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: tc.query}); !slices.Equal(got, ids(tc.want...)) {
			t.Errorf("Search(%q) = %v, want %v", tc.query, got, ids(tc.want...))
		}
	}
}

// TestSearchLimitsAndBadInput: limit default 20, 1 to 100; a query without words and a bad
// channel_id are refused with a message that names the field.
func TestSearchLimitsAndBadInput(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general := c.channel("general")
	var sent []*svcv1.Message
	for i := range 25 {
		sent = append(sent, c.send(c.owner, general.GetId(), fmt.Sprintf("report number %d", i)))
	}
	slices.Reverse(sent)
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "report"}); !slices.Equal(got, ids(sent[:20]...)) {
		t.Fatalf("default limit: got %d messages, want the newest 20", len(got))
	}
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "report", Limit: 100}); !slices.Equal(got, ids(sent...)) {
		t.Fatalf("limit 100: got %d messages, want all 25", len(got))
	}
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "report", Limit: 3}); !slices.Equal(got, ids(sent[:3]...)) {
		t.Fatalf("limit 3: got %v", got)
	}
	for _, tc := range []struct {
		what  string
		r     *svcv1.SearchRequest
		code  connect.Code
		parts []string
	}{
		{"limit 101", &svcv1.SearchRequest{Query: "report", Limit: 101}, connect.CodeInvalidArgument, []string{"limit", "100"}},
		{"limit -1", &svcv1.SearchRequest{Query: "report", Limit: -1}, connect.CodeInvalidArgument, []string{"limit"}},
		{"empty query", &svcv1.SearchRequest{Query: ""}, connect.CodeInvalidArgument, []string{"query"}},
		{"spaces", &svcv1.SearchRequest{Query: "   "}, connect.CodeInvalidArgument, []string{"query", "no words"}},
		{"punctuation", &svcv1.SearchRequest{Query: `.,;!? "" -`}, connect.CodeInvalidArgument, []string{"query", "no words"}},
		{"too long", &svcv1.SearchRequest{Query: strings.Repeat("a", 1001)}, connect.CodeInvalidArgument, []string{"query", "1,000"}},
		{"too many terms", &svcv1.SearchRequest{Query: strings.Repeat("a ", 33)}, connect.CodeInvalidArgument, []string{"query", "32"}},
		{"unknown channel", &svcv1.SearchRequest{Query: "report", ChannelId: "0190f0a0-0000-7000-8000-000000000000"}, connect.CodeNotFound, []string{"channel"}},
	} {
		_, err := c.owner.Chat.Search(ctx, req(tc.r))
		wantCode(t, tc.what, err, tc.code, tc.parts...)
	}
}

// TestSearchVisibility: a search finds only what the caller is in now: channels by mode and
// role, private channels and DMs they are in (a hidden DM too), nothing of a channel they left
// or were removed from; channel_id narrows it to one channel.
func TestSearchVisibility(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	general := c.channel(t, c.owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	staff := c.channel(t, c.owner, "staff", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := c.channel(t, c.owner, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	mustAdd(t, c.owner, secret, c.member)
	role := c.role(t, "staff")
	mustAccess(t, c.admin, staff, false, role)
	dmRes, err := c.member.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(c.mod)}))
	if err != nil {
		t.Fatal(err)
	}
	dm := dmRes.Msg.GetChannel()
	say := func(by *webtest.Client, ch *svcv1.Channel, text string) *svcv1.Message {
		return mustSend(t, by, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: text})
	}
	inGeneral := say(c.owner, general, "zebra in general")
	inStaff := say(c.owner, staff, "zebra in staff")
	inSecret := say(c.owner, secret, "zebra in secret")
	inDM := say(c.mod, dm, "zebra in the dm")

	find := func(who *webtest.Client, channelID string) []string {
		return searchIDs(t, who, &svcv1.SearchRequest{Query: "zebra", ChannelId: channelID})
	}
	for _, tc := range []struct {
		who  string
		c    *webtest.Client
		want []*svcv1.Message
	}{
		{"owner: not in the DM", c.owner, []*svcv1.Message{inSecret, inStaff, inGeneral}},
		{"admin: role-limited channels seen, not the private one", c.admin, []*svcv1.Message{inStaff, inGeneral}},
		{"member: private channel and DM", c.member, []*svcv1.Message{inDM, inSecret, inGeneral}},
		{"member2: general only", c.member2, []*svcv1.Message{inGeneral}},
		{"mod: the DM", c.mod, []*svcv1.Message{inDM, inGeneral}},
	} {
		if got := find(tc.c, ""); !slices.Equal(got, ids(tc.want...)) {
			t.Errorf("%s: got %v, want %v", tc.who, got, ids(tc.want...))
		}
	}
	// The role brings the channel; taking it away takes it out again.
	mustSetRoles(t, c.owner, c.member2, role)
	if got := find(c.member2, ""); !slices.Equal(got, ids(inStaff, inGeneral)) {
		t.Errorf("member2 with the role: %v", got)
	}
	mustSetRoles(t, c.owner, c.member2)
	if got := find(c.member2, ""); !slices.Equal(got, ids(inGeneral)) {
		t.Errorf("member2 without the role: %v", got)
	}
	// A hidden DM is still searched.
	_, err = c.member.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: dm.GetId(), MemberId: c.member.Member.GetId()}))
	wantOK(t, "hide the DM", err)
	if got := find(c.member, ""); !slices.Equal(got, ids(inDM, inSecret, inGeneral)) {
		t.Errorf("member with the DM hidden: %v", got)
	}
	// channel_id narrows; a channel the caller cannot see is refused.
	if got := find(c.member, secret.GetId()); !slices.Equal(got, ids(inSecret)) {
		t.Errorf("member in #secret: %v", got)
	}
	_, err = c.member2.Chat.Search(ctx, req(&svcv1.SearchRequest{Query: "zebra", ChannelId: secret.GetId()}))
	wantCode(t, "member2 searches #secret", err, connect.CodePermissionDenied)
	// Removed from the private channel: nothing of it any more.
	_, err = c.owner.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId(), MemberId: c.member.Member.GetId()}))
	wantOK(t, "remove member from #secret", err)
	if got := find(c.member, ""); !slices.Equal(got, ids(inDM, inGeneral)) {
		t.Errorf("member removed from #secret: %v", got)
	}
	// OPT_IN: a TEXT channel left is not searched, even by its id; joined again, it is.
	setMode(t, c.owner, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
	_, err = c.member2.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: general.GetId()}))
	wantOK(t, "member2 leaves #general", err)
	if got := find(c.member2, ""); len(got) != 0 {
		t.Errorf("member2 after leaving #general: %v", got)
	}
	if got := find(c.member2, general.GetId()); len(got) != 0 {
		t.Errorf("member2 after leaving #general, by its id: %v", got)
	}
	_, err = c.member2.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: general.GetId()}))
	wantOK(t, "member2 joins #general", err)
	if got := find(c.member2, ""); !slices.Equal(got, ids(inGeneral)) {
		t.Errorf("member2 back in #general: %v", got)
	}
}

// TestSearchEditDeleteAndThreads: an edited message is found by its new words only, a deleted
// one not at all, a thread reply like any message, an attachment by its file name; and the
// index keeps no word of what was edited away or deleted.
func TestSearchEditDeleteAndThreads(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general := c.channel("general")
	root := c.send(c.owner, general.GetId(), "original wording here")
	c.clock.Advance(time.Second)
	reply := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), ThreadRootId: root.GetId(), Text: "a reply about pelicans"})
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "pelicans"}); !slices.Equal(got, ids(reply)) {
		t.Errorf("thread reply: %v", got)
	}
	if _, err := c.owner.Chat.EditMessage(ctx, req(&svcv1.EditMessageRequest{MessageId: root.GetId(), Text: "revised wording there"})); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]string{"original": nil, "here": nil, "revised": ids(root), "wording": ids(root), "there": ids(root)} {
		if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: q}); !slices.Equal(got, want) {
			t.Errorf("after the edit, %q: %v, want %v", q, got, want)
		}
	}
	att := mustUpload(t, c.s, c.owner, "Quarterly-Figures.pdf", []byte("%PDF-1.4 not really"))
	c.clock.Advance(time.Second)
	withFile := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "see attached", AttachmentIds: []string{att.GetId()}})
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "quarterly figures"}); !slices.Equal(got, ids(withFile)) {
		t.Errorf("by file name: %v", got)
	}
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: `"attached quarterly"`}); len(got) != 0 {
		t.Errorf("a phrase across the text and a file name: %v", got)
	}
	for _, m := range []*svcv1.Message{root, withFile} {
		if _, err := c.owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: m.GetId()})); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"revised", "quarterly", "attached"} {
		if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: q}); len(got) != 0 {
			t.Errorf("after the delete, %q: %v", q, got)
		}
	}
	// The reply of a deleted root stays, and is still found.
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "pelicans"}); !slices.Equal(got, ids(reply)) {
		t.Errorf("reply of a deleted root: %v", got)
	}
	terms := indexedTerms(t, c.s)
	for _, gone := range []string{"original", "here", "revised", "quarterly", "figures", "attached"} {
		if terms[gone] != 0 {
			t.Errorf("the index still holds %q in %d messages", gone, terms[gone])
		}
	}
	if terms["pelicans"] != 1 {
		t.Errorf("the index holds pelicans in %d messages, want 1", terms["pelicans"])
	}
}

func indexedTerms(t *testing.T, s *webtest.Server) map[string]int {
	t.Helper()
	terms, err := s.Engine.SearchIndexTerms()
	if err != nil {
		t.Fatal(err)
	}
	return terms
}

// TestSearchRetention: a message past retention is not found from the moment it is past it,
// and the purge takes its words out of the index (the purge sends no events).
func TestSearchRetention(t *testing.T) {
	t.Parallel()
	c := newCommunity(t, webtest.WithManualJobs())
	if _, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{RetentionDays: ptr(int32(1))})); err != nil {
		t.Fatal(err)
	}
	general := c.channel("general")
	old := c.send(c.owner, general.GetId(), "ancient walrus")
	c.clock.Advance(36 * time.Hour)
	fresh := c.send(c.owner, general.GetId(), "recent walrus")
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "walrus"}); !slices.Equal(got, ids(fresh)) {
		t.Fatalf("before the purge: %v, want the fresh one only (not %s)", got, old.GetId())
	}
	if err := c.s.Engine.PurgeNow(); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: "walrus"}); !slices.Equal(got, ids(fresh)) {
		t.Fatalf("after the purge: %v", got)
	}
	terms := indexedTerms(t, c.s)
	if terms["ancient"] != 0 || terms["walrus"] != 1 || terms["recent"] != 1 {
		t.Fatalf("after the purge the index holds ancient %d, walrus %d, recent %d; want 0, 1, 1", terms["ancient"], terms["walrus"], terms["recent"])
	}
}

// TestSearchAfterRestart: what was sent before a restart is found after it, whether or not the
// index had folded it into its lists; and what was deleted stays out.
func TestSearchAfterRestart(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general := c.channel("general")
	a := c.send(c.owner, general.GetId(), "persistent heron")
	b := c.send(c.owner, general.GetId(), "another heron")
	gone := c.send(c.owner, general.GetId(), "doomed heron")
	if _, err := c.owner.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: gone.GetId()})); err != nil {
		t.Fatal(err)
	}
	c.s.Restart()
	owner := c.s.Client(c.s.Token("owner"))
	if got := searchIDs(t, owner, &svcv1.SearchRequest{Query: "heron"}); !slices.Equal(got, ids(b, a)) {
		t.Fatalf("after a restart: %v, want %v", got, ids(b, a))
	}
	c.clock.Advance(time.Second)
	after := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "heron again"})
	if got := searchIDs(t, owner, &svcv1.SearchRequest{Query: "heron"}); !slices.Equal(got, ids(after, b, a)) {
		t.Fatalf("a send after the restart: %v", got)
	}
}
