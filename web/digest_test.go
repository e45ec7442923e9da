package web_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/engine/mail"
	"hearth/engine/mail/mailtest"
	"hearth/engine/notify"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// The email digest (EXTENSIONS.md 7, Email) against a real SMTP server on loopback, on the
// engine's manual clock: what mentioned a member or reached them in a DM, still unread 15
// minutes later, at most one email an hour.

// digestRig is a community that mails digests: alice owns it and names it "Maple Lodge".
type digestRig struct {
	s     *webtest.Server
	ms    *mailtest.Server
	clock *webtest.Clock
	alice *webtest.Client
}

func startDigests(t *testing.T, change func(*notify.Options)) *digestRig {
	t.Helper()
	ms := mailtest.Start(t, mailtest.Options{})
	clock := webtest.NewClock()
	s := webtest.StartConfig(t, func(c *web.Config) {
		webtest.WithMail(ms)(c)
		c.Metrics = true
		if change != nil {
			change(&c.Notify)
		}
	}, webtest.WithClock(clock))
	alice := s.Join("alice")
	name := "Maple Lodge"
	settings(t, alice, &svcv1.UpdateServerSettingsRequest{Name: &name})
	return &digestRig{s: s, ms: ms, clock: clock, alice: alice}
}

// reader joins a member with a verified address and the given preferences (email on unless
// prefs say otherwise: pass nil for email on and the defaults).
func (r *digestRig) reader(t *testing.T, name string, prefs *svcv1.NotificationPrefs) *webtest.Client {
	t.Helper()
	c := r.s.Join(name)
	r.s.SetVerifiedEmail(t, name, name+"@example.org")
	if prefs == nil {
		prefs = &svcv1.NotificationPrefs{Email: true}
	}
	setPrefs(t, notifyClient(r.s, c), prefs)
	return c
}

// pending waits until n messages wait in a member's digest.
func (r *digestRig) pending(t *testing.T, c *webtest.Client, n int) {
	t.Helper()
	waitFor(t, c.Member.GetUsername()+"'s digest holding "+strconv.Itoa(n), func() bool { return r.s.DigestPending(t, c.Member.GetId()) == n })
}

// quiet checks that no mail beyond the first n arrived.
func (r *digestRig) quiet(t *testing.T, n int, why string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	if got := r.ms.Count(); got != n {
		t.Fatalf("%s: %d mails, want %d", why, got, n)
	}
}

// mail waits for the n-th mail, its bodies with the line ends of Go strings.
func (r *digestRig) mail(t *testing.T, n int) mailtest.Received {
	t.Helper()
	got := r.ms.Wait(t, n)
	got.Text = strings.ReplaceAll(got.Text, "\r\n", "\n")
	got.HTML = strings.ReplaceAll(got.HTML, "\r\n", "\n")
	return got
}

func mention(c *webtest.Client) string { return "<@" + c.Member.GetId() + ">" }

// TestDigestMailsAMentionStillUnread: a mention still unread 15 minutes later is mailed once, to
// the verified address, with the subject, the line "Author in #channel: text" cut to 200
// characters, the link to the message (a thread reply's to its thread), and the footer's link
// to the notification settings; in plain text and HTML. Nothing goes before the 15 minutes.
func TestDigestMailsAMentionStillUnread(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob := r.reader(t, "bob", nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	long := strings.Repeat("very long <b>words</b> ", 20)
	m := mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "hello " + mention(bob) + ", " + long})
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), ThreadRootId: m.GetId(), Text: mention(bob) + " and in the thread"})
	r.pending(t, bob, 2)

	r.clock.Advance(14 * time.Minute)
	r.quiet(t, 0, "14 minutes after the mention")
	r.clock.Advance(2 * time.Minute)
	got := r.mail(t, 1)
	if len(got.To) != 1 || got.To[0] != "bob@example.org" || got.From != "chat@example.com" {
		t.Fatalf("mail from %q to %v", got.From, got.To)
	}
	if got.Subject != "2 new mentions in Maple Lodge" {
		t.Errorf("subject %q", got.Subject)
	}
	text := "hello @bob, " + long
	cut := string([]rune(text)[:199]) + "…"
	msgURL := r.s.URL + "/app/#/c/" + general.GetId() + "/m/" + m.GetId()
	threadURL := r.s.URL + "/app/#/c/" + general.GetId() + "/t/" + m.GetId()
	for _, want := range []string{
		"Hi bob,",
		"Still unread in Maple Lodge: 2 new mentions.",
		"\n#general\n- alice in #general: " + cut + "\n  " + msgURL + "\n",
		"- alice in #general: @bob and in the thread\n  " + threadURL + "\n",
		"Open Maple Lodge: " + r.s.URL + "/app/",
		"To turn them off: " + r.s.URL + "/app/#/settings/notifications",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, got.Text)
		}
	}
	for _, want := range []string{
		`<a href="` + msgURL + `" style="color: inherit"><strong>alice in #general</strong>: hello @bob, very long &lt;b&gt;words&lt;/b&gt;`,
		`<a href="` + threadURL + `"`,
		`<a href="` + r.s.URL + `/app/#/settings/notifications"`,
	} {
		if !strings.Contains(got.HTML, want) {
			t.Errorf("the HTML lacks %q:\n%s", want, got.HTML)
		}
	}
	if strings.Contains(got.HTML, "<b>words") {
		t.Error("the HTML carries the message's markup unescaped")
	}
	r.pending(t, bob, 0)
	waitMetric(t, r.s, `hearth_digest_emails_total{result="sent"}`, 1)
	r.clock.Advance(2 * time.Hour)
	r.quiet(t, 1, "after the digest went")
}

// TestDigestNoneWhenReadInTime: a mention read within 15 minutes (the channel's read state
// past it) and a DM read likewise are not mailed, and use no email of the hourly budget.
func TestDigestNoneWhenReadInTime(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob := r.reader(t, "bob", nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	m := mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "hi " + mention(bob)})
	dm := openDM(t, r.s, r.alice, bob)
	d := mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "psst"})
	r.pending(t, bob, 2)

	r.clock.Advance(10 * time.Minute)
	markRead(t, bob, general.GetId(), m.GetSeq())
	markRead(t, bob, dm.GetId(), d.GetSeq())
	r.clock.Advance(6 * time.Minute)
	r.pending(t, bob, 0)
	r.quiet(t, 0, "everything was read in time")

	// The budget is untouched: a new mention goes 15 minutes later, not an hour after.
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "again " + mention(bob)})
	r.pending(t, bob, 1)
	r.clock.Advance(16 * time.Minute)
	if got := r.mail(t, 1); got.Subject != "1 new mention in Maple Lodge" || !strings.Contains(got.Text, "alice in #general: again @bob") {
		t.Fatalf("mail %q:\n%s", got.Subject, got.Text)
	}
}

// TestDigestOneEmailForSeveralChannels: mentions in two channels and a DM that come due
// together make one email, a section per channel (DMs titled with the other members' names) in
// the order they were first written in.
func TestDigestOneEmailForSeveralChannels(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob := r.reader(t, "bob", nil)
	carol := r.s.Join("carol")
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	random := mustChannel(t, r.alice, "random", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " one"})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: mention(bob) + " two"})
	dm := openDM(t, r.s, carol, bob)
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "three"})
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " four"})
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "not for bob"})
	r.pending(t, bob, 4)

	r.clock.Advance(16 * time.Minute)
	got := r.mail(t, 1)
	if got.Subject != "3 new mentions and 1 new direct message in Maple Lodge" {
		t.Errorf("subject %q", got.Subject)
	}
	want := "\n#general\n" +
		"- alice in #general: @bob one\n  " + r.s.URL + "/app/#/c/" + general.GetId() + "/m/"
	if !strings.Contains(got.Text, want) {
		t.Errorf("the text lacks %q:\n%s", want, got.Text)
	}
	i1 := strings.Index(got.Text, "\n#general\n")
	i2 := strings.Index(got.Text, "- alice in #general: @bob four")
	i3 := strings.Index(got.Text, "\n#random\n- carol in #random: @bob two")
	i4 := strings.Index(got.Text, "\nDirect messages with carol\n- carol in a direct message: three")
	if i1 < 0 || i2 < i1 || i3 < i2 || i4 < i3 {
		t.Errorf("sections out of order or missing (%d %d %d %d):\n%s", i1, i2, i3, i4, got.Text)
	}
	if strings.Contains(got.Text, "not for bob") {
		t.Errorf("a message that did not mention bob is in his digest:\n%s", got.Text)
	}
	r.pending(t, bob, 0)
	r.quiet(t, 1, "one digest for every channel")
}

// TestDigestAtMostOneEmailAnHour: a mention that comes due less than an hour after the last
// email waits for the hour to be over, then goes alone.
func TestDigestAtMostOneEmailAnHour(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob := r.reader(t, "bob", nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " first"})
	r.pending(t, bob, 1)
	r.clock.Advance(16 * time.Minute) // T+16: the first email
	r.mail(t, 1)
	r.pending(t, bob, 0)

	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " second"})
	r.pending(t, bob, 1)
	r.clock.Advance(30 * time.Minute) // T+46: due since T+31, but within the hour
	r.quiet(t, 1, "less than an hour after the first email")
	if n := r.s.DigestPending(t, bob.Member.GetId()); n != 1 {
		t.Fatalf("%d messages wait, want 1", n)
	}
	r.clock.Advance(31 * time.Minute) // T+77: the hour is over
	got := r.mail(t, 2)
	if !strings.Contains(got.Text, "@bob second") || strings.Contains(got.Text, "@bob first") {
		t.Fatalf("second mail:\n%s", got.Text)
	}
	waitMetric(t, r.s, `hearth_digest_emails_total{result="sent"}`, 2)
}

// TestDigestFollowsPreferencesAndAddresses: only members with the email preference on, a
// verified address, and a level and mutes that let the message through are kept a digest; a
// member who turns email off before it goes gets none; a member who blocked the author gets
// none. Carol, with everything on, shows when the message was handled.
func TestDigestFollowsPreferencesAndAddresses(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	carol := r.reader(t, "carol", nil)
	off := r.reader(t, "off", &svcv1.NotificationPrefs{})
	noAddress := r.s.Join("noaddress")
	setPrefs(t, notifyClient(r.s, noAddress), &svcv1.NotificationPrefs{Email: true})
	none := r.reader(t, "none", &svcv1.NotificationPrefs{Email: true, Level: svcv1.NotifyLevel_NOTIFY_LEVEL_NONE})
	muted := r.reader(t, "muted", &svcv1.NotificationPrefs{Email: true, Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: general.GetId(), MutedUntilMs: -1}}})
	blocker := r.reader(t, "blocker", nil)
	if _, err := blocker.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: r.alice.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	later := r.reader(t, "later", nil)
	everyone := []*webtest.Client{carol, off, noAddress, none, muted, blocker, later}
	text := "all of you:"
	for _, c := range everyone {
		text += " " + mention(c)
	}
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: text})
	// Notes are kept in order: once carol's of a later message is, every note of this one was.
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(carol) + " again"})
	r.pending(t, carol, 2)
	r.pending(t, later, 1)
	for _, c := range []*webtest.Client{off, noAddress, none, muted, blocker} {
		if n := r.s.DigestPending(t, c.Member.GetId()); n != 0 {
			t.Errorf("%s: %d messages kept for a digest", c.Member.GetUsername(), n)
		}
	}
	// Later turns email off before the digest goes.
	setPrefs(t, notifyClient(r.s, later), &svcv1.NotificationPrefs{})

	r.clock.Advance(16 * time.Minute)
	if got := r.mail(t, 1); got.To[0] != "carol@example.org" {
		t.Fatalf("mail to %v", got.To)
	}
	r.pending(t, later, 0)
	r.quiet(t, 1, "only carol wanted it")
}

// TestDigestHidesContent: with hide_content the email says where, never who or what.
func TestDigestHidesContent(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob := r.reader(t, "bob", &svcv1.NotificationPrefs{Email: true, HideContent: true})
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	m := mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " the secret plan"})
	dm := openDM(t, r.s, r.alice, bob)
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "another secret"})
	r.pending(t, bob, 2)
	r.clock.Advance(16 * time.Minute)
	got := r.mail(t, 1)
	for _, want := range []string{
		"- New message in #general\n  " + r.s.URL + "/app/#/c/" + general.GetId() + "/m/" + m.GetId() + "\n",
		"\nDirect messages with alice\n- New direct message\n",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, got.Text)
		}
	}
	for _, body := range []string{got.Text, got.HTML} {
		if strings.Contains(body, "secret") || strings.Contains(body, "alice in") {
			t.Errorf("hidden content shows:\n%s", body)
		}
	}
}

// TestDigestSurvivesARestart: a digest waiting when the server stops is sent after it starts.
func TestDigestSurvivesARestart(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob := r.reader(t, "bob", nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " before the restart"})
	r.pending(t, bob, 1)
	r.s.Restart()
	if n := r.s.DigestPending(t, bob.Member.GetId()); n != 1 {
		t.Fatalf("%d messages wait after the restart, want 1", n)
	}
	r.clock.Advance(16 * time.Minute)
	if got := r.mail(t, 1); !strings.Contains(got.Text, "alice in #general: @bob before the restart") {
		t.Fatalf("mail:\n%s", got.Text)
	}

	// One that came due while the server was stopped goes as it starts.
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " while stopped"})
	r.pending(t, bob, 1)
	r.s.Restart()
	r.clock.Advance(2 * time.Hour)
	r.s.Restart()
	if got := r.mail(t, 2); !strings.Contains(got.Text, "@bob while stopped") {
		t.Fatalf("mail:\n%s", got.Text)
	}
}

// TestDigestLeavesOutChannelsNoLongerSeen: visibility is checked again when the digest goes: a
// mention in a private channel the member was removed from is left out, as is a message deleted
// since, and a digest with nothing else is not sent.
func TestDigestLeavesOutChannelsNoLongerSeen(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob, carol := r.reader(t, "bob", nil), r.reader(t, "carol", nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := mustChannel(t, r.alice, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	if _, err := r.alice.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: memberIDs(bob, carol)})); err != nil {
		t.Fatal(err)
	}
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: mention(bob) + " " + mention(carol) + " hush"})
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " in the open"})
	gone := mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " soon deleted"})
	r.pending(t, bob, 3)
	if _, err := r.alice.Chat.DeleteMessage(ctx, req(&svcv1.DeleteMessageRequest{MessageId: gone.GetId()})); err != nil {
		t.Fatal(err)
	}
	r.pending(t, carol, 1)
	for _, c := range []*webtest.Client{bob, carol} {
		if _, err := r.alice.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId(), MemberId: c.Member.GetId()})); err != nil {
			t.Fatal(err)
		}
	}
	r.clock.Advance(16 * time.Minute)
	got := r.mail(t, 1)
	if got.To[0] != "bob@example.org" || got.Subject != "1 new mention in Maple Lodge" || strings.Contains(got.Text, "secret") || strings.Contains(got.Text, "hush") ||
		strings.Contains(got.Text, "deleted") || !strings.Contains(got.Text, "@bob in the open") {
		t.Fatalf("mail to %v, %q:\n%s", got.To, got.Subject, got.Text)
	}
	r.pending(t, carol, 0)
	r.quiet(t, 1, "carol's only mention is in a channel she left")
}

// TestDigestKeepsAtMostMaxMessages: past the limit of waiting messages the oldest are dropped,
// and the email says how many more there were.
func TestDigestKeepsAtMostMaxMessages(t *testing.T) {
	t.Parallel()
	r := startDigests(t, func(o *notify.Options) { o.Digest.Max = 3 })
	bob, carol := r.reader(t, "bob", nil), r.reader(t, "carol", nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for i := 1; i <= 5; i++ {
		mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob) + " number " + strconv.Itoa(i)})
	}
	// Notes are kept in order: once carol's of a later message is, all of bob's were.
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(carol)})
	r.pending(t, carol, 1)
	r.pending(t, bob, 3)
	r.clock.Advance(16 * time.Minute)
	got := r.mail(t, 1)
	if got.To[0] != "bob@example.org" {
		got = r.mail(t, 2)
	}
	if got.Subject != "3 new mentions in Maple Lodge" || !strings.Contains(got.Text, "\nAnd 2 more that did not fit in this email.\n") {
		t.Fatalf("mail %q:\n%s", got.Subject, got.Text)
	}
	for i, want := range []bool{false, false, true, true, true} {
		if has := strings.Contains(got.Text, "@bob number "+strconv.Itoa(i+1)); has != want {
			t.Errorf("mention %d in the mail: %v, want %v", i+1, has, want)
		}
	}
}

// TestDigestRetriesWhenTheMailServerRefuses: an email the mail server does not take is tried
// again 10 minutes later, three tries in all, each counted as failed, and then given up.
func TestDigestRetriesWhenTheMailServerRefuses(t *testing.T) {
	t.Parallel()
	ms := mailtest.Start(t, mailtest.Options{User: "hearth", Pass: "secret"})
	clock := webtest.NewClock()
	// No credentials in the URL: the server refuses every mail.
	s := webtest.StartConfig(t, func(c *web.Config) {
		c.Mail = mail.Config{URL: "smtp://" + ms.Addr, From: "Hearth <chat@example.com>"}
		c.Metrics = true
	}, webtest.WithClock(clock))
	r := &digestRig{s: s, ms: ms, clock: clock, alice: s.Join("alice")}
	bob := r.reader(t, "bob", nil)
	general := mustChannel(t, r.alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, r.alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention(bob)})
	r.pending(t, bob, 1)
	failed := `hearth_digest_emails_total{result="failed"}`
	r.clock.Advance(16 * time.Minute)
	waitMetric(t, s, failed, 1)
	if n := s.DigestPending(t, bob.Member.GetId()); n != 1 {
		t.Fatalf("%d waiting after a failure, want 1", n)
	}
	r.clock.Advance(9 * time.Minute)
	time.Sleep(200 * time.Millisecond)
	if v := metricValue(t, s, failed); v != 1 {
		t.Fatalf("tried again within 10 minutes: %v failures", v)
	}
	r.clock.Advance(2 * time.Minute)
	waitMetric(t, s, failed, 2)
	r.clock.Advance(11 * time.Minute)
	waitMetric(t, s, failed, 3)
	r.pending(t, bob, 0)
	if v := metricValue(t, s, `hearth_digest_emails_total{result="sent"}`); v != 0 || ms.Count() != 0 {
		t.Fatalf("sent %v, %d mails", v, ms.Count())
	}
}

func markRead(t *testing.T, c *webtest.Client, channelID string, seq int64) {
	t.Helper()
	if _, err := c.Chat.MarkRead(ctx, req(&svcv1.MarkReadRequest{ChannelId: channelID, Seq: seq})); err != nil {
		t.Fatal(err)
	}
}

// TestNotificationPrefsSayWhereDigestsGo: GetNotificationPrefs tells the client whether the
// server sends mail and the caller's verified address, so that it can offer the email switch
// or say where to add an address.
func TestNotificationPrefsSayWhereDigestsGo(t *testing.T) {
	t.Parallel()
	r := startDigests(t, nil)
	bob := r.reader(t, "bob", nil)
	carol := r.s.Join("carol")
	plain := webtest.Start(t)
	dave := plain.Join("dave")
	for _, tc := range []struct {
		who     string
		s       *webtest.Server
		c       *webtest.Client
		enabled bool
		address string
	}{
		{"a verified address", r.s, bob, true, "bob@example.org"},
		{"no address", r.s, carol, true, ""},
		{"no mail", plain, dave, false, ""},
	} {
		res, err := notifyClient(tc.s, tc.c).GetNotificationPrefs(ctx, req(&svcv1.GetNotificationPrefsRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		if res.Msg.GetMailEnabled() != tc.enabled || res.Msg.GetEmailAddress() != tc.address {
			t.Errorf("%s: mail_enabled %v, email_address %q", tc.who, res.Msg.GetMailEnabled(), res.Msg.GetEmailAddress())
		}
	}
}
