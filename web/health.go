package web

import (
	"context"
	"errors"
	"net/http"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	"hearth/engine"
	"hearth/proto/svc/v1/svcv1connect"
)

// What an operator's tools need, on the main port and without a token: /healthz for load
// balancers and container health checks, the gRPC health service for gRPC-aware ones, and gRPC
// server reflection, so that grpcurl, buf curl and Postman work without the .proto files.

// services are the API's services, as reflection and health name them.
var services = []string{
	svcv1connect.ChatServiceName,
	svcv1connect.ServerServiceName,
	svcv1connect.BotServiceName,
	svcv1connect.NotificationServiceName,
	svcv1connect.VoiceServiceName,
}

// maxHealthRequestBytes bounds a health or reflection request: they are names, nothing more.
const maxHealthRequestBytes = 64 << 10

// mountHealth serves /healthz and gRPC's health and reflection services; opts are the tool
// calls' handler options (the metrics' interceptor, when metrics are on).
func mountHealth(mux *http.ServeMux, eng *engine.Engine, opts ...connect.HandlerOption) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := eng.Healthy(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("unavailable: " + engineMessage(err) + "\n"))
			return
		}
		w.Write([]byte("ok"))
	})
	opts = append(opts, connect.WithReadMaxBytes(maxHealthRequestBytes))
	mux.Handle(grpchealth.NewHandler(healthChecker{eng}, opts...))
	reflector := grpcreflect.NewStaticReflector(services...)
	mux.Handle(grpcreflect.NewHandlerV1(reflector, opts...))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector, opts...))
}

// healthChecker answers for the whole server ("") and each of its services alike: they all
// stand or fall with the database.
type healthChecker struct{ eng *engine.Engine }

func (h healthChecker) Check(ctx context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	known := req.Service == ""
	for _, s := range services {
		known = known || req.Service == s
	}
	if !known {
		return nil, connect.NewError(connect.CodeNotFound, errors.New("unknown service "+req.Service))
	}
	if h.eng.Healthy() != nil {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}

// engineMessage is an engine error's message for an operator.
func engineMessage(err error) string {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return ee.Msg
	}
	return err.Error()
}
