package main

import (
	"context"
	"testing"
	"time"

	"hearth/web/webtest"
)

// TestLoadAgainstATestServer runs the tool's core against an in-process server: a handful of
// members send for a second, every stream gets every message exactly once; a second run on
// the same server finds the members and channels of the first. Every stream reader: the
// tool's own and the Connect client over h2c and over TLS HTTP/2, HTTP/1.1 over TLS, and
// GET /events (a WebSocket) over cleartext and over TLS.
func TestLoadAgainstATestServer(t *testing.T) {
	for _, tc := range []struct {
		name         string
		streamClient string
		tls, http1   bool
	}{
		{"h2c/h2", "h2", false, false},
		{"h2c/connect", "connect", false, false},
		{"tls/h2", "h2", true, false},
		{"tls/connect", "connect", true, false},
		{"tls/http1", "connect", true, true},
		{"ws", "ws", false, false},
		{"tls/ws", "ws", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *webtest.Server
			if tc.tls {
				s = webtest.StartTLS(t, nil)
			} else {
				s = webtest.Start(t)
			}
			cfg := loadConfig(s, tc.streamClient)
			cfg.HTTP1 = tc.http1
			if tc.tls {
				cfg.TLS = s.TLSConfig()
			}
			testLoad(t, cfg)
		})
	}
}

// loadConfig is a small run against s, read by streamClient.
func loadConfig(s *webtest.Server, streamClient string) Config {
	return Config{
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
}

func testLoad(t *testing.T, cfg Config) {
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
