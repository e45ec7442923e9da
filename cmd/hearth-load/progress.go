package main

import (
	"fmt"
	"time"
)

// progress prints a line a second to cfg.Progress (when set) and keeps the peak acknowledged
// sends and deliveries per second. It returns the function that stops it.
func (r *run) progress() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		start := time.Now()
		var lastAcked, lastDeliveries int64
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				acked, deliveries := r.acked.Load(), r.deliveries.Load()
				dAcked, dDeliveries := acked-lastAcked, deliveries-lastDeliveries
				lastAcked, lastDeliveries = acked, deliveries
				phase := r.phase.Load().(string)
				if phase == "send" || phase == "drain" {
					raise(&r.peakAcked, dAcked)
					raise(&r.peakDeliveries, dDeliveries)
				}
				if r.cfg.Progress != nil {
					fmt.Fprintf(r.cfg.Progress, "[%4.0fs] %s\n", now.Sub(start).Seconds(), r.progressLine(phase, dAcked, dDeliveries))
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

func raise(peak interface {
	Load() int64
	CompareAndSwap(old, new int64) bool
}, v int64) {
	for {
		p := peak.Load()
		if v <= p || peak.CompareAndSwap(p, v) {
			return
		}
	}
}

func (r *run) progressLine(phase string, dAcked, dDeliveries int64) string {
	switch phase {
	case "join":
		return fmt.Sprintf("join   %d of %d members (%d new, %d from an earlier run), errors %d",
			r.joined.Load()+r.reused.Load(), len(r.members), r.joined.Load(), r.reused.Load(), r.errs.total())
	case "open":
		return fmt.Sprintf("open   %d of %d streams, %d failed", r.streams.opened.Load(), r.cfg.Subscribers, r.streams.failed.Load())
	case "send", "drain":
		return fmt.Sprintf("%-6s sent %d, acked %d (%d/s), failed %d | deliveries %d (%d/s) | p99 send %s, delivery %s | streams ended %d",
			phase, r.sent.Load(), r.acked.Load(), dAcked, r.failed.Load(), r.deliveries.Load(), dDeliveries,
			ms(r.sendLat.quantile(0.99)), ms(r.deliveryLat.quantile(0.99)), r.streams.ended.Load())
	}
	return phase
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
