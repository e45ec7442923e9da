package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// TestMetricsOnTheirOwnAddress: -metrics-addr serves /metrics on a separate listener (never on
// the public port), with calls per procedure and code, routes per pattern, the writer's
// commits, the streams and the process; and no member's name or id appears in it.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	data := t.TempDir()
	var c Config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	serveFlags(fs, &c)
	if err := parseFlags(fs, []string{"-data", data, "-addr", "127.0.0.1:0", "-base-url", "http://127.0.0.1", "-metrics-addr", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, stop := context.WithCancel(context.Background())
	a, err := openApp(ctx, c, log)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	mln, err := net.Listen("tcp", c.MetricsAddr)
	if err != nil {
		t.Fatal(err)
	}
	a.serveMetrics(mln, &out, log)
	metricsURL := regexp.MustCompile(`http://\S+/metrics`).FindString(out.String())
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- a.serve(ctx, ln, c, log) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	url := "http://" + ln.Addr().String()

	iss, err := auth.LoadOrCreateIssuer(data, c.BaseURL, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := iss.Mint("secret-sub", "Secret Person", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	server := svcv1connect.NewServerServiceClient(http.DefaultClient, url, connect.WithInterceptors(auth.WithBearer(tok)))
	join, err := server.Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svcv1connect.NewServerServiceClient(http.DefaultClient, url).GetMe(context.Background(), connect.NewRequest(&svcv1.GetMeRequest{})); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("GetMe without a token: %v", err)
	}
	for _, path := range []string{"/healthz", "/metrics", "/nothing/here"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if path == "/metrics" && resp.StatusCode != http.StatusNotFound {
			t.Fatalf("the public port serves /metrics: %s", resp.Status)
		}
	}

	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`hearth_rpc_requests_total{code="ok",procedure="/svc.v1.ServerService/Join"} 1`,
		`hearth_rpc_requests_total{code="unauthenticated",procedure="/svc.v1.ServerService/GetMe"} 1`,
		`hearth_rpc_duration_seconds_count{procedure="/svc.v1.ServerService/Join"} 1`,
		`hearth_http_requests_total{route="GET /healthz",status="200"} 1`,
		`hearth_http_requests_total{route="unmatched",status="404"} 2`,
		`hearth_subscribe_streams 0`,
		`hearth_writer_queue_capacity 512`,
		`hearth_hub_ring_size 8192`,
		`hearth_writer_commit_seconds_count`,
		`hearth_writer_batch_changes_bucket`,
		// The notifier follows the log as the streams do: it has a lag too, none when idle.
		`hearth_hub_stream_lag_events_count 1`,
		`hearth_hub_stream_lag_max_events 0`,
		`hearth_badger_vlog_bytes`,
		`process_resident_memory_bytes`,
		`go_goroutines`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, secret := range []string{"secret", "Secret", join.Msg.GetMember().GetId()} {
		if strings.Contains(text, secret) {
			t.Errorf("/metrics shows member data %q", secret)
		}
	}
}
