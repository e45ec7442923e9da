package metrics

import "github.com/prometheus/client_golang/prometheus"

// pushMetrics count what became of the Web Push notifications (engine/notify).
type pushMetrics struct {
	sent    prometheus.Counter
	failed  *prometheus.CounterVec
	dropped prometheus.Counter
}

// pushFailures are the reasons notify.Observer reports a push failed for.
var pushFailures = []string{"gone", "rejected", "refused", "retries", "error"}

func newPushMetrics(reg *prometheus.Registry) pushMetrics {
	p := pushMetrics{
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hearth_push_sent_total",
			Help: "Web Push notifications the push service accepted.",
		}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_push_failed_total",
			Help: "Web Push notifications that failed for good, by reason: gone (404/410, the subscription was removed; or removed or taken over while the push waited), rejected (another 4xx), refused (the address policy), retries (429, 5xx or no answer, every try used), error.",
		}, []string{"reason"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hearth_push_dropped_total",
			Help: "Web Push notifications dropped because the queue, or the room for retries, was full.",
		}),
	}
	for _, r := range pushFailures {
		p.failed.WithLabelValues(r)
	}
	reg.MustRegister(p.sent, p.failed, p.dropped)
	return p
}

// PushSent implements notify.Observer.
func (m *Metrics) PushSent() { m.push.sent.Inc() }

// PushFailed implements notify.Observer.
func (m *Metrics) PushFailed(reason string) { m.push.failed.WithLabelValues(reason).Inc() }

// PushDropped implements notify.Observer.
func (m *Metrics) PushDropped() { m.push.dropped.Inc() }
