package web_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// A bot's whole life through the API: created by the owner (token once, only its hash kept),
// sending at its own rate, rotated (the old token dies at once), deleted (its messages stay,
// its username is free again).
func TestBotLife(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock), func(o *engine.Options) { o.BotRate, o.BotBurst = 2, 3 })
	owner := s.Join("owner")
	member := s.Join("member")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	watch := member.Subscribe(t, s.Engine.Seq())

	res, err := owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "helper", Bio: "I help"}))
	if err != nil {
		t.Fatal(err)
	}
	bot, token := res.Msg.GetBot(), res.Msg.GetToken()
	if bot.GetKind() != svcv1.MemberKind_MEMBER_KIND_BOT || bot.GetRole() != svcv1.MemberRole_MEMBER_ROLE_MEMBER ||
		bot.GetUsername() != "helper" || bot.GetDisplayName() != "helper" || bot.GetBio() != "I help" || bot.GetId() == "" {
		t.Fatalf("bot = %v", bot)
	}
	// "hb_" and 256 bits in unpadded base64url.
	if !strings.HasPrefix(token, "hb_") || len(token) != 3+43 {
		t.Fatalf("token %q is not hb_ and 43 base64url characters", token)
	}
	if ev := watch.Next(); ev.GetMemberJoined().GetId() != bot.GetId() {
		t.Fatalf("member got %v, want member_joined of the bot", ev)
	}

	helper := s.Client(token)
	me, err := helper.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	if err != nil || me.Msg.GetMember().GetId() != bot.GetId() {
		t.Fatalf("GetMe as the bot: %v %v", me, err)
	}
	// The bot's rate: a burst of 3, then 2 a second.
	var sent []*svcv1.Message
	for i := range 3 {
		sent = append(sent, mustSend(t, helper, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "beep " + string(rune('a'+i))}))
	}
	_, err = helper.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "too fast"}))
	wantCode(t, "a 4th message at once", err, connect.CodeResourceExhausted, "rate limit")
	clock.Advance(500 * time.Millisecond)
	sent = append(sent, mustSend(t, helper, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "beep d"}))
	for _, m := range sent {
		if ev := watch.Next(); ev.GetMessageCreated().GetId() != m.GetId() || ev.GetMessageCreated().GetAuthorId() != bot.GetId() {
			t.Fatalf("member got %v, want the bot's %q", ev, m.GetText())
		}
	}

	rot, err := owner.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: bot.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	if rot.Msg.GetToken() == token || !strings.HasPrefix(rot.Msg.GetToken(), "hb_") {
		t.Fatalf("rotated token %q", rot.Msg.GetToken())
	}
	_, err = helper.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	wantCode(t, "the old token after rotation", err, connect.CodeUnauthenticated, "unknown bot token")
	helper = s.Client(rot.Msg.GetToken())
	clock.Advance(time.Second)
	last := mustSend(t, helper, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "new token"})
	if ev := watch.Next(); ev.GetMessageCreated().GetId() != last.GetId() {
		t.Fatalf("member got %v, want the message sent with the new token", ev)
	}

	if _, err := owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: bot.GetId()})); err != nil {
		t.Fatal(err)
	}
	if ev := watch.Next(); ev.GetMemberLeft() != bot.GetId() {
		t.Fatalf("member got %v, want member_left of the bot", ev)
	}
	_, err = helper.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	wantCode(t, "a deleted bot's token", err, connect.CodeUnauthenticated, "unknown bot token")
	msgs, err := member.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	if err != nil || len(msgs.Msg.GetMessages()) != 5 || msgs.Msg.GetMessages()[4].GetAuthorId() != bot.GetId() {
		t.Fatalf("after DeleteBot the channel has %v (%v), want the bot's 5 messages", msgs, err)
	}
	list, err := member.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{}))
	if err != nil || len(list.Msg.GetBots()) != 0 {
		t.Fatalf("ListBots after DeleteBot = %v, %v", list, err)
	}
	// The username is free again: a new bot takes it, with a new id.
	again := s.CreateBot(owner, "helper")
	if again.Member.GetId() == bot.GetId() {
		t.Fatal("the new bot has the deleted bot's id")
	}

	// Only the hash of a token is stored (and nothing of a deleted bot's), and it outlives a
	// restart (Seed restarts the server).
	rows := map[string]*storepb.MemberRecord{}
	s.Seed(func(b *store.Batch) error {
		return b.Members(func(m *storepb.MemberRecord) error {
			rows[m.GetMember().GetId()] = m
			return nil
		})
	})
	if h := sha256.Sum256([]byte(again.Token)); !bytes.Equal(rows[again.Member.GetId()].GetBotTokenHash(), h[:]) {
		t.Fatalf("stored %x, want the SHA-256 of the token", rows[again.Member.GetId()].GetBotTokenHash())
	}
	if old := rows[bot.GetId()]; old.GetState() != storepb.MemberState_MEMBER_STATE_DELETED || len(old.GetBotTokenHash()) != 0 {
		t.Fatalf("the deleted bot's row = %v", old)
	}
	if _, err := again.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
		t.Fatalf("the token after a restart: %v", err)
	}
}

func TestCreateBotRules(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	for _, who := range []*webtest.Client{c.member, c.mod, c.bot} {
		_, err := who.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "nope"}))
		wantCode(t, "CreateBot by "+who.Member.GetUsername(), err, connect.CodePermissionDenied, "admin")
	}
	for _, name := range []string{"", "a", strings.Repeat("a", 33), "Robot", "ro bot", "robôt", "ro/bot"} {
		_, err := c.admin.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: name}))
		wantCode(t, "username "+name, err, connect.CodeInvalidArgument, "username must be 2 to 32 characters of a-z, 0-9, underscore, dot and hyphen")
	}
	// Unique among members: people (here or gone), bots, in any case.
	if _, err := c.member2.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"member", "bot", "member2"} {
		_, err := c.admin.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: name}))
		wantCode(t, "taken username "+name, err, connect.CodeAlreadyExists, `username "`+name+`" is taken`)
	}
	_, err := c.admin.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "long.name", DisplayName: strings.Repeat("x", 65)}))
	wantCode(t, "display_name", err, connect.CodeInvalidArgument, "display_name is 65 characters; the limit is 64")
	_, err = c.admin.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "long.name", Bio: strings.Repeat("x", 1025)}))
	wantCode(t, "bio", err, connect.CodeInvalidArgument, "bio is 1,025 characters; the limit is 1,024")
	_, err = c.admin.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "long.name", AvatarUrl: "javascript:alert(1)"}))
	wantCode(t, "avatar_url", err, connect.CodeInvalidArgument, "avatar_url must be an http or https URL")
	res, err := c.admin.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "long.name_2-x", DisplayName: "Long Name", AvatarUrl: "https://example.com/a.png"}))
	if err != nil || res.Msg.GetBot().GetDisplayName() != "Long Name" || res.Msg.GetBot().GetAvatarUrl() != "https://example.com/a.png" {
		t.Fatalf("CreateBot by an admin: %v %v", res, err)
	}

	// Any member lists the bots, by username.
	list, err := c.member.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{}))
	var names []string
	for _, b := range list.Msg.GetBots() {
		names = append(names, b.GetUsername())
	}
	if err != nil || !slices.Equal(names, []string{"bot", "bot2", "long.name_2-x"}) {
		t.Fatalf("ListBots = %v, %v", names, err)
	}
}

// Managing a bot is for admins and the owner who outrank it; bots are never kicked or banned.
func TestBotManagementRanks(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	id := c.bot.Member.GetId()
	for _, who := range []*webtest.Client{c.member, c.mod, c.bot2, c.bot} {
		_, err := who.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: id}))
		wantCode(t, "DeleteBot by "+who.Member.GetUsername(), err, connect.CodePermissionDenied, "admin")
		_, err = who.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: id}))
		wantCode(t, "RotateBotToken by "+who.Member.GetUsername(), err, connect.CodePermissionDenied, "admin")
	}
	for _, notBot := range []string{c.member.Member.GetId(), "0190a0a0-0000-7000-8000-000000000000"} {
		_, err := c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: notBot}))
		wantCode(t, "DeleteBot of "+notBot, err, connect.CodeNotFound, "bot "+notBot+" does not exist")
		_, err = c.owner.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: notBot}))
		wantCode(t, "RotateBotToken of "+notBot, err, connect.CodeNotFound, "does not exist")
	}
	_, err := c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{}))
	wantCode(t, "DeleteBot without bot_id", err, connect.CodeInvalidArgument, "bot_id is required")

	for _, who := range []*webtest.Client{c.owner, c.admin, c.mod} {
		_, err := who.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: id}))
		wantCode(t, "kick a bot", err, connect.CodeFailedPrecondition, "bots are removed with DeleteBot")
		_, err = who.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: id}))
		wantCode(t, "ban a bot", err, connect.CodeFailedPrecondition, "bots are removed with DeleteBot")
	}

	// A bot made admin by the owner is the owner's to manage: another admin does not outrank it.
	if _, err := c.owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: id, Role: svcv1.MemberRole_MEMBER_ROLE_ADMIN})); err != nil {
		t.Fatal(err)
	}
	_, err = c.admin.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: id}))
	wantCode(t, "an admin rotates an admin bot", err, connect.CodePermissionDenied, "needs a higher rank than the bot's")
	_, err = c.admin.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: id}))
	wantCode(t, "an admin deletes an admin bot", err, connect.CodePermissionDenied, "needs a higher rank than the bot's")
	_, err = c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: id}))
	wantOK(t, "the owner deletes an admin bot", err)
	// A deleted bot is not found again.
	_, err = c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: id}))
	wantCode(t, "DeleteBot twice", err, connect.CodeNotFound, "does not exist")

	// A bot token cannot Join (bots are created, not joined).
	_, err = c.bot2.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	wantCode(t, "Join with a bot token", err, connect.CodePermissionDenied, "bots cannot join")
	// Nor leave: a bot that left could not come back nor be deleted, and would keep its
	// username for good. It stays, and DeleteBot frees the name.
	_, err = c.bot2.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
	wantCode(t, "LeaveCommunity with a bot token", err, connect.CodeFailedPrecondition, "a bot cannot leave the community: an admin removes it with DeleteBot")
	if _, err := c.bot2.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
		t.Fatalf("the bot after refusing to leave: %v", err)
	}
	_, err = c.owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: c.bot2.Member.GetId()}))
	wantOK(t, "the owner deletes the bot that tried to leave", err)
	_, err = c.owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: c.bot2.Member.GetUsername()}))
	wantOK(t, "a new bot takes the freed username", err)
}

// The old token fails on the very next call after RotateBotToken, on every surface: calls
// (after a run of successful ones), a stream opened with it (which ends), and uploads.
func TestRotatedTokenFailsAtOnce(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	old := s.CreateBot(owner, "rotor")
	for range 3 {
		if _, err := old.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
			t.Fatal(err)
		}
	}
	if up := postUpload(t, s, old.Token, part{form: "file", file: "a.txt", body: strings.NewReader("hello")}); up.status != http.StatusOK {
		t.Fatalf("upload with the bot token: %d %s", up.status, up.err)
	}
	st := old.Subscribe(t, s.Engine.Seq())
	if _, err := owner.Bot.ListBots(ctx, req(&svcv1.ListBotsRequest{})); err != nil {
		t.Fatal(err)
	}
	rot, err := owner.Bot.RotateBotToken(ctx, req(&svcv1.RotateBotTokenRequest{BotId: old.Member.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	wantCode(t, "GetMe with the old token", err, connect.CodeUnauthenticated, "unknown bot token")
	wantCode(t, "the old token's stream", st.Ended(), connect.CodeUnauthenticated, "the bot's token was replaced")
	up := postUpload(t, s, old.Token, part{form: "file", file: "b.txt", body: strings.NewReader("hello")})
	wantRefused(t, "upload with the old token", up, http.StatusUnauthorized, "unknown bot token")
	wantCode(t, "Subscribe with the old token", old.Subscribe(t, 0).Ended(), connect.CodeUnauthenticated, "unknown bot token")

	fresh := s.Client(rot.Msg.GetToken())
	if _, err := fresh.Server.GetMe(ctx, req(&svcv1.GetMeRequest{})); err != nil {
		t.Fatalf("GetMe with the new token: %v", err)
	}
	if up := postUpload(t, s, fresh.Token, part{form: "file", file: "c.txt", body: strings.NewReader("hello")}); up.status != http.StatusOK {
		t.Fatalf("upload with the new token: %d %s", up.status, up.err)
	}
}

// DeleteBot ends the bot's open streams at once.
func TestDeleteBotEndsItsStreams(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	bot := s.CreateBot(owner, "goner")
	streams := []*webtest.Stream{bot.Subscribe(t, s.Engine.Seq()), bot.Subscribe(t, s.Engine.Seq())}
	if _, err := owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: bot.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	for i, st := range streams {
		if err := st.Ended(); err != nil {
			t.Errorf("stream %d ended with %v, want a normal end", i, err)
		}
	}
}

// A bot uploads a file and sends it, with its token as the Bearer of POST /upload.
func TestBotUploadsAndSends(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	bot := s.CreateBot(owner, "poster")
	ch := mustChannel(t, owner, "files", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	att := mustUpload(t, s, bot, "notes.txt", []byte("some notes"))
	m := mustSend(t, bot, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{att.GetId()}})
	if len(m.GetAttachments()) != 1 || m.GetAttachments()[0].GetName() != "notes.txt" || m.GetAuthorId() != bot.Member.GetId() {
		t.Fatalf("the bot's message = %v", m)
	}
}

// TestBotSendRateDefaults: with no -bot-rate or -bot-burst a bot sends a burst of 40, then 20
// a second.
func TestBotSendRateDefaults(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	res, err := owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: "chatty"}))
	if err != nil {
		t.Fatal(err)
	}
	bot := s.Client(res.Msg.GetToken())
	for i := range 40 {
		mustSend(t, bot, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: fmt.Sprintf("beep %d", i)})
	}
	_, err = bot.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "too fast"}))
	wantCode(t, "a 41st message at once", err, connect.CodeResourceExhausted, "rate limit")
	clock.Advance(50 * time.Millisecond)
	mustSend(t, bot, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "one more after 50 ms"})
	_, err = bot.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "too fast again"}))
	wantCode(t, "a second one within the same 50 ms", err, connect.CodeResourceExhausted, "rate limit")
}
