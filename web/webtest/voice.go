package webtest

import (
	"testing"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/engine/voice"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
)

// StartVoice is Start with voice on a free loopback port (as -voice-port does); change, if not
// nil, changes the voice options.
func StartVoice(t testing.TB, change func(*voice.Options), options ...Option) *Server {
	t.Helper()
	return StartConfig(t, func(c *web.Config) {
		c.Voice = voice.Options{Addr: "127.0.0.1:0"}
		if change != nil {
			change(&c.Voice)
		}
	}, options...)
}

// Voice is VoiceService as c calls it.
func (s *Server) Voice(c *Client) svcv1connect.VoiceServiceClient {
	return svcv1connect.NewVoiceServiceClient(HTTPClient(), s.URL, connect.WithInterceptors(auth.WithBearer(c.Token)))
}
