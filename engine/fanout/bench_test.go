package fanout

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
)

// BenchmarkFollowerPass measures the deliverers' reads of the hub: one event published, then
// two goroutines (the deliverers of a 2-core machine) each read the hub's window once and the
// event from it for 500 of 1,000 followers, and read again to find nothing more, as work and
// deliver do. It reports the cost per follower.
func BenchmarkFollowerPass(b *testing.B) {
	const followers, shards = 1000, 2
	h := NewHub[entry](1<<16, errClosed)
	var fs []*Follower[entry]
	for range followers {
		f := Follow[entry](h, 0, 0, nil, nil)
		defer f.Close()
		fs = append(fs, f)
	}
	start := make([]chan struct{}, shards)
	var done sync.WaitGroup
	var failed atomic.Value
	for i := range shards {
		start[i] = make(chan struct{})
		go func(mine []*Follower[entry], start chan struct{}) {
			var w window[entry]
			for range start {
				h.readWindow(&w)
				for _, f := range mine {
					ds, err := f.next(&w)
					if len(ds) != 1 || err != nil {
						failed.Store(fmt.Sprintf("the first read: %d events, %v", len(ds), err))
					}
					if ds, err := f.next(&w); len(ds) != 0 || err != nil {
						failed.Store(fmt.Sprintf("the second read: %d events, %v", len(ds), err))
					}
				}
				w.empty()
				done.Done()
			}
		}(fs[i*followers/shards:(i+1)*followers/shards], start[i])
	}
	defer func() {
		for _, s := range start {
			close(s)
		}
	}()
	ev := &svcv1.Event{Kind: &svcv1.Event_Typing{Typing: &svcv1.TypingEvent{}}}
	b.ResetTimer()
	for range b.N {
		h.Publish(entry{frame: NewFrame(ev)})
		done.Add(shards)
		for _, s := range start {
			s <- struct{}{}
		}
		done.Wait()
	}
	b.StopTimer()
	if msg := failed.Load(); msg != nil {
		b.Fatal(msg)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*followers), "ns/follower")
}

// BenchmarkFrameEncoded measures the streams' lookups of an event's encoding: a new event's
// Frame, then two goroutines each take its encoding for 500 streams, as the streams' writers
// do for every event. It reports the cost per stream.
func BenchmarkFrameEncoded(b *testing.B) {
	const streams, shards = 1000, 2
	marshal := func(ev *svcv1.Event) ([]byte, error) { return proto.Marshal(ev) }
	ev := &svcv1.Event{Seq: 1, Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{Text: "hello"}}}
	frames := make(chan *Frame)
	var done sync.WaitGroup
	var failed atomic.Value
	for range shards {
		go func() {
			for f := range frames {
				for range streams / shards {
					if b, err := f.Encoded("proto", marshal); len(b) == 0 || err != nil {
						failed.Store(fmt.Sprintf("encoded: %d bytes, %v", len(b), err))
					}
				}
				done.Done()
			}
		}()
	}
	defer close(frames)
	b.ResetTimer()
	for range b.N {
		f := NewFrame(ev)
		done.Add(shards)
		for range shards {
			frames <- f
		}
		done.Wait()
	}
	b.StopTimer()
	if msg := failed.Load(); msg != nil {
		b.Fatal(msg)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*streams), "ns/stream")
}
