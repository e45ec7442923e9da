package engine

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

type commits struct {
	mu    sync.Mutex
	all   []Commit
	ended []StreamEnd
}

func (c *commits) StreamEnded(why StreamEnd) {
	c.mu.Lock()
	c.ended = append(c.ended, why)
	c.mu.Unlock()
}

func (c *commits) Committed(x Commit) {
	c.mu.Lock()
	c.all = append(c.all, x)
	c.mu.Unlock()
}

// TestStatsAndObserver: every commit reaches the Observer with its size, Stats counts the
// open streams and how far behind each live one is, and a stream's end reaches the Observer.
func TestStatsAndObserver(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(t.TempDir(), "db"), store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	obs := &commits{}
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		db.Close()
	})
	m, _, err := e.Join(context.Background(), JoinInput{Login: Login{Issuer: "http://127.0.0.1", Subject: "a"}, ClientAddr: "a", Req: &svcv1.JoinRequest{}})
	if err != nil {
		t.Fatal(err)
	}
	obs.mu.Lock()
	last := obs.all[len(obs.all)-1]
	obs.mu.Unlock()
	if last.Changes != 1 || last.Events < 1 || last.Failed || last.Sync <= 0 {
		t.Fatalf("the join's commit = %+v", last)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan struct{}, 16)
	done := make(chan error, 1)
	go func() {
		_, err := e.Subscribe(ctx, Caller{ID: m.GetId()}, e.Seq(), SendFunc(func(*Frame, bool) error {
			got <- struct{}{}
			return nil
		}))
		done <- err
	}()
	<-got // the opening heartbeat
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := e.Stats()
		if st.Streams == 1 && len(st.StreamLags) == 1 {
			if st.StreamLags[0] > st.HubHead || st.HubRing != 8192 || st.WriterQueueCap != maxBatch || st.Seq != e.Seq() {
				t.Fatalf("stats = %+v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream is not counted: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.Streams != 0 || len(st.StreamLags) != 0 {
		t.Fatalf("after the stream ended: %+v", st)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.ended) != 1 || obs.ended[0] != StreamClientClosed {
		t.Fatalf("stream ends reported = %v, want [%s]", obs.ended, StreamClientClosed)
	}
}
