package main

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// hist is a log-linear latency histogram in microseconds: values below 256 µs are exact, and
// above that every power of two is split into 128 buckets, so a percentile is off by less than
// 1%. Recording is one atomic add, safe from any number of goroutines; 1.5 million deliveries
// cost the same few kilobytes as ten.
type hist struct {
	counts [histBuckets]atomic.Uint64
	n      atomic.Uint64
	max    atomic.Int64 // in microseconds
}

const (
	histSubBits = 7                  // log2 of the buckets per power of two
	histSub     = 1 << histSubBits   // buckets per power of two
	histDirect  = 2 * histSub        // values below this have a bucket each
	histBuckets = histSub * (2 + 36) // up to 2^43 µs, far beyond any bounded run
	histTopUS   = int64(1)<<43 - 1   // larger values are clamped
)

// bucketOf maps a value in µs to its bucket.
func bucketOf(us int64) int {
	if us < 0 {
		us = 0
	}
	if us > histTopUS {
		us = histTopUS
	}
	if us < histDirect {
		return int(us)
	}
	shift := bits.Len64(uint64(us)) - histSubBits - 1
	return (shift+1)*histSub + int(us>>shift) - histSub
}

// bucketBounds is the range [lo, hi] of values in a bucket.
func bucketBounds(b int) (lo, hi int64) {
	if b < histDirect {
		return int64(b), int64(b)
	}
	shift := b/histSub - 1
	lo = int64(b%histSub+histSub) << shift
	return lo, lo + int64(1)<<shift - 1
}

func (h *hist) record(d time.Duration) {
	us := d.Microseconds()
	h.counts[bucketOf(us)].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if us <= m || h.max.CompareAndSwap(m, us) {
			return
		}
	}
}

func (h *hist) count() uint64 { return h.n.Load() }

// quantile returns the value at quantile q (0..1): the middle of the bucket that holds it, and
// never more than the largest value recorded.
func (h *hist) quantile(q float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n) + 0.5)
	rank = max(rank, 1)
	rank = min(rank, n)
	var seen uint64
	for b := range h.counts {
		seen += h.counts[b].Load()
		if seen >= rank {
			lo, hi := bucketBounds(b)
			v := min((lo+hi)/2, h.max.Load())
			return time.Duration(v) * time.Microsecond
		}
	}
	return time.Duration(h.max.Load()) * time.Microsecond
}

func (h *hist) maxValue() time.Duration { return time.Duration(h.max.Load()) * time.Microsecond }

// latency is a histogram's summary as reported, in milliseconds.
type latency struct {
	Count uint64  `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

func (h *hist) summary() latency {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return latency{
		Count: h.count(),
		P50:   ms(h.quantile(0.50)),
		P90:   ms(h.quantile(0.90)),
		P99:   ms(h.quantile(0.99)),
		Max:   ms(h.maxValue()),
	}
}
