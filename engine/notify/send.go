package notify

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/SherClockHolmes/webpush-go"

	"hearth/engine/outbound"
	"hearth/engine/store/storepb"
)

// job is one push to one subscription.
type job struct {
	sub     *storepb.PushSubscriptionRecord
	body    []byte
	urgency webpush.Urgency
	topic   string
	// first is when the push was first queued; tries counts the tries made.
	first time.Time
	tries int
}

// enqueue hands a push to the workers, or drops it when the queue is full.
func (s *Service) enqueue(j *job) {
	select {
	case s.queue <- j:
	default:
		s.dropped()
		s.log.Warn("push dropped: the queue is full", "queue", cap(s.queue))
	}
}

// work sends the pushes of the queue until Close.
func (s *Service) work() {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case j := <-s.queue:
			s.send(j)
		}
	}
}

// send makes one try of a push and acts on the answer. The subscription is read again first:
// a push waits in the queue or for its retry while the member may remove the device, or the
// device may pass to another member (the same browser subscribed by them), and it must then
// reach nobody.
func (s *Service) send(j *job) {
	cur, err := s.eng.CurrentPushSubscription(j.sub)
	if err != nil {
		s.log.Warn("reading a push subscription", "err", err)
		s.failed("error")
		return
	}
	if cur == nil {
		s.log.Debug("push given up: the subscription left the member's list", "tries", j.tries)
		s.failed("gone")
		return
	}
	j.sub = cur
	j.tries++
	res, err := webpush.SendNotificationWithContext(s.ctx, j.body, &webpush.Subscription{
		Endpoint: j.sub.GetEndpoint(),
		Keys: webpush.Keys{
			Auth:   base64.RawURLEncoding.EncodeToString(j.sub.GetAuth()),
			P256dh: base64.RawURLEncoding.EncodeToString(j.sub.GetP256Dh()),
		},
	}, &webpush.Options{
		HTTPClient:      s.client.HTTPClient(),
		Subscriber:      s.sub,
		Topic:           j.topic,
		TTL:             ttl,
		Urgency:         j.urgency,
		VAPIDPublicKey:  s.keys.public,
		VAPIDPrivateKey: s.keys.private,
	})
	if s.ctx.Err() != nil {
		if res != nil {
			res.Body.Close()
		}
		return
	}
	if err != nil {
		if errors.Is(err, outbound.ErrRefused) {
			s.log.Warn("push refused by the address policy", "err", err)
			s.failed("refused")
			return
		}
		s.retry(j, 0, "no answer from the push service", err)
		return
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	switch code := res.StatusCode; {
	case code >= 200 && code < 300:
		s.sent()
		now := s.clock.Now()
		s.log.Debug("push sent", "after", now.Sub(j.first), "tries", j.tries)
		if err := s.eng.PushSucceeded(j.sub, now); err != nil {
			s.log.Warn("recording a push", "err", err)
		}
	case code == http.StatusNotFound || code == http.StatusGone:
		s.failed("gone")
		if err := s.eng.DropPushSubscription(j.sub); err != nil {
			s.log.Warn("removing a push subscription the push service says is gone", "err", err)
		}
	case code == http.StatusTooManyRequests || code >= 500:
		s.retry(j, retryAfter(res.Header.Get("Retry-After")), "the push service answered "+strconv.Itoa(code), nil)
	default:
		s.log.Warn("push rejected by the push service", "status", code)
		s.failed("rejected")
	}
}

// retry queues another try of a push after its backoff (or the push service's Retry-After,
// when longer), unless its tries are used up or would fall past the retry window.
func (s *Service) retry(j *job, after time.Duration, why string, err error) {
	if j.tries > len(s.opts.Retries) {
		s.log.Warn("push given up", "why", why, "err", err, "tries", j.tries)
		s.failed("retries")
		return
	}
	wait := max(s.opts.Retries[j.tries-1], after)
	if s.clock.Now().Add(wait).Sub(j.first) > retryWindow {
		s.log.Warn("push given up: the push service asks to wait past the retry window", "why", why, "wait", wait)
		s.failed("retries")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if len(s.timers) >= s.opts.QueueSize {
		// A push service that fails everything must not make the retries grow without end.
		s.dropped()
		s.log.Warn("push dropped: too many pushes wait for a retry", "waiting", len(s.timers))
		return
	}
	s.timers[j] = s.clock.AfterFunc(wait, func() {
		s.mu.Lock()
		delete(s.timers, j)
		closed := s.closed
		s.mu.Unlock()
		if !closed {
			s.enqueue(j)
		}
	})
}

// retryAfter reads a Retry-After header given in seconds (0 when absent or a date).
func retryAfter(h string) time.Duration {
	n, err := strconv.Atoi(h)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(min(n, 3600)) * time.Second
}
