package webtest

import (
	"time"

	"hearth/engine"
	"hearth/engine/outbound"
)

// WithPreviewAllowPrivate is -preview-allow-private: link previews may fetch the tests'
// loopback page servers, on any port.
func WithPreviewAllowPrivate() Option {
	return WithPreviewPolicy(outbound.Policy{AllowPrivate: true, AnyPort: true})
}

// WithPreviewPolicy sets the address policy of link previews (outbound.Public by default,
// as a server without -preview-allow-private). Its Exceptions let a test serve "public"
// pages from loopback.
func WithPreviewPolicy(p outbound.Policy) Option {
	return func(o *engine.Options) { o.PreviewPolicy = p }
}

// WithPreviewTimeout bounds each request of a link preview (5 s by default).
func WithPreviewTimeout(d time.Duration) Option {
	return func(o *engine.Options) { o.PreviewTimeout = d }
}
