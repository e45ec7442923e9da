package web_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"hearth/engine/notify"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
	"hearth/web/webtest"
)

// startPush starts a server whose pushes go to a push service of the test's (on loopback:
// -push-allow-private), with one worker (pushes arrive in the order they were decided), quick
// retries and metrics; alice owns it.
func startPush(t *testing.T, change func(*notify.Options)) (*webtest.Server, *pushService, *webtest.Client) {
	t.Helper()
	s := webtest.StartConfig(t, func(c *web.Config) {
		c.Metrics = true
		c.Notify.Workers = 1
		c.Notify.Retries = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 60 * time.Millisecond}
		if change != nil {
			change(&c.Notify)
		}
	}, webtest.WithPushAllowPrivate())
	alice := s.Join("alice")
	res, err := notifyClient(s, alice).GetPushConfig(ctx, req(&svcv1.GetPushConfigRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	return s, newPushService(t, res.Msg.GetVapidPublicKey()), alice
}

// metricValue reads a counter of the server's metrics ("name" or `name{label="x"}`).
func metricValue(t *testing.T, s *webtest.Server, name string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("metrics lack %s", name)
	return 0
}

// waitMetric waits until a counter reaches want.
func waitMetric(t *testing.T, s *webtest.Server, name string, want float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for metricValue(t, s, name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want %v", name, metricValue(t, s, name), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func setPrefs(t *testing.T, n svcv1connect.NotificationServiceClient, p *svcv1.NotificationPrefs) *svcv1.NotificationPrefs {
	t.Helper()
	res, err := n.SetNotificationPrefs(ctx, req(&svcv1.SetNotificationPrefsRequest{Prefs: p}))
	if err != nil {
		t.Fatalf("SetNotificationPrefs: %v", err)
	}
	return res.Msg.GetPrefs()
}

// TestPushMentionReachesAMemberWithNoTabOpen: a mention of a member with no stream open is
// pushed to each of their devices, encrypted for it and signed with the server's VAPID key,
// with the payload and headers of EXTENSIONS.md 7; a message that does not concern them is
// not (level MENTIONS, the default); nor is their own message.
func TestPushMentionReachesAMemberWithNoTabOpen(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob := s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	phone, laptop := ps.device("bob-phone"), ps.device("bob-laptop")
	nb := notifyClient(s, bob)
	subscribe(t, nb, phone)
	subscribe(t, nb, laptop)

	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "nothing for bob"})
	mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "bob's own <@" + bob.Member.GetId() + ">"})
	sentAt := time.Now()
	m := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "hello <@" + bob.Member.GetId() + ">, lunch?"})
	got := map[string]receivedPush{}
	for range 2 {
		p := ps.next(t)
		got[p.device] = p
	}
	t.Logf("the mention reached bob's devices %s and %s after it was sent", got["bob-phone"].at.Sub(sentAt), got["bob-laptop"].at.Sub(sentAt))
	want := map[string]string{
		"type":           "message",
		"channel_id":     general.GetId(),
		"message_id":     m.GetId(),
		"thread_root_id": "",
		"title":          "#general",
		"body":           "alice: hello @bob, lunch?",
		"url":            s.URL + "/app/#/c/" + general.GetId() + "/m/" + m.GetId(),
		"tag":            general.GetId(),
	}
	for _, dev := range []string{"bob-phone", "bob-laptop"} {
		p := got[dev]
		for k, v := range want {
			if p.payload[k] != v {
				t.Errorf("%s: payload[%q] = %q, want %q (payload %v)", dev, k, p.payload[k], v, p.payload)
			}
		}
		if h := p.header; h.Get("TTL") != "86400" || h.Get("Urgency") != "high" || h.Get("Topic") != notify.Topic(general.GetId()) {
			t.Errorf("%s: TTL %q, Urgency %q, Topic %q", dev, h.Get("TTL"), h.Get("Urgency"), h.Get("Topic"))
		}
	}
	if topic := notify.Topic(general.GetId()); len(topic) != 32 || strings.Trim(topic, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		t.Errorf("Topic %q is not 32 characters of base64url", topic)
	}
	ps.none(t, "after the mention")
	waitMetric(t, s, "hearth_push_sent_total", 2)

	// The push service accepted them: the devices show when.
	res, err := nb.ListPushSubscriptions(ctx, req(&svcv1.ListPushSubscriptionsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range res.Msg.GetSubscriptions() {
		if sub.GetLastSuccessMs() == 0 {
			t.Errorf("subscription %s has no last_success_ms after a push", sub.GetDeviceName())
		}
	}
}

// TestPushOnlyWhileAway: a member with a Subscribe stream open gets nothing (their tab shows
// it); with the stream open but presence AWAY, or once the stream is closed, they do.
func TestPushOnlyWhileAway(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob := s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	subscribe(t, notifyClient(s, bob), ps.device("bob"))
	mention := "<@" + bob.Member.GetId() + "> "

	stream := bob.Subscribe(t, s.Engine.Seq())
	waitFor(t, "bob's stream counts", func() bool { return !s.Engine.Away(bob.Member.GetId()) })
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "while the tab is open"})
	ps.none(t, "bob has a tab open")

	if _, err := bob.Chat.SetPresence(ctx, req(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_AWAY})); err != nil {
		t.Fatal(err)
	}
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "while away"})
	if p := ps.next(t); p.payload["body"] != "alice: @bob while away" {
		t.Fatalf("push while away: %v", p.payload)
	}
	if _, err := bob.Chat.SetPresence(ctx, req(&svcv1.SetPresenceRequest{Presence: svcv1.Presence_PRESENCE_ONLINE})); err != nil {
		t.Fatal(err)
	}
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "back online"})
	ps.none(t, "bob is back online")

	stream.Close()
	waitFor(t, "bob's stream closed", func() bool { return s.Engine.Away(bob.Member.GetId()) })
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "tab closed"})
	if p := ps.next(t); p.payload["body"] != "alice: @bob tab closed" {
		t.Fatalf("push after the tab closed: %v", p.payload)
	}
}

// TestPushDMsThreadsAndLevels: every message of a DM (high urgency, titled with the other
// members' names), a reply in a thread the member started or replied in (normal urgency,
// linking to the thread), every message with level ALL, and nothing at level NONE or in a
// muted channel; a channel's level overrides the member's.
func TestPushDMsThreadsAndLevels(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob, carol := s.Join("bob"), s.Join("carol")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	random := mustChannel(t, alice, "random", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	nb := notifyClient(s, bob)
	subscribe(t, nb, ps.device("bob"))

	// A group DM: every message, titled with the others' names.
	res, err := alice.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(bob, carol)}))
	if err != nil {
		t.Fatal(err)
	}
	dm := res.Msg.GetChannel()
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "in the DM"})
	p := ps.next(t)
	if p.payload["title"] != "alice, carol" || p.payload["body"] != "alice: in the DM" || p.header.Get("Urgency") != "high" || p.payload["tag"] != dm.GetId() {
		t.Fatalf("DM push: %v, Urgency %q", p.payload, p.header.Get("Urgency"))
	}

	// A thread bob replied in: carol's reply reaches him; one he never took part in does not.
	root := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "a thread"})
	mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), ThreadRootId: root.GetId(), Text: "bob's reply"})
	other := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "another thread"})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), ThreadRootId: other.GetId(), Text: "not bob's thread"})
	reply := mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), ThreadRootId: root.GetId(), Text: "carol answers"})
	p = ps.next(t)
	if p.payload["message_id"] != reply.GetId() || p.payload["thread_root_id"] != root.GetId() || p.header.Get("Urgency") != "normal" ||
		p.payload["url"] != s.URL+"/app/#/c/"+general.GetId()+"/t/"+root.GetId() {
		t.Fatalf("thread reply push: %v, Urgency %q", p.payload, p.header.Get("Urgency"))
	}
	// The thread's author hears of replies too (alice has no device: nothing to check there),
	// and a top-level message of a channel at level MENTIONS does not reach bob.
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: "chatter"})
	ps.none(t, "chatter at level MENTIONS")

	// Level ALL: everything, at normal urgency; #random set to NONE overrides it.
	setPrefs(t, nb, &svcv1.NotificationPrefs{Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL, Channels: []*svcv1.ChannelNotificationPrefs{
		{ChannelId: random.GetId(), Level: svcv1.NotifyLevel_NOTIFY_LEVEL_NONE},
	}})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: random.GetId(), Text: "chatter in random <@" + bob.Member.GetId() + ">"})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "chatter in general"})
	if p = ps.next(t); p.payload["body"] != "carol: chatter in general" || p.header.Get("Urgency") != "normal" {
		t.Fatalf("level ALL push: %v, Urgency %q", p.payload, p.header.Get("Urgency"))
	}

	// Muted: #general until unmuted, the DM for an hour: nothing from either, mentions included.
	setPrefs(t, nb, &svcv1.NotificationPrefs{Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL, Channels: []*svcv1.ChannelNotificationPrefs{
		{ChannelId: general.GetId(), MutedUntilMs: -1},
		{ChannelId: dm.GetId(), MutedUntilMs: time.Now().Add(time.Hour).UnixMilli()},
	}})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + bob.Member.GetId() + "> muted"})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "muted DM"})
	ps.none(t, "muted channels")

	// Level NONE: nothing at all.
	setPrefs(t, nb, &svcv1.NotificationPrefs{Level: svcv1.NotifyLevel_NOTIFY_LEVEL_NONE})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + bob.Member.GetId() + "> none"})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "DM at none"})
	ps.none(t, "level NONE")

	// hide_content: the body says only that there is a message.
	setPrefs(t, nb, &svcv1.NotificationPrefs{HideContent: true})
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "a secret"})
	if p = ps.next(t); p.payload["body"] != "New message" || p.payload["title"] != "alice, carol" {
		t.Fatalf("hidden content push: %v", p.payload)
	}
}

// TestPushNeverWhatBlocksMutesOrVisibilityHide: nothing from a member bob blocked or muted,
// nothing from a private channel he is not in although it names him, nothing of a message
// deleted before its push was decided.
func TestPushNeverWhatBlocksMutesOrVisibilityHide(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob, carol, dave := s.Join("bob"), s.Join("carol"), s.Join("dave")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := mustChannel(t, alice, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	subscribe(t, notifyClient(s, bob), ps.device("bob"))
	mention := "<@" + bob.Member.GetId() + "> "

	if _, err := bob.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: carol.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Server.MuteMember(ctx, req(&svcv1.MuteMemberRequest{MemberId: dave.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "from someone blocked"})
	mustSend(t, dave, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "from someone muted"})
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: secret.GetId(), Text: mention + "in a channel bob is not in"})
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "the one that counts"})
	if p := ps.next(t); p.payload["body"] != "alice: @bob the one that counts" {
		t.Fatalf("push: %v", p.payload)
	}
	ps.none(t, "after the only push bob should get")
}

// TestPushServiceAnswers: 429 and 5xx are tried again (at most 3 more times), 410 and 404
// remove the subscription, and each outcome is counted in /metrics.
func TestPushServiceAnswers(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob := s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	nb := notifyClient(s, bob)
	flaky, dead, gone := ps.device("flaky"), ps.device("dead"), ps.device("gone")
	subscribe(t, nb, flaky)
	ps.answer(flaky, http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusInternalServerError)
	mention := "<@" + bob.Member.GetId() + "> "

	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "eventually"})
	if p := ps.next(t); p.device != "flaky" || ps.triesOf(flaky) != 4 {
		t.Fatalf("push %v after %d tries; want flaky's after 4", p.payload, ps.triesOf(flaky))
	}
	waitMetric(t, s, "hearth_push_sent_total", 1)

	// Four 500s: given up after the third retry.
	subscribe(t, nb, dead)
	ps.answer(dead, 500, 500, 500, 500, 500)
	ps.answer(flaky, 410)
	subscribe(t, nb, gone)
	ps.answer(gone, 404)
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: mention + "never"})
	waitMetric(t, s, `hearth_push_failed_total{reason="retries"}`, 1)
	waitMetric(t, s, `hearth_push_failed_total{reason="gone"}`, 2)
	if n := ps.triesOf(dead); n != 4 {
		t.Errorf("dead endpoint tried %d times; want 4", n)
	}
	waitFor(t, "the gone subscriptions removed", func() bool {
		res, err := nb.ListPushSubscriptions(ctx, req(&svcv1.ListPushSubscriptionsRequest{}))
		return err == nil && len(res.Msg.GetSubscriptions()) == 1 && res.Msg.GetSubscriptions()[0].GetDeviceName() == "dead"
	})
}

// TestPushQueueDropsWhatDoesNotFit: with the one worker held by a slow push service and a
// queue of one, further pushes are dropped and counted; the send path never waits.
func TestPushQueueDropsWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, func(o *notify.Options) { o.QueueSize = 1 })
	bob := s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	slow := ps.device("slow")
	slow.hold = make(chan struct{})
	subscribe(t, notifyClient(s, bob), slow)
	for i := range 5 {
		start := time.Now()
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + bob.Member.GetId() + "> " + strconv.Itoa(i)})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("send %d took %s with the push service stuck", i, d)
		}
	}
	waitMetric(t, s, "hearth_push_dropped_total", 3)
	close(slow.hold)
	ps.next(t)
	ps.next(t)
	waitMetric(t, s, "hearth_push_sent_total", 2)
}

// TestPushReportsReachModerators: a report filed reaches the moderators who may list it (type
// "report"), not the reporter, not members.
func TestPushReportsReachModerators(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob, carol, mod := s.Join("bob"), s.Join("carol"), s.Join("mod")
	s.SeedRanks(map[*webtest.Client]svcv1.MemberRole{mod: svcv1.MemberRole_MEMBER_ROLE_MODERATOR})
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	subscribe(t, notifyClient(s, alice), ps.device("alice"))
	subscribe(t, notifyClient(s, mod), ps.device("mod"))
	subscribe(t, notifyClient(s, bob), ps.device("bob"))
	m := mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "something rude"})
	if _, err := bob.Server.ReportMessage(ctx, req(&svcv1.ReportMessageRequest{MessageId: m.GetId(), Note: "rude"})); err != nil {
		t.Fatal(err)
	}
	got := map[string]receivedPush{}
	for range 2 {
		p := ps.next(t)
		got[p.device] = p
	}
	for _, dev := range []string{"alice", "mod"} {
		p := got[dev].payload
		if p["type"] != "report" || p["report_id"] == "" || p["message_id"] != m.GetId() || p["title"] != "New report" || p["body"] != "carol: something rude" || p["url"] != s.URL+"/app/#/reports" {
			t.Errorf("report push to %s: %v", dev, p)
		}
	}
	ps.none(t, "the reporter")
}

// TestPushSubscriptionLimitsAndInput: every field of AddPushSubscription is checked, the same
// endpoint replaces the earlier subscription (whoever's it was), a member has at most 10, and
// only the owner of a subscription removes it. Subscriptions and the VAPID key survive a
// restart.
func TestPushSubscriptionLimitsAndInput(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob := s.Join("bob")
	na, nb := notifyClient(s, alice), notifyClient(s, bob)
	d := ps.device("d")
	good := d.request()
	for _, tc := range []struct {
		what   string
		change func(*svcv1.AddPushSubscriptionRequest)
		code   connect.Code
		part   string
	}{
		{"no endpoint", func(r *svcv1.AddPushSubscriptionRequest) { r.Endpoint = "" }, connect.CodeInvalidArgument, "endpoint is required"},
		{"relative endpoint", func(r *svcv1.AddPushSubscriptionRequest) { r.Endpoint = "/push/x" }, connect.CodeInvalidArgument, "endpoint must be an absolute"},
		{"ftp endpoint", func(r *svcv1.AddPushSubscriptionRequest) { r.Endpoint = "ftp://push.example/x" }, connect.CodeInvalidArgument, "https"},
		{"long endpoint", func(r *svcv1.AddPushSubscriptionRequest) {
			r.Endpoint = "https://push.example/" + strings.Repeat("x", 2100)
		}, connect.CodeInvalidArgument, "the limit is 2048"},
		{"no p256dh", func(r *svcv1.AddPushSubscriptionRequest) { r.P256Dh = "" }, connect.CodeInvalidArgument, "p256dh is required"},
		{"p256dh not base64", func(r *svcv1.AddPushSubscriptionRequest) { r.P256Dh = "not*base64" }, connect.CodeInvalidArgument, "p256dh is not base64url"},
		{"p256dh short", func(r *svcv1.AddPushSubscriptionRequest) { r.P256Dh = r.P256Dh[:40] }, connect.CodeInvalidArgument, "p256dh is 30 bytes; it must be 65"},
		{"p256dh off the curve", func(r *svcv1.AddPushSubscriptionRequest) { r.P256Dh = "BA" + strings.Repeat("A", 85) }, connect.CodeInvalidArgument, "not an uncompressed point on the P-256 curve"},
		{"no auth", func(r *svcv1.AddPushSubscriptionRequest) { r.Auth = "" }, connect.CodeInvalidArgument, "auth is required"},
		{"auth long", func(r *svcv1.AddPushSubscriptionRequest) { r.Auth = r.Auth + "AAAA" }, connect.CodeInvalidArgument, "auth is 19 bytes; it must be 16"},
		{"device name long", func(r *svcv1.AddPushSubscriptionRequest) { r.DeviceName = strings.Repeat("x", 65) }, connect.CodeInvalidArgument, "device_name is 65 characters; the limit is 64"},
	} {
		r := &svcv1.AddPushSubscriptionRequest{Endpoint: good.Endpoint, P256Dh: good.P256Dh, Auth: good.Auth, DeviceName: good.DeviceName}
		tc.change(r)
		_, err := na.AddPushSubscription(ctx, req(r))
		wantCode(t, tc.what, err, tc.code, tc.part)
	}

	// Padded base64url, as some browsers give it, is fine; the same endpoint again keeps its id.
	padded := &svcv1.AddPushSubscriptionRequest{Endpoint: good.Endpoint, P256Dh: good.P256Dh + "===", Auth: good.Auth + "==", DeviceName: "first name"}
	res, err := na.AddPushSubscription(ctx, req(padded))
	if err != nil {
		t.Fatal(err)
	}
	id := res.Msg.GetId()
	padded.DeviceName = "renamed"
	if res, err := na.AddPushSubscription(ctx, req(padded)); err != nil || res.Msg.GetId() != id {
		t.Fatalf("the same endpoint again: %v, %v; want id %s", res, err, id)
	}
	// bob takes the device over: it is his now, and no longer alice's.
	bobsID := subscribe(t, nb, d)
	list := func(n svcv1connect.NotificationServiceClient) []*svcv1.PushSubscription {
		res, err := n.ListPushSubscriptions(ctx, req(&svcv1.ListPushSubscriptionsRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg.GetSubscriptions()
	}
	if got := list(na); len(got) != 0 {
		t.Fatalf("alice still has %v after bob took the device", got)
	}
	// Only the owner removes a subscription; others get not_found.
	_, err = na.RemovePushSubscription(ctx, req(&svcv1.RemovePushSubscriptionRequest{Id: bobsID}))
	wantCode(t, "alice removes bob's subscription", err, connect.CodeNotFound, "does not exist")
	_, err = na.RemovePushSubscription(ctx, req(&svcv1.RemovePushSubscriptionRequest{}))
	wantCode(t, "no id", err, connect.CodeInvalidArgument, "id is required")

	// At most 10.
	for i := range 10 {
		subscribe(t, na, ps.device("a"+strconv.Itoa(i)))
	}
	_, err = na.AddPushSubscription(ctx, req(ps.device("eleventh").request()))
	wantCode(t, "an 11th subscription", err, connect.CodeResourceExhausted, "the limit is 10")
	first := list(na)[0]
	if _, err := na.RemovePushSubscription(ctx, req(&svcv1.RemovePushSubscriptionRequest{Id: first.GetId()})); err != nil {
		t.Fatal(err)
	}
	subscribe(t, na, ps.device("eleventh"))

	// A restart keeps the subscriptions and the key browsers bound them to.
	key, err := na.GetPushConfig(ctx, req(&svcv1.GetPushConfigRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	s.Restart()
	after, err := na.GetPushConfig(ctx, req(&svcv1.GetPushConfigRequest{}))
	if err != nil || after.Msg.GetVapidPublicKey() != key.Msg.GetVapidPublicKey() {
		t.Fatalf("VAPID key after a restart: %v, %v; want %s", after, err, key.Msg.GetVapidPublicKey())
	}
	if got := list(na); len(got) != 10 {
		t.Fatalf("alice has %d subscriptions after a restart; want 10", len(got))
	}
	if got := list(nb); len(got) != 1 || got[0].GetId() != bobsID || got[0].GetDeviceName() != "d" {
		t.Fatalf("bob's subscriptions after a restart: %v", got)
	}
}

// TestPushEndpointsMustBePublic: without -push-allow-private, an endpoint on loopback or a
// private address, or over http, is refused when added; and a push to one that got into the
// database anyway is refused by the dialer, never sent.
func TestPushEndpointsMustBePublic(t *testing.T) {
	t.Parallel()
	s := webtest.StartConfig(t, func(c *web.Config) { c.Metrics = true })
	alice := s.Join("alice")
	na := notifyClient(s, alice)
	res, err := na.GetPushConfig(ctx, req(&svcv1.GetPushConfigRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	ps := newPushService(t, res.Msg.GetVapidPublicKey())
	d := ps.device("local")
	for _, endpoint := range []string{
		d.endpoint, // http on loopback
		strings.Replace(d.endpoint, "http:", "https:", 1),
		"https://10.0.0.8/push/x",
		"https://[::1]/push/x",
		"https://localhost/push/x",
		"http://push.example/x",
	} {
		r := d.request()
		r.Endpoint = endpoint
		_, err := na.AddPushSubscription(ctx, req(r))
		wantCode(t, endpoint, err, connect.CodeInvalidArgument, "endpoint")
	}
	if _, err := na.AddPushSubscription(ctx, req(&svcv1.AddPushSubscriptionRequest{
		Endpoint: "https://push.example/ok", P256Dh: d.request().P256Dh, Auth: d.request().Auth,
	})); err != nil {
		t.Fatalf("a public https endpoint: %v", err)
	}
	if _, err := na.RemovePushSubscription(ctx, req(&svcv1.RemovePushSubscriptionRequest{Id: "x"})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("removing an unknown subscription: %v", err)
	}
	res2, _ := na.ListPushSubscriptions(ctx, req(&svcv1.ListPushSubscriptionsRequest{}))
	na.RemovePushSubscription(ctx, req(&svcv1.RemovePushSubscriptionRequest{Id: res2.Msg.GetSubscriptions()[0].GetId()}))

	// A loopback endpoint written straight into the database: the dialer refuses it.
	s.Seed(func(b *store.Batch) error {
		return b.PutPushSubscription(&storepb.PushSubscriptionRecord{
			Id: "0190a1b2-0000-7000-8000-000000000001", MemberId: alice.Member.GetId(), Endpoint: d.endpoint,
			P256Dh: d.priv.PublicKey().Bytes(), Auth: d.auth,
		})
	})
	bob := s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + alice.Member.GetId() + "> hi"})
	waitMetric(t, s, `hearth_push_failed_total{reason="refused"}`, 1)
	if n := ps.triesOf(d); n != 0 {
		t.Fatalf("the push service on loopback got %d requests", n)
	}
}

// TestNotificationPrefs: the defaults, what is stored (levels spelled out, entries that say
// nothing dropped), every rule of SetNotificationPrefs, and notification_prefs to the member's
// own devices only, once per change.
func TestNotificationPrefs(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice, bob := s.Join("alice"), s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	random := mustChannel(t, alice, "random", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := mustChannel(t, alice, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	nb := notifyClient(s, bob)
	got, err := nb.GetNotificationPrefs(ctx, req(&svcv1.GetNotificationPrefsRequest{}))
	if err != nil || got.Msg.GetPrefs().GetLevel() != svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS || got.Msg.GetPrefs().GetHideContent() || len(got.Msg.GetPrefs().GetChannels()) != 0 {
		t.Fatalf("default prefs: %v, %v", got, err)
	}
	seq := s.Engine.Seq()
	bobStream, aliceStream := bob.Subscribe(t, seq), alice.Subscribe(t, seq)

	future := time.Now().Add(8 * time.Hour).UnixMilli()
	stored := setPrefs(t, nb, &svcv1.NotificationPrefs{HideContent: true, Email: true, Channels: []*svcv1.ChannelNotificationPrefs{
		{ChannelId: general.GetId(), Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL, MutedUntilMs: future},
		{ChannelId: random.GetId()}, // says nothing: dropped
	}})
	if stored.GetLevel() != svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS || !stored.GetHideContent() || !stored.GetEmail() ||
		len(stored.GetChannels()) != 1 || stored.GetChannels()[0].GetMutedUntilMs() != future || stored.GetChannels()[0].GetLevel() != svcv1.NotifyLevel_NOTIFY_LEVEL_ALL {
		t.Fatalf("stored prefs: %v", stored)
	}
	ev := bobStream.Next()
	if p := ev.GetNotificationPrefs(); p == nil || len(p.GetChannels()) != 1 || !p.GetHideContent() {
		t.Fatalf("bob's stream after SetNotificationPrefs: %v", ev)
	}
	got, err = nb.GetNotificationPrefs(ctx, req(&svcv1.GetNotificationPrefsRequest{}))
	if err != nil || len(got.Msg.GetPrefs().GetChannels()) != 1 || !got.Msg.GetPrefs().GetEmail() {
		t.Fatalf("prefs read back: %v, %v", got, err)
	}
	// The same again changes nothing and sends nothing; a change after it is the next event.
	setPrefs(t, nb, stored)
	setPrefs(t, nb, &svcv1.NotificationPrefs{Level: svcv1.NotifyLevel_NOTIFY_LEVEL_NONE})
	if ev := bobStream.Next(); ev.GetNotificationPrefs().GetLevel() != svcv1.NotifyLevel_NOTIFY_LEVEL_NONE {
		t.Fatalf("bob's next event: %v; want the change to NONE (and nothing for the repeat)", ev)
	}
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "marker"})
	if ev := aliceStream.Next(); ev.GetMessageCreated().GetText() != "marker" {
		t.Fatalf("alice's stream got %v; bob's preferences are his own", ev)
	}

	many := make([]*svcv1.ChannelNotificationPrefs, 501)
	for i := range many {
		many[i] = &svcv1.ChannelNotificationPrefs{ChannelId: general.GetId(), Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL}
	}
	for _, tc := range []struct {
		what  string
		prefs *svcv1.NotificationPrefs
		code  connect.Code
		parts []string
	}{
		{"a level that does not exist", &svcv1.NotificationPrefs{Level: 9}, connect.CodeInvalidArgument, []string{"prefs.level 9 is not a NotifyLevel"}},
		{"501 channels", &svcv1.NotificationPrefs{Channels: many}, connect.CodeInvalidArgument, []string{"prefs.channels has 501 entries; the limit is 500"}},
		{"no channel id", &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{{Level: 1}}}, connect.CodeInvalidArgument, []string{"prefs.channels[0].channel_id is required"}},
		{"a channel twice", &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: general.GetId(), Level: 1}, {ChannelId: general.GetId(), Level: 3}}}, connect.CodeInvalidArgument, []string{"prefs.channels[1].channel_id", "listed twice"}},
		{"a channel bob cannot see", &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: secret.GetId(), Level: 1}}}, connect.CodeNotFound, []string{"prefs.channels[0].channel_id", "not a channel you can see"}},
		{"an unknown channel", &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: "nope", Level: 1}}}, connect.CodeNotFound, []string{"not a channel you can see"}},
		{"a channel level that does not exist", &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: general.GetId(), Level: -1}}}, connect.CodeInvalidArgument, []string{"prefs.channels[0].level -1"}},
		{"muted until the past", &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: general.GetId(), MutedUntilMs: time.Now().Add(-time.Minute).UnixMilli()}}}, connect.CodeInvalidArgument, []string{"prefs.channels[0].muted_until_ms must be 0"}},
		{"muted until -2", &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{{ChannelId: general.GetId(), MutedUntilMs: -2}}}, connect.CodeInvalidArgument, []string{"muted_until_ms must be 0 (not muted), -1"}},
	} {
		_, err := nb.SetNotificationPrefs(ctx, req(&svcv1.SetNotificationPrefsRequest{Prefs: tc.prefs}))
		wantCode(t, tc.what, err, tc.code, tc.parts...)
	}
	got, err = nb.GetNotificationPrefs(ctx, req(&svcv1.GetNotificationPrefsRequest{}))
	if err != nil || got.Msg.GetPrefs().GetLevel() != svcv1.NotifyLevel_NOTIFY_LEVEL_NONE {
		t.Fatalf("a refused change changed the prefs: %v, %v", got, err)
	}
}

// TestPushReachesTheThreadsStarter: a reply in a thread a member started reaches them; a reply
// in a thread whose root only mentioned them does not (they neither started nor replied in it).
func TestPushReachesTheThreadsStarter(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob, carol := s.Join("bob"), s.Join("carol")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	subscribe(t, notifyClient(s, bob), ps.device("bob"))
	root := mustSend(t, bob, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "bob asks"})
	other := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "hey <@" + bob.Member.GetId() + ">"})
	if p := ps.next(t); p.payload["message_id"] != other.GetId() {
		t.Fatalf("the mention: %v", p.payload)
	}
	mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), ThreadRootId: other.GetId(), Text: "in alice's thread"})
	reply := mustSend(t, carol, &svcv1.SendMessageRequest{ChannelId: general.GetId(), ThreadRootId: root.GetId(), Text: "carol answers bob"})
	if p := ps.next(t); p.payload["message_id"] != reply.GetId() || p.payload["body"] != "carol: carol answers bob" || p.payload["thread_root_id"] != root.GetId() {
		t.Fatalf("the reply in bob's thread: %v", p.payload)
	}
	ps.none(t, "after the reply")
}

// TestNotificationPrefsReadAsOfNow: what GetNotificationPrefs answers can be set again as it is:
// a mute that ran out reads as none, and the entry of a channel the member no longer sees is
// left out.
func TestNotificationPrefsReadAsOfNow(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice, bob := s.Join("alice"), s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	secret := mustChannel(t, alice, "secret", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	if _, err := alice.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: secret.GetId(), MemberIds: []string{bob.Member.GetId()}})); err != nil {
		t.Fatal(err)
	}
	nb := notifyClient(s, bob)
	hour := clock.Now().Add(time.Hour).UnixMilli()
	setPrefs(t, nb, &svcv1.NotificationPrefs{Channels: []*svcv1.ChannelNotificationPrefs{
		{ChannelId: general.GetId(), Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL, MutedUntilMs: hour},
		{ChannelId: secret.GetId(), MutedUntilMs: -1},
	}})
	if _, err := alice.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: secret.GetId(), MemberId: bob.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	clock.Advance(61 * time.Minute)
	res, err := nb.GetNotificationPrefs(ctx, req(&svcv1.GetNotificationPrefsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	got := res.Msg.GetPrefs()
	want := &svcv1.NotificationPrefs{Level: svcv1.NotifyLevel_NOTIFY_LEVEL_MENTIONS, Channels: []*svcv1.ChannelNotificationPrefs{
		{ChannelId: general.GetId(), Level: svcv1.NotifyLevel_NOTIFY_LEVEL_ALL},
	}}
	if !proto.Equal(got, want) {
		t.Fatalf("prefs read after the mute ran out and bob left #secret:\n%v\nwant\n%v", got, want)
	}
	// What was read is set again as it is.
	setPrefs(t, nb, got)
}
