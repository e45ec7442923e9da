package importer

import (
	"bytes"
	"context"
	"image/color"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// A DiscordChatExporter export as the tool writes it (JsonMessageWriter: guild, channel with
// categoryId/category/name/topic, messages with id, type, timestamp, timestampEdited, isPinned,
// content, author, attachments, embeds, stickers, reactions with users, mentions, reference,
// inlineEmojis), exported with --media into general.json_Files.

func user(id, name, nick string) map[string]any {
	return map[string]any{"id": id, "name": name, "discriminator": "0000", "nickname": nick, "isBot": false, "avatarUrl": "https://cdn.discordapp.com/avatars/" + id + ".png"}
}

func dceMsg(id, typ, ts string, author map[string]any, content string) map[string]any {
	return map[string]any{
		"id": id, "type": typ, "timestamp": ts, "timestampEdited": nil, "callEndedTimestamp": nil, "isPinned": false,
		"content": content, "author": author, "attachments": []any{}, "embeds": []any{}, "stickers": []any{},
		"reactions": []any{}, "mentions": []any{}, "inlineEmojis": []any{},
	}
}

func dceFileOf(channel map[string]any, msgs ...map[string]any) map[string]any {
	return map[string]any{
		"guild":        map[string]any{"id": "500", "name": "Friends", "iconUrl": "https://cdn.discordapp.com/embed/avatars/0.png"},
		"channel":      channel,
		"dateRange":    map[string]any{"after": nil, "before": nil},
		"exportedAt":   "2024-01-01T00:00:00+00:00",
		"messages":     msgs,
		"messageCount": len(msgs),
	}
}

// discordExport writes the test's export into dir and returns what the tests compare with.
func discordExport(t *testing.T, dir string) {
	t.Helper()
	alice, bob, carol := user("1001", "alice", "Alice A."), user("1002", "bob", "Bobby"), user("1003", "carol", "Carol")
	alice["avatarUrl"] = "general.json_Files/alice.png"
	writeFile(t, filepath.Join(dir, "general.json_Files", "alice.png"), pngBytes(t, 64, 64, color.RGBA{200, 0, 0, 255}))
	writeFile(t, filepath.Join(dir, "general.json_Files", "cat.png"), pngBytes(t, 40, 30, color.RGBA{0, 200, 0, 255}))
	writeFile(t, filepath.Join(dir, "general.json_Files", "party.png"), pngBytes(t, 32, 32, color.RGBA{0, 0, 200, 255}))
	writeFile(t, filepath.Join(dir, "general.json_Files", "shot.png"), pngBytes(t, 20, 10, color.RGBA{9, 9, 9, 255}))

	m1 := dceMsg("2001", "Default", "2021-03-01T10:00:00.000+00:00", alice, "Hello @Bobby, welcome! <:party:77>")
	m1["timestampEdited"] = "2021-03-01T10:05:30.500+00:00"
	m1["mentions"] = []any{bob}
	m1["inlineEmojis"] = []any{map[string]any{"id": "77", "name": "party", "code": "party", "isAnimated": false, "imageUrl": "general.json_Files/party.png"}}

	m2 := dceMsg("2002", "Reply", "2021-03-01T12:01:00.000+02:00", bob, "héllo 👋 日本語")
	m2["isPinned"] = true
	m2["reference"] = map[string]any{"type": "Default", "messageId": "2001", "channelId": "900", "guildId": "500"}
	m2["attachments"] = []any{
		map[string]any{"id": "3001", "url": "general.json_Files/cat.png", "fileName": "cat.png", "fileSizeBytes": 100},
		map[string]any{"id": "3002", "url": "https://cdn.discordapp.com/attachments/900/3002/notes.txt", "fileName": "notes.txt", "fileSizeBytes": 12},
		map[string]any{"id": "3003", "url": "../secret.txt", "fileName": "secret.txt", "fileSizeBytes": 12},
	}
	m2["reactions"] = []any{
		map[string]any{"emoji": map[string]any{"id": "", "name": "👍", "code": "thumbsup", "isAnimated": false, "imageUrl": ""}, "count": 2, "users": []any{alice, carol}},
		map[string]any{"emoji": map[string]any{"id": "77", "name": "party", "code": "party", "isAnimated": false, "imageUrl": "general.json_Files/party.png"}, "count": 1, "users": []any{alice}},
		map[string]any{"emoji": map[string]any{"id": "", "name": "❤️", "code": "heart", "isAnimated": false, "imageUrl": ""}, "count": 3},
	}
	// The message that starts thread 4001: the thread's id is the message's.
	m3 := dceMsg("4001", "Default", "2021-03-01T09:30:00.000Z", alice, "Let's plan the trip")
	join := dceMsg("2004", "GuildMemberJoin", "2021-03-01T11:15:00.000+00:00", carol, "Joined the server.")
	m5 := dceMsg("2005", "Default", "2021-03-01T12:00:00.000+00:00", carol, "")
	m5["embeds"] = []any{map[string]any{"title": "Weekly report", "url": "https://example.com/report", "description": "All good", "image": map[string]any{"url": "general.json_Files/shot.png", "width": 20, "height": 10}, "images": []any{}, "fields": []any{map[string]any{"name": "Status", "value": "green", "isInline": false}}}}
	general := map[string]any{"id": "900", "type": "GuildTextChat", "categoryId": "800", "category": "Text Channels", "name": "general", "topic": "Everything & nothing"}
	writeJSON(t, filepath.Join(dir, "general.json"), dceFileOf(general, m3, m1, m2, join, m5))

	// Its thread, exported on its own (the category of a thread is its parent channel).
	thread := map[string]any{"id": "4001", "type": "GuildPublicThread", "categoryId": "900", "category": "general", "name": "Trip", "topic": nil}
	t1 := dceMsg("4002", "Default", "2021-03-01T10:30:00.000+00:00", bob, "I can drive")
	t1["reactions"] = []any{map[string]any{"emoji": map[string]any{"id": "", "name": "🚗", "code": "red_car", "isAnimated": false, "imageUrl": ""}, "count": 1, "users": []any{alice}}}
	t2 := dceMsg("4003", "Default", "2021-03-01T11:30:00.000+00:00", alice, "Great, thanks @Bobby")
	t2["mentions"] = []any{bob}
	writeJSON(t, filepath.Join(dir, "threads", "trip.json"), dceFileOf(thread, t1, t2))

	// A forum post whose forum was not exported: its first message starts the thread.
	post := map[string]any{"id": "5001", "type": "GuildPublicThread", "categoryId": "950", "category": "help", "name": "Printer on fire", "topic": nil}
	p1 := dceMsg("5001", "Default", "2021-04-01T08:00:00.000+00:00", carol, "What do I do?")
	p2 := dceMsg("5002", "Default", "2021-04-01T08:10:00.000+00:00", bob, "Water, not.")
	writeJSON(t, filepath.Join(dir, "threads", "printer.json"), dceFileOf(post, p1, p2))
}

func TestImportDiscordExportReadsBackThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	dir := t.TempDir()
	discordExport(t, dir)
	writeFile(t, filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("not for you"))
	ctx := context.Background()
	var progress bytes.Buffer
	sum, err := ImportDiscord(ctx, NewClient(s.Dir), []string{dir}, DiscordOptions{}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum.Print(&out)
	t.Log(out.String())
	if sum.Added != 8 || sum.System != 1 || sum.Missing != 2 || sum.Files != 2 || sum.Emoji != 1 || sum.ReactionsUnknown != 1 || sum.NewChannels != 2 {
		t.Fatalf("summary: %+v", sum)
	}

	st := state(t, owner)
	general, rs := channelNamed(t, st, "general")
	if general.GetTopic() != "Everything & nothing" || general.GetCategory() != "Text Channels" {
		t.Fatalf("general: %v", general)
	}
	if rs.GetUnreadCount() != 0 || rs.GetMentionCount() != 0 {
		t.Fatalf("imported history counts as unread: %v", rs)
	}
	alice, bob, carol := memberNamed(t, st, "alice"), memberNamed(t, st, "bob"), memberNamed(t, st, "carol")
	for _, m := range []*svcv1.Member{alice, bob, carol} {
		if !m.GetImported() || m.GetKind() != svcv1.MemberKind_MEMBER_KIND_HUMAN || m.GetPresence() != svcv1.Presence_PRESENCE_OFFLINE {
			t.Fatalf("placeholder: %v", m)
		}
	}
	if alice.GetDisplayName() != "Alice A." || !strings.HasPrefix(alice.GetAvatarUrl(), "/files/") || bob.GetAvatarUrl() != "" {
		t.Fatalf("alice %v, bob %v: the picture of a local file only", alice, bob)
	}

	msgs := allMessages(t, owner, general.GetId(), "")
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.GetText())
	}
	// Oldest first, whatever the offsets of the timestamps.
	want := []string{
		"Let's plan the trip",
		"Hello <@" + bob.GetId() + ">, welcome! :party:",
		"héllo 👋 日本語\n(attachment not in the export: notes.txt)\n(attachment not in the export: secret.txt)",
		"**Weekly report**\nAll good\n**Status**: green\nhttps://example.com/report",
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("general holds\n%q\nwant\n%q", texts, want)
	}
	root, hello, reply, report := msgs[0], msgs[1], msgs[2], msgs[3]
	if hello.GetAuthorId() != alice.GetId() || hello.GetCreatedAtMs() != ms(t, "2021-03-01T10:00:00Z") || hello.GetEditedAtMs() != ms(t, "2021-03-01T10:05:30.5Z") {
		t.Fatalf("hello: %v", hello)
	}
	if reply.GetAuthorId() != bob.GetId() || reply.GetCreatedAtMs() != ms(t, "2021-03-01T10:01:00Z") || reply.GetEditedAtMs() != 0 ||
		reply.GetReplyTo().GetId() != hello.GetId() || reply.GetReplyTo().GetAuthorId() != alice.GetId() || reply.GetReplyTo().GetText() != hello.GetText() ||
		reply.GetPinnedAtMs() != reply.GetCreatedAtMs() || reply.GetPinnedBy() != bob.GetId() {
		t.Fatalf("reply: %v", reply)
	}
	if len(reply.GetReactions()) != 2 || reply.GetReactions()[0].GetEmoji() != "👍" || strings.Join(reply.GetReactions()[0].GetMemberIds(), ",") != alice.GetId()+","+carol.GetId() ||
		reply.GetReactions()[1].GetEmoji() != ":party:" || reply.GetReactions()[1].GetMemberIds()[0] != alice.GetId() {
		t.Fatalf("reactions: %v", reply.GetReactions())
	}
	if len(reply.GetAttachments()) != 1 || reply.GetAttachments()[0].GetName() != "cat.png" || reply.GetAttachments()[0].GetWidth() != 40 {
		t.Fatalf("attachments: %v", reply.GetAttachments())
	}
	if code, body := fetchURL(t, s, reply.GetAttachments()[0].GetUrl()); code != 200 || !bytes.Equal(body, pngBytes(t, 40, 30, color.RGBA{0, 200, 0, 255})) {
		t.Fatalf("the file: %d, %d bytes", code, len(body))
	}
	if report.GetAuthorId() != carol.GetId() || len(report.GetAttachments()) != 1 || report.GetAttachments()[0].GetName() != "shot.png" {
		t.Fatalf("the embed's image: %v", report)
	}
	pins, err := owner.Chat.ListPins(ctx, connect.NewRequest(&svcv1.ListPinsRequest{ChannelId: general.GetId()}))
	if err != nil || len(pins.Msg.GetMessages()) != 1 || pins.Msg.GetMessages()[0].GetId() != reply.GetId() {
		t.Fatalf("pins: %v %v", pins, err)
	}
	// The thread: started from the channel's message, its replies in order.
	if root.GetReplyCount() != 2 || root.GetLastReplyAtMs() != ms(t, "2021-03-01T11:30:00Z") {
		t.Fatalf("thread root: %v", root)
	}
	replies := allMessages(t, owner, general.GetId(), root.GetId())
	if len(replies) != 2 || replies[0].GetText() != "I can drive" || replies[1].GetText() != "Great, thanks <@"+bob.GetId()+">" || replies[0].GetReactions()[0].GetEmoji() != "🚗" {
		t.Fatalf("thread: %v", replies)
	}
	// The forum post: its parent made from the thread's header, its first message the root.
	help, _ := channelNamed(t, st, "help")
	post := allMessages(t, owner, help.GetId(), "")
	if len(post) != 1 || post[0].GetText() != "**Printer on fire**\nWhat do I do?" || post[0].GetReplyCount() != 1 {
		t.Fatalf("forum post: %v", post)
	}
	// The custom emoji came from the media folder.
	if code, body := fetchURL(t, s, "/emoji", owner.Token); code != 200 || !strings.Contains(string(body), `"party"`) {
		t.Fatalf("GET /emoji: %d %s", code, body)
	}

	// Again: nothing new.
	sum2, err := ImportDiscord(ctx, NewClient(s.Dir), []string{dir}, DiscordOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Added != 0 || sum2.Present != 8 || sum2.Files != 0 || sum2.NewChannels != 0 {
		t.Fatalf("a second run: %+v", sum2)
	}
	if n := len(allMessages(t, owner, general.GetId(), "")); n != 4 {
		t.Fatalf("%d top-level messages after a second run", n)
	}
	if len(state(t, owner).GetMembers()) != 4 {
		t.Fatalf("members after a second run: %v", state(t, owner).GetMembers())
	}
	// The channel takes new messages once imported.
	if _, err := owner.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "now"})); err != nil {
		t.Fatal(err)
	}
}

func TestImportDiscordRefusesWhatIsNotAnExport(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.Join("owner")
	dir := t.TempDir()
	for name, content := range map[string]string{
		"notes.json":     `{"hello": "world"}`,
		"list.json":      `[1, 2, 3]`,
		"truncated.json": `{"guild": {"id": "1"}, "channel": {"id": "2", "type": "GuildTextChat", "name": "x"}, "messages": [{"id": "3", "type": "Default", "timestamp": "2021-01-01T00:00:00Z", "content": "a", "author": {"id": "4", "name": "a"}}, {"id": "5"`,
	} {
		writeFile(t, filepath.Join(dir, name), []byte(content))
		_, err := ImportDiscord(context.Background(), NewClient(s.Dir), []string{filepath.Join(dir, name)}, DiscordOptions{}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

// TestImportKeepsChannelsInTimeOrder: a later export of a channel that has new messages since
// adds only what is newer than them; messages past the retention are left out; open streams
// get one channel_updated per batch and no message events.
func TestImportKeepsChannelsInTimeOrder(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	ctx := context.Background()
	dir := t.TempDir()
	alice := user("1001", "alice", "Alice")
	channel := map[string]any{"id": "900", "type": "GuildTextChat", "categoryId": nil, "category": nil, "name": "general", "topic": nil}
	writeJSON(t, filepath.Join(dir, "a", "general.json"), dceFileOf(channel,
		dceMsg("1", "Default", "2021-01-01T00:00:00Z", alice, "one"),
		dceMsg("2", "Default", "2021-01-02T00:00:00Z", alice, "two")))
	stream := owner.Subscribe(t, state(t, owner).GetSeq())
	if _, err := ImportDiscord(ctx, NewClient(s.Dir), []string{filepath.Join(dir, "a")}, DiscordOptions{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	updates := 0
	evs := stream.Until(func(ev *svcv1.Event) bool {
		if ev.GetChannelUpdated() != nil {
			updates++ // the batch's, then the finish's
		}
		return updates == 2
	})
	for _, ev := range evs {
		if ev.GetMessageCreated() != nil {
			t.Fatalf("an imported message was sent as an event: %v", ev)
		}
	}
	stream.Close()
	st := state(t, owner)
	general, _ := channelNamed(t, st, "general")
	if _, err := owner.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "live"})); err != nil {
		t.Fatal(err)
	}
	// A later export: one message older than the live one, one dated in the future.
	writeJSON(t, filepath.Join(dir, "b", "general.json"), dceFileOf(channel,
		dceMsg("1", "Default", "2021-01-01T00:00:00Z", alice, "one"),
		dceMsg("3", "Default", "2021-01-03T00:00:00Z", alice, "three"),
		dceMsg("4", "Default", "2999-01-01T00:00:00Z", alice, "from the future")))
	sum, err := ImportDiscord(ctx, NewClient(s.Dir), []string{filepath.Join(dir, "b")}, DiscordOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 0 || sum.Present != 1 || sum.OutOfOrder != 1 || sum.Future != 1 {
		t.Fatalf("summary: %+v", sum)
	}
	var texts []string
	for _, m := range allMessages(t, owner, general.GetId(), "") {
		texts = append(texts, m.GetText())
	}
	if strings.Join(texts, ",") != "one,two,live" {
		t.Fatalf("general: %q", texts)
	}
	// With a retention of 30 days, a 2021 export is past it.
	days := int32(30)
	if _, err := owner.Server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{RetentionDays: &days})); err != nil {
		t.Fatal(err)
	}
	channel["id"], channel["name"] = "901", "old"
	writeJSON(t, filepath.Join(dir, "c", "old.json"), dceFileOf(channel, dceMsg("9", "Default", "2021-01-01T00:00:00Z", alice, "old")))
	sum, err = ImportDiscord(ctx, NewClient(s.Dir), []string{filepath.Join(dir, "c")}, DiscordOptions{}, io.Discard)
	if err != nil || sum.PastRetention != 1 || sum.Added != 0 {
		t.Fatalf("past retention: %+v %v", sum, err)
	}
}
