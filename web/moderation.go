package web

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// The ServerService handlers of membership, moderation, reports, invites and ranks: one line
// each, like the rest (services.go).

func (s *serverService) LeaveCommunity(ctx context.Context, r *connect.Request[svcv1.LeaveCommunityRequest]) (*connect.Response[svcv1.LeaveCommunityResponse], error) {
	return call(ctx, r, s.eng.LeaveCommunity)
}

func (s *serverService) KickMember(ctx context.Context, r *connect.Request[svcv1.KickMemberRequest]) (*connect.Response[svcv1.KickMemberResponse], error) {
	return call(ctx, r, s.eng.KickMember)
}

func (s *serverService) BanMember(ctx context.Context, r *connect.Request[svcv1.BanMemberRequest]) (*connect.Response[svcv1.BanMemberResponse], error) {
	return call(ctx, r, s.eng.BanMember)
}

func (s *serverService) UnbanMember(ctx context.Context, r *connect.Request[svcv1.UnbanMemberRequest]) (*connect.Response[svcv1.UnbanMemberResponse], error) {
	return call(ctx, r, s.eng.UnbanMember)
}

func (s *serverService) ListBans(ctx context.Context, r *connect.Request[svcv1.ListBansRequest]) (*connect.Response[svcv1.ListBansResponse], error) {
	return call(ctx, r, s.eng.ListBans)
}

func (s *serverService) BlockMember(ctx context.Context, r *connect.Request[svcv1.BlockMemberRequest]) (*connect.Response[svcv1.BlockMemberResponse], error) {
	return call(ctx, r, s.eng.BlockMember)
}

func (s *serverService) UnblockMember(ctx context.Context, r *connect.Request[svcv1.UnblockMemberRequest]) (*connect.Response[svcv1.UnblockMemberResponse], error) {
	return call(ctx, r, s.eng.UnblockMember)
}

func (s *serverService) MuteMember(ctx context.Context, r *connect.Request[svcv1.MuteMemberRequest]) (*connect.Response[svcv1.MuteMemberResponse], error) {
	return call(ctx, r, s.eng.MuteMember)
}

func (s *serverService) UnmuteMember(ctx context.Context, r *connect.Request[svcv1.UnmuteMemberRequest]) (*connect.Response[svcv1.UnmuteMemberResponse], error) {
	return call(ctx, r, s.eng.UnmuteMember)
}

func (s *serverService) ReportMessage(ctx context.Context, r *connect.Request[svcv1.ReportMessageRequest]) (*connect.Response[svcv1.ReportMessageResponse], error) {
	return call(ctx, r, s.eng.ReportMessage)
}

func (s *serverService) ListReports(ctx context.Context, r *connect.Request[svcv1.ListReportsRequest]) (*connect.Response[svcv1.ListReportsResponse], error) {
	return call(ctx, r, s.eng.ListReports)
}

func (s *serverService) ResolveReport(ctx context.Context, r *connect.Request[svcv1.ResolveReportRequest]) (*connect.Response[svcv1.ResolveReportResponse], error) {
	return call(ctx, r, s.eng.ResolveReport)
}

func (s *serverService) CreateInvite(ctx context.Context, r *connect.Request[svcv1.CreateInviteRequest]) (*connect.Response[svcv1.CreateInviteResponse], error) {
	return call(ctx, r, s.eng.CreateInvite)
}

func (s *serverService) ListInvites(ctx context.Context, r *connect.Request[svcv1.ListInvitesRequest]) (*connect.Response[svcv1.ListInvitesResponse], error) {
	return call(ctx, r, s.eng.ListInvites)
}

func (s *serverService) RevokeInvite(ctx context.Context, r *connect.Request[svcv1.RevokeInviteRequest]) (*connect.Response[svcv1.RevokeInviteResponse], error) {
	return call(ctx, r, s.eng.RevokeInvite)
}

func (s *serverService) SetMemberRole(ctx context.Context, r *connect.Request[svcv1.SetMemberRoleRequest]) (*connect.Response[svcv1.SetMemberRoleResponse], error) {
	return call(ctx, r, s.eng.SetMemberRole)
}
