package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestHistogramBuckets: every value falls in a bucket whose bounds hold it, buckets are in
// order, and a bucket is never wider than 1/128 of its values.
func TestHistogramBuckets(t *testing.T) {
	prev := -1
	for _, us := range []int64{0, 1, 127, 255, 256, 257, 511, 512, 1000, 4095, 4096, 123456, 1 << 30, histTopUS} {
		b := bucketOf(us)
		lo, hi := bucketBounds(b)
		if us < lo || us > hi {
			t.Errorf("%d µs in bucket %d [%d, %d]", us, b, lo, hi)
		}
		if b < prev || b >= histBuckets {
			t.Errorf("%d µs: bucket %d after %d (of %d)", us, b, prev, histBuckets)
		}
		if float64(hi-lo) > float64(lo)/histSub {
			t.Errorf("bucket %d [%d, %d] is too wide", b, lo, hi)
		}
		prev = b
	}
	if bucketOf(-5) != 0 || bucketOf(math.MaxInt64) != bucketOf(histTopUS) {
		t.Error("values out of range are not clamped")
	}
}

// TestPercentiles: against exact percentiles of random latencies, within 1%.
func TestPercentiles(t *testing.T) {
	var h hist
	if h.quantile(0.99) != 0 || h.summary().Count != 0 {
		t.Fatal("an empty histogram reports values")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]time.Duration, 100_000)
	for i := range vals {
		// Log-normal-ish: most around a few ms, a long tail.
		vals[i] = time.Duration(math.Exp(rng.NormFloat64()*1.2+8)) * time.Microsecond
		h.record(vals[i])
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := vals[int(q*float64(len(vals)))-1]
		got := h.quantile(q)
		if d := math.Abs(float64(got-exact)) / float64(exact); d > 0.01 {
			t.Errorf("p%g = %s, exact %s (off by %.2f%%)", q*100, got, exact, d*100)
		}
	}
	if h.maxValue() != vals[len(vals)-1].Truncate(time.Microsecond) {
		t.Errorf("max %s, want %s", h.maxValue(), vals[len(vals)-1])
	}
	s := h.summary()
	if s.Count != 100_000 || !(s.P50 <= s.P90 && s.P90 <= s.P99 && s.P99 <= s.Max) {
		t.Errorf("summary %+v", s)
	}
}

// TestPercentileOfOneValue: a single sample is every percentile, never more than itself.
func TestPercentileOfOneValue(t *testing.T) {
	var h hist
	h.record(1234567 * time.Microsecond)
	for _, q := range []float64{0, 0.5, 1} {
		if got := h.quantile(q); got > 1234567*time.Microsecond || got < 1224000*time.Microsecond {
			t.Errorf("p%g of one value = %s", q*100, got)
		}
	}
}
