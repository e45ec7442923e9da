package metrics

import "github.com/prometheus/client_golang/prometheus"

// digestResults are the results notify.Observer reports a digest's email with.
var digestResults = []string{"sent", "failed"}

func newDigestMetrics(reg *prometheus.Registry) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_digest_emails_total",
		Help: "Email digests by result: sent (the mail server took it), failed (it did not; tried again in 10 minutes, 3 tries in all).",
	}, []string{"result"})
	for _, r := range digestResults {
		c.WithLabelValues(r)
	}
	reg.MustRegister(c)
	return c
}

// DigestEmail implements notify.Observer.
func (m *Metrics) DigestEmail(result string) { m.digests.WithLabelValues(result).Inc() }
