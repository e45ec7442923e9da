package web_test

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/engine/notify"
	svcv1 "hearth/proto/svc/v1"
)

// TestPushNeverReachesARemovedOrHandedOnDevice: a push waiting for its retry (the push service
// answered 503) is not tried again once the member removed the device, nor once the device
// changed hands (another member subscribed the same browser, same endpoint and keys): the
// first member's message never shows on the second member's device.
func TestPushNeverReachesARemovedOrHandedOnDevice(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob, carol := s.Join("bob"), s.Join("carol")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	nb, nc := notifyClient(s, bob), notifyClient(s, carol)

	for i, handOn := range []bool{false, true} {
		d := ps.device("shared-" + strconv.Itoa(i))
		d.hold = make(chan struct{})
		ps.answer(d, http.StatusServiceUnavailable)
		id := subscribe(t, nb, d)
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + bob.Member.GetId() + "> for bob only"})
		waitFor(t, "the first try", func() bool { return ps.triesOf(d) == 1 })
		if handOn {
			subscribe(t, nc, d)
		} else if _, err := nb.RemovePushSubscription(ctx, req(&svcv1.RemovePushSubscriptionRequest{Id: id})); err != nil {
			t.Fatal(err)
		}
		close(d.hold) // the first try is answered 503 now; its retry is due 20 ms later
		waitMetric(t, s, `hearth_push_failed_total{reason="gone"}`, float64(i+1))
		ps.none(t, "after the device left bob")
		if n := ps.triesOf(d); n != 1 {
			t.Errorf("handed on %v: the push service got %d tries; want 1", handOn, n)
		}
	}
	// The device carol took works for her.
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + carol.Member.GetId() + "> for carol"})
	if p := ps.next(t); p.device != "shared-1" || p.payload["body"] != "alice: @carol for carol" {
		t.Fatalf("carol's push: %s %v", p.device, p.payload)
	}
}

// TestPushRetriesWaitingAreBounded: pushes waiting for a retry are bounded as the queue is
// (QueueSize): with a push service that answers 503 to everything, the retries past the bound
// are dropped and counted, not kept.
func TestPushRetriesWaitingAreBounded(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, func(o *notify.Options) {
		o.QueueSize = 2
		o.Retries = []time.Duration{time.Hour / 10, time.Hour / 10, time.Hour / 10}
	})
	bob := s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	down := ps.device("down")
	ps.answer(down, 503, 503, 503, 503, 503)
	subscribe(t, notifyClient(s, bob), down)
	for i := range 5 {
		mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + bob.Member.GetId() + "> " + strconv.Itoa(i)})
		waitFor(t, "try "+strconv.Itoa(i+1), func() bool { return ps.triesOf(down) == i+1 })
	}
	waitMetric(t, s, "hearth_push_dropped_total", 3)
}

// TestPushKeyAndDevicesComeBackWithARestore: a backup restored on a fresh machine brings back
// the VAPID key pair browsers bound their subscriptions to, and the subscriptions: a push after
// the restore is signed with the same key and decrypts on the same device.
func TestPushKeyAndDevicesComeBackWithARestore(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	bob := s.Join("bob")
	general := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	nb := notifyClient(s, bob)
	phone := ps.device("phone")
	id := subscribe(t, nb, phone)
	key, err := nb.GetPushConfig(ctx, req(&svcv1.GetPushConfigRequest{}))
	if err != nil {
		t.Fatal(err)
	}

	archive := backupOver(t, s.Dir)
	s.RestoreFresh(bytes.NewReader(archive))

	after, err := nb.GetPushConfig(ctx, req(&svcv1.GetPushConfigRequest{}))
	if err != nil || after.Msg.GetVapidPublicKey() != key.Msg.GetVapidPublicKey() {
		t.Fatalf("the VAPID key after the restore: %v, %v; want %s", after, err, key.Msg.GetVapidPublicKey())
	}
	list, err := nb.ListPushSubscriptions(ctx, req(&svcv1.ListPushSubscriptionsRequest{}))
	if err != nil || len(list.Msg.GetSubscriptions()) != 1 || list.Msg.GetSubscriptions()[0].GetId() != id {
		t.Fatalf("bob's devices after the restore: %v, %v", list, err)
	}
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "<@" + bob.Member.GetId() + "> still there?"})
	if p := ps.next(t); p.device != "phone" || p.payload["body"] != "alice: @bob still there?" {
		t.Fatalf("the push after the restore: %s %v", p.device, p.payload)
	}
}

// TestPushDevicesGoWithTheMember: a member who leaves, is kicked or is banned loses their push
// subscriptions; a device left behind hears nothing of the community after a rejoin.
func TestPushDevicesGoWithTheMember(t *testing.T) {
	t.Parallel()
	s, ps, alice := startPush(t, nil)
	for _, how := range []string{"leaves", "is kicked", "is banned"} {
		bob := s.Join("bob-" + strings.ReplaceAll(how, " ", "-"))
		subscribe(t, notifyClient(s, bob), ps.device("phone of "+bob.Member.GetUsername()))
		var err error
		switch how {
		case "leaves":
			_, err = bob.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
		case "is kicked":
			_, err = alice.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: bob.Member.GetId()}))
		default:
			_, err = alice.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: bob.Member.GetId()}))
		}
		if err != nil {
			t.Fatal(err)
		}
		if subs, err := s.Engine.PushSubscriptionsOf(bob.Member.GetId()); err != nil || len(subs) != 0 {
			t.Fatalf("bob %s: his push subscriptions are %v, %v; want none", how, subs, err)
		}
	}
}
