package web

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// GetServerStatus is the admins' status screen (engine/status.go).
func (s *serverService) GetServerStatus(ctx context.Context, r *connect.Request[svcv1.GetServerStatusRequest]) (*connect.Response[svcv1.GetServerStatusResponse], error) {
	return call(ctx, r, s.eng.GetServerStatus)
}
