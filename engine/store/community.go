package store

import (
	"errors"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Settings reads the community's settings; nil in a new database.
func (r *Reader) Settings() (*storepb.Settings, error) {
	s := new(storepb.Settings)
	err := r.getProto([]byte{prefixSettings}, s)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return s, err
}

func (b *Batch) PutSettings(s *storepb.Settings) error { return b.putProto([]byte{prefixSettings}, s) }

// Members calls fn for every member row, whatever its state.
func (r *Reader) Members(fn func(*storepb.MemberRecord) error) error {
	return scanProto(r, []byte{prefixMember}, func() *storepb.MemberRecord { return new(storepb.MemberRecord) },
		func(_ []byte, m *storepb.MemberRecord) error { return fn(m) })
}

func (b *Batch) PutMember(m *storepb.MemberRecord) error {
	return b.putProto(key(prefixMember, m.GetMember().GetId()), m)
}

// Channels calls fn for every channel row.
func (r *Reader) Channels(fn func(*storepb.ChannelRecord) error) error {
	return scanProto(r, []byte{prefixChannel}, func() *storepb.ChannelRecord { return new(storepb.ChannelRecord) },
		func(_ []byte, c *storepb.ChannelRecord) error { return fn(c) })
}

func (b *Batch) PutChannel(c *storepb.ChannelRecord) error {
	return b.putProto(key(prefixChannel, c.GetChannel().GetId()), c)
}

// Joined calls fn for every (channel, member) pair of OPT_IN TEXT channel membership.
func (r *Reader) Joined(fn func(channelID, memberID string) error) error {
	return r.pairs(prefixJoined, fn)
}

func (b *Batch) PutJoined(channelID, memberID string) error {
	return b.set(key(prefixJoined, channelID, memberID), nil)
}

func (b *Batch) DeleteJoined(channelID, memberID string) error {
	return b.delete(key(prefixJoined, channelID, memberID))
}

// Roles calls fn for every custom role.
func (r *Reader) Roles(fn func(*svcv1.Role) error) error {
	return scanProto(r, []byte{prefixRole}, func() *svcv1.Role { return new(svcv1.Role) },
		func(_ []byte, role *svcv1.Role) error { return fn(role) })
}

func (b *Batch) PutRole(role *svcv1.Role) error {
	return b.putProto(key(prefixRole, role.GetId()), role)
}

func (b *Batch) DeleteRole(id string) error { return b.delete(key(prefixRole, id)) }

// Blocks calls fn for every (blocker, blocked) pair.
func (r *Reader) Blocks(fn func(blocker, blocked string) error) error {
	return r.pairs(prefixBlock, fn)
}

// SetBlock records or removes a block.
func (b *Batch) SetBlock(blocker, blocked string, on bool) error {
	return b.setPair(prefixBlock, blocker, blocked, on)
}

// Mutes calls fn for every (muter, muted) pair.
func (r *Reader) Mutes(fn func(muter, muted string) error) error { return r.pairs(prefixMute, fn) }

// SetMute records or removes a mute.
func (b *Batch) SetMute(muter, muted string, on bool) error {
	return b.setPair(prefixMute, muter, muted, on)
}

func (b *Batch) setPair(prefix byte, a, c string, on bool) error {
	k := key(prefix, a, c)
	if on {
		return b.set(k, nil)
	}
	return b.delete(k)
}

// Invite reads an invite by its code (upper case); ErrNotFound if there is none.
func (r *Reader) Invite(code string) (*storepb.InviteRecord, error) {
	inv := new(storepb.InviteRecord)
	if err := r.getProto(key(prefixInvite, strings.ToUpper(code)), inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// Invites calls fn for every invite, revoked ones included.
func (r *Reader) Invites(fn func(*storepb.InviteRecord) error) error {
	return scanProto(r, []byte{prefixInvite}, func() *storepb.InviteRecord { return new(storepb.InviteRecord) },
		func(_ []byte, inv *storepb.InviteRecord) error { return fn(inv) })
}

func (b *Batch) PutInvite(inv *storepb.InviteRecord) error {
	return b.putProto(key(prefixInvite, strings.ToUpper(inv.GetInvite().GetCode())), inv)
}

// Report reads one report; ErrNotFound if there is none.
func (r *Reader) Report(id string) (*storepb.ReportRecord, error) {
	rep := new(storepb.ReportRecord)
	if err := r.getProto(key(prefixReport, id), rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// Reports calls fn for every open report.
func (r *Reader) Reports(fn func(*storepb.ReportRecord) error) error {
	return scanProto(r, []byte{prefixReport}, func() *storepb.ReportRecord { return new(storepb.ReportRecord) },
		func(_ []byte, rep *storepb.ReportRecord) error { return fn(rep) })
}

// ReportOf reads a reporter's open report of a message; ErrNotFound if there is none.
func (r *Reader) ReportOf(messageID, reporterID string) (*storepb.ReportRecord, error) {
	item, err := r.txn.Get(key(prefixReportOf, messageID, reporterID))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	id, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	return r.Report(string(id))
}

// ReportsOfMessage calls fn for every open report of a message.
func (r *Reader) ReportsOfMessage(messageID string, fn func(*storepb.ReportRecord) error) error {
	var ids []string
	err := r.scan(append(key(prefixReportOf, messageID), sep), nil, false, false, func(_ []byte, item *badger.Item) (bool, error) {
		id, err := item.ValueCopy(nil)
		ids = append(ids, string(id))
		return true, err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		rep, err := r.Report(id)
		if err != nil {
			return err
		}
		if err := fn(rep); err != nil {
			return err
		}
	}
	return nil
}

// PutReport writes a report and its (message, reporter) index row.
func (b *Batch) PutReport(rep *storepb.ReportRecord) error {
	if err := b.putProto(key(prefixReport, rep.GetId()), rep); err != nil {
		return err
	}
	return b.set(key(prefixReportOf, rep.GetMessage().GetId(), rep.GetReporterId()), []byte(rep.GetId()))
}

// DeleteReport removes a report and its index row.
func (b *Batch) DeleteReport(rep *storepb.ReportRecord) error {
	if err := b.delete(key(prefixReport, rep.GetId())); err != nil {
		return err
	}
	return b.delete(key(prefixReportOf, rep.GetMessage().GetId(), rep.GetReporterId()))
}
