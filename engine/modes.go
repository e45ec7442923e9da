package engine

import (
	svcv1 "hearth/proto/svc/v1"
)

// Channel modes. In ROLES mode membership of TEXT channels follows visibility and the joined
// rows are ignored; in OPT_IN mode a member is in a TEXT channel they see only if they joined it.

// joinDefaultChannels joins a newcomer to the is_default TEXT channels they can see (OPT_IN).
func (e *Engine) joinDefaultChannels(tx *Tx, memberID string) error {
	d := tx.Snap()
	if !d.OptIn() {
		return nil
	}
	for _, c := range d.Channels() {
		ch := c.GetChannel()
		if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_TEXT && ch.GetIsDefault() && d.sees(memberID, c) {
			if err := tx.setJoined(ch.GetId(), memberID, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// switchChannelMode records a mode change. Switching to OPT_IN keeps everyone in the channels
// they see, so every member joins every TEXT channel they see as of now (prepareOptIn has
// written most of those rows already; this writes the rest).
func (e *Engine) switchChannelMode(tx *Tx, mode svcv1.ChannelMode) error {
	if mode == svcv1.ChannelMode_CHANNEL_MODE_OPT_IN {
		if _, err := joinVisibleChannels(tx, -1); err != nil {
			return err
		}
	} else {
		// Back in ROLES mode everyone is in every TEXT channel they see, joined or not.
		withholdFromUnjoined(tx)
	}
	_, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_ChannelModeChanged{ChannelModeChanged: mode}})
	return err
}

// optInChunk is how many joined rows one change of prepareOptIn writes: far below what one
// Badger transaction takes under the small memory profile (about 1.2 MB, some 10,000 rows).
const optInChunk = 2000

// prepareOptIn writes, in changes of at most optInChunk rows each, the joined rows a switch to
// OPT_IN needs, before the change that switches: rows for every member and TEXT channel in one
// transaction would pass Badger's limit in a community of a few hundred members and dozens of
// channels. In ROLES mode joined rows are ignored, so rows written for a switch that then
// fails change nothing anyone can see, and a later switch finds them done.
func (e *Engine) prepareOptIn(c Caller) error {
	for {
		n, err := submit(e, func(tx *Tx) (int, error) {
			d := tx.Snap()
			if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "changing the settings"); err != nil {
				return 0, err
			}
			if d.OptIn() {
				return 0, nil
			}
			return joinVisibleChannels(tx, optInChunk)
		})
		if err != nil || n < optInChunk {
			return err
		}
	}
}

// joinVisibleChannels joins every active member to every TEXT channel they see and have not
// joined, at most limit of them (no limit if negative), and says how many it joined.
func joinVisibleChannels(tx *Tx, limit int) (int, error) {
	d := tx.Snap()
	channels := d.Channels()
	n := 0
	for _, m := range d.activeMembers() {
		id := m.GetMember().GetId()
		for _, c := range channels {
			ch := c.GetChannel()
			if ch.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT || d.Joined(ch.GetId(), id) || !d.sees(id, c) {
				continue
			}
			if n == limit {
				return n, nil
			}
			if err := tx.setJoined(ch.GetId(), id, true); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// withholdFromUnjoined keeps the batch's earlier events of each TEXT channel from the members
// who see it without having joined it: the switch to ROLES mode puts them in it now, after
// those events (see withholdEarlier).
func withholdFromUnjoined(tx *Tx) {
	d := tx.Snap()
	members := d.activeMembers()
	for _, c := range d.Channels() {
		ch := c.GetChannel()
		if ch.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT {
			continue
		}
		var newcomers []string
		for _, m := range members {
			if id := m.GetMember().GetId(); d.sees(id, c) && !d.Joined(ch.GetId(), id) {
				newcomers = append(newcomers, id)
			}
		}
		tx.withholdEarlier(ch.GetId(), newcomers, true)
	}
}
