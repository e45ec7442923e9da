package store

import (
	"crypto/sha256"
	"errors"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Notifications (0xE0-0xE7): the members' Web Push subscriptions and their notification
// preferences, written by the engine's writer like every other row.
const (
	prefixPushSub      byte = 0xE0
	prefixPushEndpoint byte = 0xE1
	prefixNotifyPrefs  byte = 0xE2
)

// endpointKey is the index row of a push endpoint: its SHA-256, so that a long URL makes a
// short key.
func endpointKey(endpoint string) []byte {
	sum := sha256.Sum256([]byte(endpoint))
	return append([]byte{prefixPushEndpoint}, sum[:]...)
}

// PushSubscriptions calls fn for every push subscription of a member, in id order (oldest
// first: ids are UUIDv7).
func (r *Reader) PushSubscriptions(memberID string, fn func(*storepb.PushSubscriptionRecord) error) error {
	return scanProto(r, append(key(prefixPushSub, memberID), sep), func() *storepb.PushSubscriptionRecord { return new(storepb.PushSubscriptionRecord) },
		func(_ []byte, s *storepb.PushSubscriptionRecord) error { return fn(s) })
}

// PushSubscription reads one subscription of a member; ErrNotFound if there is none.
func (r *Reader) PushSubscription(memberID, id string) (*storepb.PushSubscriptionRecord, error) {
	s := new(storepb.PushSubscriptionRecord)
	if err := r.getProto(key(prefixPushSub, memberID, id), s); err != nil {
		return nil, err
	}
	return s, nil
}

// PushSubscriptionByEndpoint reads the subscription of an endpoint, whoever's it is;
// ErrNotFound if there is none.
func (r *Reader) PushSubscriptionByEndpoint(endpoint string) (*storepb.PushSubscriptionRecord, error) {
	item, err := r.txn.Get(endpointKey(endpoint))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	k, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	s := new(storepb.PushSubscriptionRecord)
	if err := r.getProto(k, s); err != nil {
		return nil, err
	}
	return s, nil
}

// PutPushSubscription writes a subscription and its endpoint's index row.
func (b *Batch) PutPushSubscription(s *storepb.PushSubscriptionRecord) error {
	k := key(prefixPushSub, s.GetMemberId(), s.GetId())
	if err := b.putProto(k, s); err != nil {
		return err
	}
	return b.set(endpointKey(s.GetEndpoint()), k)
}

// DeletePushSubscription removes a subscription and its endpoint's index row.
func (b *Batch) DeletePushSubscription(s *storepb.PushSubscriptionRecord) error {
	if err := b.delete(key(prefixPushSub, s.GetMemberId(), s.GetId())); err != nil {
		return err
	}
	return b.delete(endpointKey(s.GetEndpoint()))
}

// NotificationPrefs reads a member's preferences; ErrNotFound when they never set any.
func (r *Reader) NotificationPrefs(memberID string) (*svcv1.NotificationPrefs, error) {
	p := new(svcv1.NotificationPrefs)
	if err := r.getProto(key(prefixNotifyPrefs, memberID), p); err != nil {
		return nil, err
	}
	return p, nil
}

// AllNotificationPrefs calls fn for every member who set preferences.
func (r *Reader) AllNotificationPrefs(fn func(memberID string, p *svcv1.NotificationPrefs) error) error {
	return scanProto(r, []byte{prefixNotifyPrefs}, func() *svcv1.NotificationPrefs { return new(svcv1.NotificationPrefs) },
		func(k []byte, p *svcv1.NotificationPrefs) error { return fn(string(k[1:]), p) })
}

// PutNotificationPrefs stores a member's preferences.
func (b *Batch) PutNotificationPrefs(memberID string, p *svcv1.NotificationPrefs) error {
	return b.putProto(key(prefixNotifyPrefs, memberID), p)
}
