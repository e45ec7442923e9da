package web

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// The ServerService handlers of timeouts, the audit log and the moderation settings
// (EXTENSIONS.md 6): one line each, like the rest (services.go).

func (s *serverService) TimeoutMember(ctx context.Context, r *connect.Request[svcv1.TimeoutMemberRequest]) (*connect.Response[svcv1.TimeoutMemberResponse], error) {
	return call(ctx, r, s.eng.TimeoutMember)
}

func (s *serverService) ListAuditLog(ctx context.Context, r *connect.Request[svcv1.ListAuditLogRequest]) (*connect.Response[svcv1.ListAuditLogResponse], error) {
	return call(ctx, r, s.eng.ListAuditLog)
}

func (s *serverService) GetModerationSettings(ctx context.Context, r *connect.Request[svcv1.GetModerationSettingsRequest]) (*connect.Response[svcv1.GetModerationSettingsResponse], error) {
	return call(ctx, r, s.eng.GetModerationSettings)
}

func (s *serverService) UpdateModerationSettings(ctx context.Context, r *connect.Request[svcv1.UpdateModerationSettingsRequest]) (*connect.Response[svcv1.UpdateModerationSettingsResponse], error) {
	return call(ctx, r, s.eng.UpdateModerationSettings)
}
