package web

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// ServerService: custom roles.

func (s *serverService) CreateRole(ctx context.Context, r *connect.Request[svcv1.CreateRoleRequest]) (*connect.Response[svcv1.CreateRoleResponse], error) {
	return call(ctx, r, s.eng.CreateRole)
}

func (s *serverService) UpdateRole(ctx context.Context, r *connect.Request[svcv1.UpdateRoleRequest]) (*connect.Response[svcv1.UpdateRoleResponse], error) {
	return call(ctx, r, s.eng.UpdateRole)
}

func (s *serverService) DeleteRole(ctx context.Context, r *connect.Request[svcv1.DeleteRoleRequest]) (*connect.Response[svcv1.DeleteRoleResponse], error) {
	return call(ctx, r, s.eng.DeleteRole)
}

func (s *serverService) SetMemberRoles(ctx context.Context, r *connect.Request[svcv1.SetMemberRolesRequest]) (*connect.Response[svcv1.SetMemberRolesResponse], error) {
	return call(ctx, r, s.eng.SetMemberRoles)
}
