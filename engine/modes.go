package engine

import (
	svcv1 "hearth/proto/svc/v1"
)

// Channel modes. In ROLES mode membership of TEXT channels follows visibility and the joined
// rows are ignored; in OPT_IN mode a member is in a TEXT channel they see only if they joined it.

// joinDefaultChannels joins a newcomer to the is_default TEXT channels they can see (OPT_IN).
func (e *Engine) joinDefaultChannels(tx *Tx, memberID string) error {
	d := tx.Dir()
	if !d.OptIn() {
		return nil
	}
	for _, c := range d.Channels() {
		ch := c.GetChannel()
		if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_TEXT && ch.GetIsDefault() && d.Sees(memberID, c) {
			if err := tx.setJoined(ch.GetId(), memberID, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// switchChannelMode records a mode change. Switching to OPT_IN keeps everyone in the channels
// they see, so every member joins every TEXT channel they see as of now.
func (e *Engine) switchChannelMode(tx *Tx, mode svcv1.ChannelMode) error {
	if mode == svcv1.ChannelMode_CHANNEL_MODE_OPT_IN {
		d := tx.Dir()
		channels := d.Channels()
		for _, m := range d.ActiveMembers() {
			id := m.GetMember().GetId()
			for _, c := range channels {
				ch := c.GetChannel()
				if ch.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_TEXT || d.Joined(ch.GetId(), id) || !d.Sees(id, c) {
					continue
				}
				if err := tx.setJoined(ch.GetId(), id, true); err != nil {
					return err
				}
			}
		}
	}
	_, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_ChannelModeChanged{ChannelModeChanged: mode}})
	return err
}
