package web

import (
	"context"

	"connectrpc.com/connect"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// The plugin calls of BotService: the plugin host (engine/plugins) does the work.

// errNoPlugins answers the plugin calls of a server assembled without a plugin host.
var errNoPlugins = &engine.Error{Code: engine.CodeUnavailable, Msg: "this server runs no plugins"}

func (s *botService) ListPlugins(ctx context.Context, r *connect.Request[svcv1.ListPluginsRequest]) (*connect.Response[svcv1.ListPluginsResponse], error) {
	if s.plugins == nil {
		return nil, toConnect(errNoPlugins)
	}
	return call(ctx, r, s.plugins.List)
}

func (s *botService) InstallPlugin(ctx context.Context, r *connect.Request[svcv1.InstallPluginRequest]) (*connect.Response[svcv1.InstallPluginResponse], error) {
	if s.plugins == nil {
		return nil, toConnect(errNoPlugins)
	}
	return call(ctx, r, s.plugins.Install)
}

func (s *botService) SetPluginEnabled(ctx context.Context, r *connect.Request[svcv1.SetPluginEnabledRequest]) (*connect.Response[svcv1.SetPluginEnabledResponse], error) {
	if s.plugins == nil {
		return nil, toConnect(errNoPlugins)
	}
	return call(ctx, r, s.plugins.SetEnabled)
}

func (s *botService) DeletePlugin(ctx context.Context, r *connect.Request[svcv1.DeletePluginRequest]) (*connect.Response[svcv1.DeletePluginResponse], error) {
	if s.plugins == nil {
		return nil, toConnect(errNoPlugins)
	}
	return call(ctx, r, s.plugins.Delete)
}
