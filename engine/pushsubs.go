package engine

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"encoding/base64"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Web Push subscriptions (EXTENSIONS.md 7): the devices a member registered to get
// notifications with no tab open. Each is a row of its own under the member, indexed by its
// endpoint, which belongs to one subscription at a time. The notifier (engine/notify) reads
// them, removes those the push service says are gone and records when a push last went through.

// Push subscription limits.
const (
	pushSubsMax       = 10
	pushEndpointMax   = 2048
	pushDeviceNameMax = 64
	// pushSuccessEvery is how often last_success_ms is written at most: once a minute per
	// subscription, not once per push.
	pushSuccessEvery = time.Minute
)

// AddPushSubscription registers a device of the caller for Web Push.
func (e *Engine) AddPushSubscription(ctx context.Context, c Caller, req *svcv1.AddPushSubscriptionRequest) (*svcv1.AddPushSubscriptionResponse, error) {
	if err := e.checkPushEndpoint(req.GetEndpoint()); err != nil {
		return nil, err
	}
	p256dh, err := pushKey("p256dh", req.GetP256Dh(), 65)
	if err != nil {
		return nil, err
	}
	if _, err := ecdh.P256().NewPublicKey(p256dh); err != nil {
		return nil, invalid("p256dh is not an uncompressed point on the P-256 curve")
	}
	auth, err := pushKey("auth", req.GetAuth(), 16)
	if err != nil {
		return nil, err
	}
	if err := checkShownText("device_name", req.GetDeviceName(), pushDeviceNameMax); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.AddPushSubscriptionResponse, error) {
		if _, err := tx.Snap().caller(c); err != nil {
			return nil, err
		}
		sub := &storepb.PushSubscriptionRecord{
			Id:          uuid.Must(uuid.NewV7()).String(),
			MemberId:    c.ID,
			Endpoint:    req.GetEndpoint(),
			P256Dh:      p256dh,
			Auth:        auth,
			DeviceName:  req.GetDeviceName(),
			CreatedAtMs: tx.NowMs(),
		}
		prev, err := tx.read().PushSubscriptionByEndpoint(sub.Endpoint)
		switch {
		case err == nil && prev.GetMemberId() == c.ID:
			// The same device again (new keys, a new name): it keeps its id and its place.
			sub.Id, sub.CreatedAtMs = prev.GetId(), prev.GetCreatedAtMs()
		case err == nil:
			// The device now belongs to the caller: whoever had it no longer gets pushes there.
			if err := tx.mutate().DeletePushSubscription(prev); err != nil {
				return nil, err
			}
		case !isNotFound(err):
			return nil, err
		}
		if sub.Id != prev.GetId() {
			n := 0
			if err := tx.read().PushSubscriptions(c.ID, func(*storepb.PushSubscriptionRecord) error { n++; return nil }); err != nil {
				return nil, err
			}
			if n >= pushSubsMax {
				return nil, newError(CodeResourceExhausted, "you have %d push subscriptions; the limit is %d: remove one first", n, pushSubsMax)
			}
		}
		if err := tx.mutate().PutPushSubscription(sub); err != nil {
			return nil, err
		}
		return &svcv1.AddPushSubscriptionResponse{Id: sub.Id}, nil
	})
}

// checkPushEndpoint accepts an absolute https URL that the push policy lets the notifier reach
// (http too where it allows private addresses); the address a name resolves to is checked
// when a push is sent.
func (e *Engine) checkPushEndpoint(endpoint string) error {
	if endpoint == "" {
		return invalid("endpoint is required")
	}
	if err := checkBytes("endpoint", endpoint, pushEndpointMax); err != nil {
		return err
	}
	u, err := url.Parse(endpoint)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return invalid("endpoint must be an absolute https URL")
	}
	policy := e.opts.PushPolicy
	if u.Scheme != "https" && !(policy.AllowPrivate && u.Scheme == "http") {
		return invalid("endpoint must be an https URL")
	}
	if u.Fragment != "" {
		return invalid("endpoint must not have a fragment")
	}
	if err := policy.CheckURL(u); err != nil {
		return invalid("endpoint %.200s is not a push service this server may reach: %v", endpoint, err)
	}
	if h := strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")); !policy.AllowPrivate && (h == "localhost" || strings.HasSuffix(h, ".localhost")) {
		return invalid("endpoint %.200s is not a push service this server may reach: localhost is not public", endpoint)
	}
	return nil
}

// pushKey decodes a subscription key as a browser gives it (base64url, with or without
// padding; plain base64 is taken too) and checks its length.
func pushKey(field, s string, size int) ([]byte, error) {
	if s == "" {
		return nil, invalid("%s is required", field)
	}
	if len(s) > 200 {
		return nil, invalid("%s is %d characters; a %d-byte key is about %d", field, len(s), size, (size*4+2)/3)
	}
	t := strings.TrimRight(s, "=")
	t = strings.NewReplacer("+", "-", "/", "_").Replace(t)
	b, err := base64.RawURLEncoding.DecodeString(t)
	if err != nil {
		return nil, invalid("%s is not base64url", field)
	}
	if len(b) != size {
		return nil, invalid("%s is %d bytes; it must be %d", field, len(b), size)
	}
	return b, nil
}

// ListPushSubscriptions lists the caller's subscriptions, oldest first.
func (e *Engine) ListPushSubscriptions(ctx context.Context, c Caller, _ *svcv1.ListPushSubscriptionsRequest) (*svcv1.ListPushSubscriptionsResponse, error) {
	if _, err := e.snap.Load().caller(c); err != nil {
		return nil, err
	}
	out := &svcv1.ListPushSubscriptionsResponse{}
	err := e.db.View(func(r *store.Reader) error {
		return r.PushSubscriptions(c.ID, func(s *storepb.PushSubscriptionRecord) error {
			out.Subscriptions = append(out.Subscriptions, &svcv1.PushSubscription{
				Id:            s.GetId(),
				DeviceName:    s.GetDeviceName(),
				CreatedAtMs:   s.GetCreatedAtMs(),
				LastSuccessMs: s.GetLastSuccessMs(),
			})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RemovePushSubscription removes one of the caller's subscriptions.
func (e *Engine) RemovePushSubscription(ctx context.Context, c Caller, req *svcv1.RemovePushSubscriptionRequest) (*svcv1.RemovePushSubscriptionResponse, error) {
	id := req.GetId()
	if id == "" {
		return nil, invalid("id is required")
	}
	return submit(e, func(tx *Tx) (*svcv1.RemovePushSubscriptionResponse, error) {
		if _, err := tx.Snap().caller(c); err != nil {
			return nil, err
		}
		sub, err := tx.read().PushSubscription(c.ID, id)
		if isNotFound(err) {
			return nil, notFound("push subscription %.64s does not exist", id)
		}
		if err != nil {
			return nil, err
		}
		if err := tx.mutate().DeletePushSubscription(sub); err != nil {
			return nil, err
		}
		return &svcv1.RemovePushSubscriptionResponse{}, nil
	})
}

// PushSubscriptionsOf returns a member's subscriptions, for the notifier.
func (e *Engine) PushSubscriptionsOf(memberID string) ([]*storepb.PushSubscriptionRecord, error) {
	var out []*storepb.PushSubscriptionRecord
	err := e.db.View(func(r *store.Reader) error {
		return r.PushSubscriptions(memberID, func(s *storepb.PushSubscriptionRecord) error {
			out = append(out, s)
			return nil
		})
	})
	return out, err
}

// CurrentPushSubscription reads a subscription again before a push made for it is tried: nil
// when it is no longer there or no longer the same device (the member removed it, or the
// endpoint moved to another member, whose subscription has another id), so that no push
// reaches a device after it left the member's list. The record returned has the keys of now.
func (e *Engine) CurrentPushSubscription(sent *storepb.PushSubscriptionRecord) (*storepb.PushSubscriptionRecord, error) {
	var cur *storepb.PushSubscriptionRecord
	err := e.db.View(func(r *store.Reader) error {
		var err error
		cur, err = r.PushSubscription(sent.GetMemberId(), sent.GetId())
		return err
	})
	if isNotFound(err) || (err == nil && cur.GetEndpoint() != sent.GetEndpoint()) {
		return nil, nil
	}
	return cur, err
}

// DropPushSubscription removes a subscription the push service said is gone (404 or 410),
// unless it changed since the push was made (the device subscribed again meanwhile).
func (e *Engine) DropPushSubscription(sent *storepb.PushSubscriptionRecord) error {
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		cur, err := tx.read().PushSubscription(sent.GetMemberId(), sent.GetId())
		if isNotFound(err) || (err == nil && (cur.GetEndpoint() != sent.GetEndpoint() || !bytes.Equal(cur.GetP256Dh(), sent.GetP256Dh()))) {
			return struct{}{}, nil
		}
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.mutate().DeletePushSubscription(cur)
	})
	return err
}

// PushSucceeded records that the push service accepted a push for a subscription at a time:
// written when the last record is more than a minute older, so that a busy device costs the
// writer one row a minute.
func (e *Engine) PushSucceeded(sent *storepb.PushSubscriptionRecord, at time.Time) error {
	ms := at.UnixMilli()
	if ms-sent.GetLastSuccessMs() < pushSuccessEvery.Milliseconds() {
		return nil
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		cur, err := tx.read().PushSubscription(sent.GetMemberId(), sent.GetId())
		if isNotFound(err) || (err == nil && ms-cur.GetLastSuccessMs() < pushSuccessEvery.Milliseconds()) {
			return struct{}{}, nil
		}
		if err != nil {
			return struct{}{}, err
		}
		cur = proto.Clone(cur).(*storepb.PushSubscriptionRecord)
		cur.LastSuccessMs = ms
		return struct{}{}, tx.mutate().PutPushSubscription(cur)
	})
	return err
}
