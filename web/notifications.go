package web

import (
	"context"

	"connectrpc.com/connect"

	"hearth/auth"
	"hearth/engine"
	"hearth/engine/mail"
	"hearth/engine/notify"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/metrics"
)

// notificationService is NotificationService: Web Push subscriptions and notification
// preferences (EXTENSIONS.md 7). The engine keeps both; the notifier holds the VAPID key.
type notificationService struct {
	eng    *engine.Engine
	notify *notify.Service
}

func (s *notificationService) GetPushConfig(ctx context.Context, r *connect.Request[svcv1.GetPushConfigRequest]) (*connect.Response[svcv1.GetPushConfigResponse], error) {
	return call(ctx, r, func(context.Context, engine.Caller, *svcv1.GetPushConfigRequest) (*svcv1.GetPushConfigResponse, error) {
		if s.notify == nil {
			return nil, &engine.Error{Code: engine.CodeUnavailable, Msg: "this server does not send push notifications"}
		}
		return &svcv1.GetPushConfigResponse{VapidPublicKey: s.notify.PublicKey()}, nil
	})
}

func (s *notificationService) AddPushSubscription(ctx context.Context, r *connect.Request[svcv1.AddPushSubscriptionRequest]) (*connect.Response[svcv1.AddPushSubscriptionResponse], error) {
	return call(ctx, r, s.eng.AddPushSubscription)
}

func (s *notificationService) ListPushSubscriptions(ctx context.Context, r *connect.Request[svcv1.ListPushSubscriptionsRequest]) (*connect.Response[svcv1.ListPushSubscriptionsResponse], error) {
	return call(ctx, r, s.eng.ListPushSubscriptions)
}

func (s *notificationService) RemovePushSubscription(ctx context.Context, r *connect.Request[svcv1.RemovePushSubscriptionRequest]) (*connect.Response[svcv1.RemovePushSubscriptionResponse], error) {
	return call(ctx, r, s.eng.RemovePushSubscription)
}

func (s *notificationService) GetNotificationPrefs(ctx context.Context, r *connect.Request[svcv1.GetNotificationPrefsRequest]) (*connect.Response[svcv1.GetNotificationPrefsResponse], error) {
	return call(ctx, r, func(ctx context.Context, c engine.Caller, req *svcv1.GetNotificationPrefsRequest) (*svcv1.GetNotificationPrefsResponse, error) {
		res, err := s.eng.GetNotificationPrefs(ctx, c, req)
		if err != nil || s.notify == nil {
			return res, err
		}
		// Whether prefs.email can mail anything, for the client's switch.
		res.MailEnabled, res.EmailAddress, err = s.notify.DigestAddress(ctx, c.ID)
		return res, err
	})
}

func (s *notificationService) SetNotificationPrefs(ctx context.Context, r *connect.Request[svcv1.SetNotificationPrefsRequest]) (*connect.Response[svcv1.SetNotificationPrefsResponse], error) {
	return call(ctx, r, s.eng.SetNotificationPrefs)
}

// openNotify starts the notifier of a server on cfg: with a mailer and the built-in issuer, it
// mails digests to the issuer's verified addresses (members of other issuers have none).
func openNotify(cfg Config, opts engine.Options, eng *engine.Engine, m *metrics.Metrics, mailer *mail.Mailer, signIn *auth.Provider) (*notify.Service, error) {
	n := cfg.Notify
	if mailer != nil && signIn != nil {
		n.Mailer, n.Address = mailer, signIn.VerifiedEmail
	}
	if n.Dir == "" {
		n.Dir = cfg.Data
	}
	if n.WebURL == "" {
		n.WebURL = cfg.WebURL
	}
	n.Policy = opts.PushPolicy
	if n.Version == "" {
		n.Version = opts.Version
	}
	if n.Clock == nil {
		n.Clock = opts.Clock
	}
	if n.Log == nil {
		n.Log = opts.Log
	}
	if n.Observer == nil && m != nil {
		n.Observer = m
	}
	return notify.New(eng, n)
}
