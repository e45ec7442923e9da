package web

import (
	"context"
	"errors"
	"net/url"

	"connectrpc.com/connect"

	"hearth/engine"
	"hearth/engine/voice"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// voiceService is VoiceService (EXTENSIONS.md 10): the engine keeps who is in which voice
// channel, the voice server (engine/voice) the sessions and their media. Without a voice
// server (-voice-port 0, a nil *voice.Server) its calls answer unavailable, but for
// ListVoiceStates.
type voiceService struct {
	eng   *engine.Engine
	voice *voice.Server
}

func (s *voiceService) JoinVoice(ctx context.Context, r *connect.Request[svcv1.JoinVoiceRequest]) (*connect.Response[svcv1.JoinVoiceResponse], error) {
	return call(ctx, r, s.voice.JoinVoice)
}

func (s *voiceService) Answer(ctx context.Context, r *connect.Request[svcv1.AnswerRequest]) (*connect.Response[svcv1.AnswerResponse], error) {
	return call(ctx, r, s.voice.Answer)
}

func (s *voiceService) AddIceCandidate(ctx context.Context, r *connect.Request[svcv1.AddIceCandidateRequest]) (*connect.Response[svcv1.AddIceCandidateResponse], error) {
	return call(ctx, r, s.voice.AddIceCandidate)
}

func (s *voiceService) RestartIce(ctx context.Context, r *connect.Request[svcv1.RestartIceRequest]) (*connect.Response[svcv1.RestartIceResponse], error) {
	return call(ctx, r, s.voice.RestartIce)
}

func (s *voiceService) SetVoiceState(ctx context.Context, r *connect.Request[svcv1.SetVoiceStateRequest]) (*connect.Response[svcv1.SetVoiceStateResponse], error) {
	return call(ctx, r, s.voice.SetVoiceState)
}

func (s *voiceService) LeaveVoice(ctx context.Context, r *connect.Request[svcv1.LeaveVoiceRequest]) (*connect.Response[svcv1.LeaveVoiceResponse], error) {
	return call(ctx, r, s.voice.LeaveVoice)
}

func (s *voiceService) ListVoiceStates(ctx context.Context, r *connect.Request[svcv1.ListVoiceStatesRequest]) (*connect.Response[svcv1.ListVoiceStatesResponse], error) {
	return call(ctx, r, s.eng.ListVoiceStates)
}

func (s *voiceService) Signal(ctx context.Context, r *connect.Request[svcv1.SignalRequest], stream *connect.ServerStream[svcv1.SignalEvent]) error {
	requestLogOf(ctx).streamOpened(ctx, svcv1connect.VoiceServiceSignalProcedure)
	err := s.voice.Signal(ctx, callerOf(ctx), r.Msg, stream.Send)
	if errors.Is(err, context.Canceled) {
		// The client went away: nobody is left to answer.
		return nil
	}
	noteCause(ctx, err)
	return toConnect(err)
}

// openVoice starts the voice server of cfg, or none when cfg.Voice.Addr is empty. The TURN
// URLs name the base URL's host unless the options say otherwise.
func openVoice(cfg Config, opts engine.Options, eng *engine.Engine) (*voice.Server, error) {
	v := cfg.Voice
	if v.Addr == "" && v.UDP == nil {
		return nil, nil
	}
	if v.Host == "" {
		if u, err := url.Parse(opts.BaseURL); err == nil {
			v.Host = u.Hostname()
		}
	}
	if v.Log == nil {
		v.Log = opts.Log
	}
	return voice.New(eng, v)
}
