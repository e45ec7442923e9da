package sandbox

import (
	"context"
	"testing"
)

// BenchmarkInspect is one call at a normal rate: the pool is full when it starts, as it
// is whenever calls come less often than the pool refills (one start per several ms).
func BenchmarkInspect(b *testing.B) {
	s := newSandbox(b, Options{})
	head := encodePNG(b, 640, 480)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		waitPoolFull(b, s)
		b.StartTimer()
		if _, err := s.Inspect(ctx, head); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTakeFromPool is the part of BenchmarkInspect spent getting an instance.
func BenchmarkTakeFromPool(b *testing.B) {
	s := newSandbox(b, Options{})
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		waitPoolFull(b, s)
		b.StartTimer()
		inst, err := s.take(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		inst.drop(ErrClosed)
		b.StartTimer()
	}
}

// BenchmarkInspectNoPool starts a fresh guest for every call.
func BenchmarkInspectNoPool(b *testing.B) {
	s := newSandbox(b, Options{Pool: -1})
	head := encodePNG(b, 640, 480)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Inspect(ctx, head); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInspectBurst is calls back to back from many goroutines: the pool drains and
// the throughput is that of starting guests on every core.
func BenchmarkInspectBurst(b *testing.B) {
	s := newSandbox(b, Options{})
	head := encodePNG(b, 640, 480)
	ctx := context.Background()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Inspect(ctx, head); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
