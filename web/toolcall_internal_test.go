package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
)

// TestReflectionStreamsEnd: gRPC reflection needs no token, and its stream goes at the
// client's pace; one left open without a word held its goroutines and one of its address's 64
// places before authentication for as long as the client liked. It now ends when its time is up
// (a minute; shortened here), its place given back, and a new one works as before.
func TestReflectionStreamsEnd(t *testing.T) {
	t.Parallel()
	s, base := serveInternal(t, Config{}, func(s *Server) { s.intake.toolTime = 300 * time.Millisecond })
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	hc := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream := grpcreflect.NewClient(hc, base, connect.WithGRPC()).NewStream(ctx)
	defer stream.Close()
	if _, err := stream.ListServices(); err != nil {
		t.Fatal(err)
	}
	// The stream is open and idle: it holds its place among the requests before authentication.
	if n := s.intake.slots.count("127.0.0.1"); n != 1 {
		t.Fatalf("an open reflection stream holds %d places, want 1", n)
	}
	deadline := time.Now().Add(20 * time.Second)
	for s.intake.slots.count("127.0.0.1") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("an idle reflection stream is still open after 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := stream.ListServices(); err == nil {
		t.Fatal("the ended stream still answers")
	}
	again := grpcreflect.NewClient(hc, base, connect.WithGRPC()).NewStream(ctx)
	defer again.Close()
	if _, err := again.ListServices(); err != nil {
		t.Fatalf("a new stream: %v", err)
	}
	health := grpchealth.NewClient(hc, base, connect.WithGRPC())
	if res, err := health.Check(ctx, &grpchealth.CheckRequest{}); err != nil || res.Status != grpchealth.StatusServing {
		t.Fatalf("health: %v %v", res, err)
	}
}

// serveInternal opens a server on cfg (its data folder, base URL and a quiet log filled in),
// lets change set what tests shorten, and serves it on loopback until the test ends; base is
// its URL.
func serveInternal(t *testing.T, cfg Config, change func(*Server)) (s *Server, base string) {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	base = "http://" + hs.Listener.Addr().String()
	cfg.Data, cfg.Engine.BaseURL, cfg.Log = t.TempDir(), base, slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(s)
	}
	hs.Config = s.HTTPServer()
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return s, base
}

// count is how many places addr holds.
func (s *addrSlots) count(addr string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.places[addr])
}
