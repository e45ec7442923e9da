package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/clock"
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// benchClock tells a time that moves only when told: the benchmarks advance it so the send
// rate limit never throttles them. Its timers (heartbeats, presence) run on the wall clock, as
// in production, rather than firing in bulk each time a benchmark advances the time.
type benchClock struct {
	clock.Real
	ns atomic.Int64
}

func (c *benchClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

func (c *benchClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

func openBenchEngine(b *testing.B) (*Engine, *benchClock) {
	b.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(b.TempDir(), "db"), store.ProfileSmall, log)
	if err != nil {
		b.Fatal(err)
	}
	clock := &benchClock{}
	clock.ns.Store(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log, Clock: clock, RingSize: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.Close()
		db.Close()
	})
	return e, clock
}

func benchJoin(b testing.TB, e *Engine, sub string) Caller {
	b.Helper()
	m, _, err := e.Join(context.Background(), JoinInput{
		Login:      Login{Issuer: "http://127.0.0.1", Subject: sub},
		ClientAddr: sub, // one join rate bucket per member
		Req:        &svcv1.JoinRequest{},
	})
	if err != nil {
		b.Fatal(err)
	}
	return Caller{ID: m.GetId()}
}

func benchChannel(b *testing.B, e *Engine, owner Caller) string {
	b.Helper()
	done := true
	if _, err := e.UpdateServerSettings(context.Background(), owner, &svcv1.UpdateServerSettingsRequest{SetupComplete: &done}); err != nil {
		b.Fatal(err)
	}
	res, err := e.CreateChannel(context.Background(), owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		b.Fatal(err)
	}
	return res.GetChannel().GetId()
}

// BenchmarkSendMessage measures durable sends from 16 members at once: every send is committed
// with a sync, and the writer's group commit shares one sync among the sends waiting together.
func BenchmarkSendMessage(b *testing.B) {
	e, clock := openBenchEngine(b)
	owner := benchJoin(b, e, "owner")
	ch := benchChannel(b, e, owner)
	senders := make([]Caller, 16)
	for i := range senders {
		senders[i] = benchJoin(b, e, fmt.Sprint("sender", i))
	}
	var next atomic.Int64
	b.SetParallelism(8) // 8 senders per CPU: enough waiting together to share a sync
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		me := senders[next.Add(1)%int64(len(senders))]
		for pb.Next() {
			clock.Advance(time.Second)
			_, err := e.SendMessage(context.Background(), me, &svcv1.SendMessageRequest{ChannelId: ch, Text: "hello there"})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkFanOut1000 measures one message delivered to 1,000 subscribers: an op ends when
// every subscriber has received (and encoded) it. Every stream shares one encoding per format.
func BenchmarkFanOut1000(b *testing.B) {
	const subscribers = 1000
	e, clock := openBenchEngine(b)
	owner := benchJoin(b, e, "owner")
	ch := benchChannel(b, e, owner)
	members := []Caller{owner}
	for i := 1; i < subscribers; i++ {
		members = append(members, benchJoin(b, e, fmt.Sprint("sub", i)))
	}
	// Each op waits for all deliveries before the next send, so the count reaches a multiple of
	// the subscribers exactly when an op is complete.
	var received atomic.Int64
	opDone := make(chan struct{}, 1)
	after := e.Seq()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, c := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.Subscribe(ctx, c, after, SendFunc(func(f *Frame, _ bool) error {
				if f.Event.GetMessageCreated() == nil {
					return nil
				}
				if _, err := f.Encoded("proto", func(ev *svcv1.Event) ([]byte, error) { return proto.Marshal(ev) }); err != nil {
					return err
				}
				if received.Add(1)%subscribers == 0 {
					opDone <- struct{}{}
				}
				return nil
			}))
		}()
	}
	b.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clock.Advance(time.Second)
		if _, err := e.SendMessage(context.Background(), owner, &svcv1.SendMessageRequest{ChannelId: ch, Text: "to everyone"}); err != nil {
			b.Fatal(err)
		}
		select {
		case <-opDone:
		case <-time.After(30 * time.Second):
			b.Fatalf("op %d: %d of %d deliveries after 30 s", i, received.Load()-int64(i)*subscribers, subscribers)
		}
	}
	b.ReportMetric(float64(b.N*subscribers)/b.Elapsed().Seconds(), "deliveries/s")
}
