package main

import "time"

// pacer schedules one sender's messages on a fixed grid, start + n*interval, so the offered
// rate does not sag when the server slows down (an open loop: a slow answer delays the sends
// behind it, which then go out at once to catch up). A sender more than maxLag behind gives up
// the slots it missed rather than bursting into the rate limit; they are counted as skipped.
// An interval of 0 means no pacing: send as soon as the previous answer is in.
type pacer struct {
	start    time.Time
	interval time.Duration
	maxLag   time.Duration
	n        int64
}

// next returns when the next message is due and how many slots were skipped to get there.
func (p *pacer) next(now time.Time) (due time.Time, skipped int64) {
	if p.interval <= 0 {
		return now, 0
	}
	due = p.start.Add(time.Duration(p.n) * p.interval)
	if lag := now.Sub(due); lag > p.maxLag {
		// Jump to the newest slot that is due now.
		skipped = int64(lag / p.interval)
		p.n += skipped
		due = p.start.Add(time.Duration(p.n) * p.interval)
	}
	p.n++
	return due, skipped
}

// senderSchedule spreads senders evenly over the first interval, so that S senders at r
// messages a second each make one smooth stream of S*r rather than S bursts.
func senderSchedule(start time.Time, senders, i int, perSender float64, maxLag time.Duration) *pacer {
	if perSender <= 0 {
		return &pacer{start: start}
	}
	interval := time.Duration(float64(time.Second) / perSender)
	offset := time.Duration(int64(interval) * int64(i) / int64(senders))
	return &pacer{start: start.Add(offset), interval: interval, maxLag: maxLag}
}
