package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// expired is what a stream whose access token expired ends with.
const expired = "the access token this stream was opened with expired; subscribe again with a new one"

// The tokens below are checked by the verifier on the real clock when a stream opens; a
// stream's expiry is on the engine's clock, which starts at the real time (NewClockAt) and
// moves only when told.

// TestStreamEndsWhenItsTokenExpires: a person's stream gets its heartbeats and events up to
// the exp of the access token it was opened with, and ends at that moment with
// unauthenticated; subscribing again with a new token from the last seq it saw brings what
// came meanwhile, nothing lost and nothing twice. A stream opened with a token that has
// expired on the engine's clock ends at once.
func TestStreamEndsWhenItsTokenExpires(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClockAt(time.Now())
	s := webtest.Start(t, webtest.WithClock(clock), webtest.WithManualJobs())
	alice := s.Join("alice")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	short, exp := joinWithShortToken(t, s, "bob", 2*time.Minute)
	bob := s.Client(short)

	st := bob.Subscribe(t, s.Engine.Seq())
	st.Ephemeral = true
	next := func() *svcv1.Event { return nextNotPresence(st) }
	heartbeat := func(when string) {
		t.Helper()
		if ev := next(); !ev.GetHeartbeat() {
			t.Fatalf("%s: got seq %d %s, want a heartbeat", when, ev.GetSeq(), kind(ev))
		}
	}
	heartbeat("at the opening")
	// Every 25 s up to the token's exp (2 minutes, less the part of a second the exp drops).
	for i := 1; i <= 4; i++ {
		clock.Advance(25 * time.Second)
		heartbeat(fmt.Sprintf("after %d s", 25*i))
	}
	clock.Set(exp.Add(-time.Second))
	first := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "a second before"})
	if ev := next(); ev.GetMessageCreated().GetText() != "a second before" {
		t.Fatalf("a second before the exp: got seq %d %s, want the message", ev.GetSeq(), kind(ev))
	}

	clock.Set(exp)
	wantCode(t, "the stream at its token's exp", st.Ended(), connect.CodeUnauthenticated, expired)
	mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "while bob was away"})

	again := s.Client(s.Token("bob")).Subscribe(t, first.GetSeq())
	if ev := again.Next(); ev.GetMessageCreated().GetText() != "while bob was away" {
		t.Fatalf("after subscribing again: got seq %d %s, want the message sent while away", ev.GetSeq(), kind(ev))
	}
	wantCode(t, "a stream opened with the expired token", bob.Subscribe(t, s.Engine.Seq()).Ended(), connect.CodeUnauthenticated, expired)
}

// TestBotStreamDoesNotExpire: a bot's token has no expiry, and its stream outlives a person's
// opened at the same time with an hour's token.
func TestBotStreamDoesNotExpire(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClockAt(time.Now())
	s := webtest.Start(t, webtest.WithClock(clock), webtest.WithManualJobs())
	alice := s.Join("alice")
	bot := s.CreateBot(alice, "helper")
	person := alice.Subscribe(t, s.Engine.Seq())
	st := bot.Subscribe(t, s.Engine.Seq())
	st.Ephemeral = true
	heartbeat := func(when string) {
		t.Helper()
		for {
			ev := st.Next()
			if ev.GetPresence() != nil || ev.GetPresenceBatch() != nil {
				continue
			}
			if !ev.GetHeartbeat() {
				t.Fatalf("%s: got seq %d %s, want a heartbeat", when, ev.GetSeq(), kind(ev))
			}
			return
		}
	}
	heartbeat("at the opening")
	clock.Advance(3 * time.Hour)
	heartbeat("3 hours later")
	wantCode(t, "alice's stream 3 hours later", person.Ended(), connect.CodeUnauthenticated, expired)
	clock.Advance(25 * time.Second)
	heartbeat("25 s after that")
}

// TestStreamEndedByTokenExpiryIsLoggedAndCounted: the stream-closed line says
// ended=token_expired with the code, and the metrics count it under its own reason.
func TestStreamEndedByTokenExpiryIsLoggedAndCounted(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClockAt(time.Now())
	o := startOps(t, "1.5.0", webtest.WithClock(clock))
	token, err := o.Issuer.Mint("alice", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	server, chat := o.client(t, token)
	if _, err := server.Join(ctx, req(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	done := true
	if _, err := server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
		t.Fatal(err)
	}
	// Bounded: a stream that did not end fails the test with deadline_exceeded.
	bounded, cancel := context.WithTimeout(context.Background(), webtest.Wait)
	defer cancel()
	st, err := chat.Subscribe(bounded, req(&svcv1.SubscribeRequest{AfterSeq: o.Engine.Seq()}))
	if err != nil || !st.Receive() {
		t.Fatalf("subscribe: %v %v", err, st.Err())
	}
	clock.Advance(time.Hour + time.Minute)
	for st.Receive() {
	}
	wantCode(t, "the stream an hour later", st.Err(), connect.CodeUnauthenticated, expired)
	o.log.waitLine(t, `msg="stream closed"`, "ended=token_expired", "code=unauthenticated")
	o.waitMetrics(t,
		`hearth_subscribe_streams_ended_total{reason="token_expired"} 1`,
		`hearth_subscribe_streams_ended_total{reason="error"} 0`,
	)
}

// waitMetrics waits until /metrics has every line of want.
func (o *opsServer) waitMetrics(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(webtest.Wait)
	for {
		rec := httptest.NewRecorder()
		o.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		text := rec.Body.String()
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return strings.Contains(text, w+"\n") })
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %v:\n%s", missing, grep(text, "hearth_subscribe_streams_ended"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// joinWithShortToken joins sub with an access token that expires in ttl, and returns the token
// and its exp.
func joinWithShortToken(t *testing.T, s *webtest.Server, sub string, ttl time.Duration) (string, time.Time) {
	t.Helper()
	token, err := s.Issuer.Mint(sub, "", ttl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client(token).Server.Join(ctx, req(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	return token, time.Unix(int64(jwtClaims(t, token)["exp"].(float64)), 0)
}
