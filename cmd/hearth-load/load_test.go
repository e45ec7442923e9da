package main

import (
	"context"
	"testing"
	"time"

	"hearth/web/webtest"
)

// TestLoadAgainstATestServer runs the tool's core against an in-process server: a handful of
// members send for a second, every stream gets every message exactly once; a second run on
// the same server finds the members and channels of the first. Both stream readers: the
// tool's own over h2c, and the Connect client; and over TLS, with HTTP/2 and HTTP/1.1.
func TestLoadAgainstATestServer(t *testing.T) {
	for _, tc := range []struct {
		name, client string
		tls, http1   bool
	}{
		{"h2", "h2", false, false},
		{"connect", "connect", false, false},
		{"tls", "connect", true, false},
		{"tls-http1", "connect", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) { testLoad(t, tc.client, tc.tls, tc.http1) })
	}
}

func testLoad(t *testing.T, streamClient string, tls, http1 bool) {
	var s *webtest.Server
	if tls {
		s = webtest.StartTLS(t, nil)
	} else {
		s = webtest.Start(t)
	}
	cfg := Config{
		HTTP1:        http1,
		URL:          s.URL,
		Mint:         func(sub string) (string, error) { return s.Issuer.Mint(sub, "", time.Hour) },
		Prefix:       "e2e",
		Subscribers:  5,
		Senders:      4,
		Channels:     2,
		Rate:         16,
		SenderRate:   5,
		MaxMessages:  1000,
		Duration:     time.Second,
		TextBytes:    64,
		Protocol:     "connect",
		StreamClient: streamClient,
		JoinsPerAddr: 10,
		Concurrency:  4,
		PhaseTimeout: 20 * time.Second,
		SendTimeout:  5 * time.Second,
		Drain:        5 * time.Second,
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	check := func(sum *Summary) {
		t.Helper()
		if !sum.OK || sum.Delivery.Lost != 0 || sum.Delivery.Duplicated != 0 || sum.Delivery.OutOfOrder != 0 {
			t.Fatalf("run not ok: %+v", sum)
		}
		if sum.Send.Acked < 5 || sum.Send.Failed != 0 || len(sum.Errors["send"]) != 0 {
			t.Fatalf("sends: %+v, errors %v", sum.Send, sum.Errors)
		}
		if want := sum.Send.Acked * 5; sum.Delivery.Count != want || sum.Delivery.Latency.Count != uint64(want) {
			t.Fatalf("%d deliveries, want %d", sum.Delivery.Count, want)
		}
		if sum.Streams.Opened != 5 || sum.Send.Latency.Count != uint64(sum.Send.Acked) {
			t.Fatalf("streams %+v, send latency %+v", sum.Streams, sum.Send.Latency)
		}
	}
	check(sum)
	if sum.Members.Joined != 5 || sum.Members.Reused != 0 {
		t.Fatalf("first run members %+v", sum.Members)
	}

	cfg.Duration = 500 * time.Millisecond
	again, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	check(again)
	if again.Members.Joined != 0 || again.Members.Reused != 5 || again.Run == sum.Run {
		t.Fatalf("second run members %+v, run %s after %s", again.Members, again.Run, sum.Run)
	}
}
