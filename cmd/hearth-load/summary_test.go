package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
)

// TestSummaryJSON: the JSON summary has the fields scripts read, under stable names.
func TestSummaryJSON(t *testing.T) {
	r := &run{cfg: Config{URL: "http://127.0.0.1:8080", Protocol: "connect", Subscribers: 2, Senders: 1, Channels: 1, Rate: 5, Duration: time.Second}, id: "abcd"}
	r.ledger = newLedger(4, 2)
	for range 3 {
		k := r.ledger.take()
		r.ledger.settle(k, acked)
		r.ledger.deliver(0, k)
		r.ledger.deliver(1, k)
		r.sendLat.record(2 * time.Millisecond)
		r.deliveryLat.record(3 * time.Millisecond)
		r.deliveryLat.record(4 * time.Millisecond)
	}
	r.sent.Store(3)
	r.acked.Store(3)
	r.deliveries.Store(6)
	r.streams.opened.Store(2)
	r.errs.add("send", connect.NewError(connect.CodeResourceExhausted, errors.New("slow down")))
	s := newSummary(r)
	s.Send.Seconds = 1.5
	s.Server.Open = serverSample{RSSBytes: 30 << 20, Goroutines: 12}
	s.CPU = cpuUse{Seconds: 2, ServerSeconds: 0.6, ToolSeconds: 0.3, ServerMicrosPerDelivery: 1e5}
	s.finish(r)

	var buf bytes.Buffer
	if err := s.writeJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"run":                            "abcd",
		"ok":                             true,
		"config.http":                    "h2c",
		"config.subscribers":             2.0,
		"send.acked":                     3.0,
		"send.acked_per_s":               2.0,
		"send.latency.p99_ms":            2.0,
		"delivery.count":                 6.0,
		"delivery.per_s":                 4.0,
		"delivery.lost":                  0.0,
		"delivery.duplicated":            0.0,
		"delivery.out_of_order":          0.0,
		"delivery.latency.count":         6.0,
		"streams.opened":                 2.0,
		"server.streams_open.rss_bytes":  float64(30 << 20),
		"server.streams_open.goroutines": 12.0,
		"cpu.server_us_per_delivery":     1e5,
	} {
		if v := lookup(got, path); v != want {
			t.Errorf("%s = %v, want %v", path, v, want)
		}
	}
	if lookup(got, "errors.send.resource_exhausted") != 1.0 {
		t.Errorf("errors = %v", got["errors"])
	}
	var text bytes.Buffer
	s.writeText(&text)
	for _, want := range []string{"3 acknowledged (2.0/s", "lost 0, duplicated 0", "send resource_exhausted 1", "RSS 30.0 MB, 12 goroutines", "server 0.60s (100000.0 us per delivery)", "\nOK\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text summary lacks %q:\n%s", want, text.String())
		}
	}
}

func lookup(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// TestMessageText: the text carries the run, the number and the send time; other texts are
// not the run's.
func TestMessageText(t *testing.T) {
	at := time.Unix(1700000000, 123456789)
	s := messageText("r1", 42, at, 100)
	if len(s) != 100 {
		t.Fatalf("padded to %d bytes, want 100", len(s))
	}
	k, sent, ok := parseText([]byte(s), "r1")
	if !ok || k != 42 || sent != at.UnixNano() {
		t.Fatalf("parse = %d %v %v", k, sent, ok)
	}
	for _, other := range []string{messageText("r2", 1, at, 0), "hello", "hl r1 x 5", "hl r1 5", "hl r1 -5 5", "hl r1 5 9223372036854775808", "hl r1 5 12345678901234567890", "hl r10 5 5", ""} {
		if _, _, ok := parseText([]byte(other), "r1"); ok {
			t.Errorf("%q taken for the run's", other)
		}
	}
}

// TestSourceAddresses: addresses count up from the first, skipping .0 and .255.
func TestSourceAddresses(t *testing.T) {
	first := net.ParseIP("127.0.0.2")
	for n, want := range map[int]string{0: "127.0.0.2", 1: "127.0.0.3", 252: "127.0.0.254", 253: "127.0.1.1", 506: "127.0.1.254", 507: "127.0.2.1"} {
		if got := sourceAddr(first, n).String(); got != want {
			t.Errorf("address %d = %s, want %s", n, got, want)
		}
	}
}

// TestServerSamples: RSS and goroutines from the metrics text format and from /proc.
func TestServerSamples(t *testing.T) {
	metrics := `# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 1234
go_gc_duration_seconds{quantile="0.5"} 1e-05
process_resident_memory_bytes 2.5165824e+07 1700000000000
`
	vals, err := parseMetrics(strings.NewReader(metrics), "go_goroutines", "process_resident_memory_bytes")
	if err != nil || vals["go_goroutines"] != 1234 || vals["process_resident_memory_bytes"] != 25165824 {
		t.Fatalf("parse = %v %v", vals, err)
	}
	rss, err := parseVmRSS(strings.NewReader("Name:\thearth\nVmPeak:\t 99 kB\nVmRSS:\t   24576 kB\n"))
	if err != nil || rss != 24576<<10 {
		t.Fatalf("VmRSS = %d %v", rss, err)
	}
	if _, err := parseVmRSS(strings.NewReader("Name:\thearth\n")); err == nil {
		t.Fatal("no VmRSS line is no error")
	}
	// utime 1234 and stime 66 ticks; the name holds a space and a parenthesis.
	stat := "4242 (hearth (x) y) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1234 66 0 0 20 0 12 0 100 0 0"
	if cpu, err := parseProcStatCPU(stat); err != nil || cpu != 13 {
		t.Fatalf("cpu = %v %v, want 13", cpu, err)
	}
	if _, err := parseProcStatCPU("4242 (hearth) S 1"); err == nil {
		t.Fatal("a short stat line is no error")
	}
}

// TestFlags: the derived defaults, and the refusals that keep a run safe.
func TestFlags(t *testing.T) {
	c := Config{Prefix: "load", Rate: 50, Duration: time.Second, Channels: 1, Concurrency: 1, JoinsPerAddr: 10, MaxMessages: 10, Protocol: "connect"}
	if err := c.fill("proto", "127.0.0.2"); err != nil || c.Senders != 13 {
		t.Fatalf("senders for 50/s = %d (%v), want 13", c.Senders, err)
	}
	for _, raw := range []string{"http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:8080"} {
		if err := checkLoopback("-url", raw); err != nil {
			t.Errorf("%s refused: %v", raw, err)
		}
	}
	for _, raw := range []string{"http://10.0.0.1:8080", "http://example.com", "127.0.0.1:8080"} {
		if err := checkLoopback("-url", raw); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
	bad := c
	bad.Prefix = "Load Test"
	if err := bad.fill("proto", ""); err == nil {
		t.Error("a prefix that the server would rename is accepted")
	}
	bad = c
	bad.Protocol, bad.HTTP1 = "grpc", true
	if err := bad.fill("proto", ""); err == nil {
		t.Error("gRPC over HTTP/1.1 is accepted")
	}
	bad = c
	bad.URL, bad.StreamClient = "https://127.0.0.1:8443", "h2"
	if err := bad.fill("proto", ""); err == nil {
		t.Error("the h2c reader over TLS is accepted")
	}
	tls := c
	tls.URL, tls.StreamClient = "https://127.0.0.1:8443", ""
	if err := tls.fill("proto", ""); err != nil || tls.StreamClient != "connect" {
		t.Errorf("over TLS: %v, stream client %q; want the Connect client", err, tls.StreamClient)
	}
	if err := c.fill("proto", "10.0.0.2"); err == nil {
		t.Error("a source address off loopback is accepted")
	}
}
