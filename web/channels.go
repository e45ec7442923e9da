package web

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// ChatService: DMs, private channel members, channel access and joining TEXT channels.

func (s *chatService) OpenDM(ctx context.Context, r *connect.Request[svcv1.OpenDMRequest]) (*connect.Response[svcv1.OpenDMResponse], error) {
	return call(ctx, r, s.eng.OpenDM)
}

func (s *chatService) AddChannelMembers(ctx context.Context, r *connect.Request[svcv1.AddChannelMembersRequest]) (*connect.Response[svcv1.AddChannelMembersResponse], error) {
	return call(ctx, r, s.eng.AddChannelMembers)
}

func (s *chatService) RemoveChannelMember(ctx context.Context, r *connect.Request[svcv1.RemoveChannelMemberRequest]) (*connect.Response[svcv1.RemoveChannelMemberResponse], error) {
	return call(ctx, r, s.eng.RemoveChannelMember)
}

func (s *chatService) SetChannelAccess(ctx context.Context, r *connect.Request[svcv1.SetChannelAccessRequest]) (*connect.Response[svcv1.SetChannelAccessResponse], error) {
	return call(ctx, r, s.eng.SetChannelAccess)
}

func (s *chatService) BrowseChannels(ctx context.Context, r *connect.Request[svcv1.BrowseChannelsRequest]) (*connect.Response[svcv1.BrowseChannelsResponse], error) {
	return call(ctx, r, s.eng.BrowseChannels)
}

func (s *chatService) JoinChannel(ctx context.Context, r *connect.Request[svcv1.JoinChannelRequest]) (*connect.Response[svcv1.JoinChannelResponse], error) {
	return call(ctx, r, s.eng.JoinChannel)
}

func (s *chatService) LeaveChannel(ctx context.Context, r *connect.Request[svcv1.LeaveChannelRequest]) (*connect.Response[svcv1.LeaveChannelResponse], error) {
	return call(ctx, r, s.eng.LeaveChannel)
}
