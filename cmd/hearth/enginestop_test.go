package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine"
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// TestServeExitsForARestartWhenACommitFails: once a commit's outcome is unknown (its batch
// written, the sync of Badger's log failed) the engine takes no change until a restart. The
// server used to stay up, refusing every change and failing its health check; now serve logs
// why, shuts down as on SIGTERM and ends with an error whose exit code is exitEngineStopped,
// for a supervisor to restart it.
func TestServeExitsForARestartWhenACommitFails(t *testing.T) {
	data := t.TempDir()
	logs := &webtest.LogBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	var failing atomic.Bool
	s, err := web.Open(context.Background(), web.Config{
		Data: data,
		Engine: engine.Options{BaseURL: testBase, Commit: func(b *store.Batch) error {
			if err := b.Commit(); err != nil || !failing.Load() {
				return err
			}
			return errors.New("sync: input/output error")
		}},
		Log: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	a := &app{Server: s, srv: s.HTTPServer()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.serve(context.Background(), ln, Config{}, log) }()
	url := "http://" + ln.Addr().String()

	alice := join(t, data, url, "alice", "")
	ctx := context.Background()
	if _, err := alice.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "before", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})); err != nil {
		t.Fatalf("a change before the failure: %v", err)
	}
	failing.Store(true)
	_, err = alice.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "unsure", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if connect.CodeOf(err) != connect.CodeInternal {
		t.Fatalf("the change whose commit failed: %v, want internal", err)
	}

	var served error
	select {
	case served = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve still runs 30 s after the engine stopped")
	}
	var stderr bytes.Buffer
	if code := exitCode(served, &stderr); code != exitEngineStopped {
		t.Fatalf("serve ended with %v, exit code %d; want %d", served, code, exitEngineStopped)
	}
	if !strings.Contains(stderr.String(), "hearth: shut down to be restarted: ") {
		t.Errorf("hearth printed %q, want why it stopped", stderr.String())
	}
	if out := logs.String(); !strings.Contains(out, "shutting down to be restarted") || !strings.Contains(out, "exit_code=3") {
		t.Errorf("the log does not say why the server exits:\n%s", out)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("the server still takes connections after serve ended")
	}
}
