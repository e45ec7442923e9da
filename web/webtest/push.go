package webtest

import (
	"hearth/engine"
	"hearth/engine/outbound"
	"hearth/web/metrics"
)

// WithPushAllowPrivate lets push subscriptions name http endpoints on loopback
// (-push-allow-private), so that a test's own push service can take the pushes.
func WithPushAllowPrivate() Option {
	return func(o *engine.Options) { o.PushPolicy = outbound.Policy{AllowPrivate: true, AnyPort: true} }
}

// Metrics is the server's metrics (nil unless its web.Config asked for them).
func (s *Server) Metrics() *metrics.Metrics { return s.app.Metrics }
