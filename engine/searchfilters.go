package engine

import (
	"sort"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// searchNames resolves the names of a query's filters (search.Resolver) for a caller: from:
// any member who has or had the username (their messages stay), in: a channel the caller sees,
// by id, or by name (names are not unique: the one the caller is in first, then the first in
// sidebar order).
type searchNames struct {
	d  *Snapshot
	me string
}

func (n searchNames) Member(username string) (string, bool) {
	id, ok := n.d.byUsername[username]
	return id, ok
}

func (n searchNames) Channel(nameOrID string) (string, bool) {
	if rec := n.d.Channel(nameOrID); rec != nil && n.d.sees(n.me, rec) {
		return nameOrID, true
	}
	var named []*storepb.ChannelRecord
	for _, rec := range n.d.channels {
		ch := rec.GetChannel()
		if ch.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_DM && ch.GetName() == nameOrID && n.d.sees(n.me, rec) {
			named = append(named, rec)
		}
	}
	if len(named) == 0 {
		return "", false
	}
	sortChannels(named)
	sort.SliceStable(named, func(i, j int) bool { return n.d.In(n.me, named[i]) && !n.d.In(n.me, named[j]) })
	return named[0].GetChannel().GetId(), true
}
