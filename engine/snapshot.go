package engine

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Snapshot is the community's small state in memory: settings, members, channels and their
// membership, roles, blocks and mutes. Messages, read states and the event log stay in Badger.
//
// A published Snapshot is immutable and shared: handlers read it without locks, and every
// event in the hub carries the Snapshot of its batch, so delivery decides visibility against
// the community exactly as it was when the event happened. The writer changes a draft copy
// (maps are cloned on first write, values replaced, never mutated), writes the same change to
// Badger in the same step, and publishes the draft after the commit. A failed batch simply
// drops its draft.
type Snapshot struct {
	// seq is the seq of the newest event whose change this Snapshot includes.
	seq int64

	settings   *storepb.Settings
	members    map[string]*storepb.MemberRecord
	byLogin    map[login]string
	byUsername map[string]string
	byBotHash  map[[32]byte]string
	channels   map[string]*storepb.ChannelRecord
	dms        map[string]string              // dmKey(member ids) -> channel id
	joined     map[string]map[string]struct{} // channel id -> members who joined it (OPT_IN TEXT)
	roles      map[string]*svcv1.Role
	blocks     map[string]map[string]struct{} // blocker -> blocked
	mutes      map[string]map[string]struct{} // muter -> muted
	// membersGen names the members map: a draft that changes a member gets a new one. Who is
	// active can only have changed where it differs, so a stream looks a member up once per
	// change of the members, not once per event (Follower.live).
	membersGen uint64
}

// membersGens numbers the members maps of every Snapshot made.
var membersGens atomic.Uint64

type login struct{ iss, sub string }

// Seq is the seq of the newest event the Snapshot includes.
func (d *Snapshot) Seq() int64 { return d.seq }

func emptySnapshot() *Snapshot {
	return &Snapshot{
		settings:   &storepb.Settings{},
		members:    map[string]*storepb.MemberRecord{},
		byLogin:    map[login]string{},
		byUsername: map[string]string{},
		byBotHash:  map[[32]byte]string{},
		channels:   map[string]*storepb.ChannelRecord{},
		dms:        map[string]string{},
		joined:     map[string]map[string]struct{}{},
		roles:      map[string]*svcv1.Role{},
		blocks:     map[string]map[string]struct{}{},
		mutes:      map[string]map[string]struct{}{},
		membersGen: membersGens.Add(1),
	}
}

// loadSnapshot reads the small state from the database when the engine opens.
func loadSnapshot(r *store.Reader, seq int64) (*Snapshot, error) {
	d := &draft{Snapshot: emptySnapshot(), owned: ^uint16(0)}
	s, err := r.Settings()
	if err != nil {
		return nil, err
	}
	if s != nil {
		d.settings = s
	}
	err = r.Members(func(m *storepb.MemberRecord) error {
		d.setMember(m)
		return nil
	})
	if err == nil {
		err = r.Channels(func(c *storepb.ChannelRecord) error {
			d.setChannel(c)
			return nil
		})
	}
	if err == nil {
		err = r.Joined(func(ch, m string) error {
			d.setJoined(ch, m, true)
			return nil
		})
	}
	if err == nil {
		err = r.Roles(func(role *svcv1.Role) error {
			d.setRole(role)
			return nil
		})
	}
	if err == nil {
		err = r.Blocks(func(a, b string) error {
			d.setBlock(a, b, true)
			return nil
		})
	}
	if err == nil {
		err = r.Mutes(func(a, b string) error {
			d.setMute(a, b, true)
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	return d.publish(seq), nil
}

// --- reads ---

// Settings are the community's settings.
func (d *Snapshot) Settings() *storepb.Settings { return d.settings }

// Member returns a member row in any state, or nil.
func (d *Snapshot) Member(id string) *storepb.MemberRecord { return d.members[id] }

// active returns the member if it is currently in the community, else nil.
func (d *Snapshot) active(id string) *storepb.MemberRecord {
	if m := d.members[id]; m != nil && m.GetState() == storepb.MemberState_MEMBER_STATE_ACTIVE {
		return m
	}
	return nil
}

// memberByLogin returns the member row of a login, in any state, or nil.
func (d *Snapshot) memberByLogin(iss, sub string) *storepb.MemberRecord {
	return d.members[d.byLogin[login{iss, sub}]]
}

// botByTokenHash returns the active bot holding the token, or nil.
func (d *Snapshot) botByTokenHash(h [32]byte) *storepb.MemberRecord {
	return d.active(d.byBotHash[h])
}

// usernameTaken reports whether a username (any case) belongs to a member other than except.
func (d *Snapshot) usernameTaken(name, except string) bool {
	id, ok := d.byUsername[strings.ToLower(name)]
	return ok && id != except
}

// activeMembers returns the members currently in the community, sorted by username.
func (d *Snapshot) activeMembers() []*storepb.MemberRecord {
	out := make([]*storepb.MemberRecord, 0, len(d.members))
	for _, m := range d.members {
		if m.GetState() == storepb.MemberState_MEMBER_STATE_ACTIVE {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetMember().GetUsername() < out[j].GetMember().GetUsername() })
	return out
}

// joinedCount is the number of members currently in the community who joined it: imported
// placeholders (Member.imported, people of another service's export who never signed in) are
// not counted, so that a community brought in from elsewhere counts the people who are here.
func (d *Snapshot) joinedCount() int {
	n := 0
	for _, m := range d.members {
		if joined(m) {
			n++
		}
	}
	return n
}

// joined reports a member who is in the community and joined it (not an import's placeholder).
func joined(m *storepb.MemberRecord) bool {
	return m.GetState() == storepb.MemberState_MEMBER_STATE_ACTIVE && !m.GetMember().GetImported()
}

// rank is a member's permission rank; MEMBER_ROLE_UNSPECIFIED for someone not in the
// community.
func (d *Snapshot) rank(id string) svcv1.MemberRole {
	if m := d.active(id); m != nil {
		return m.GetMember().GetRole()
	}
	return svcv1.MemberRole_MEMBER_ROLE_UNSPECIFIED
}

// Channel returns a channel row or nil.
func (d *Snapshot) Channel(id string) *storepb.ChannelRecord { return d.channels[id] }

// DM returns the DM channel between exactly these members, or nil.
func (d *Snapshot) DM(memberIDs []string) *storepb.ChannelRecord {
	return d.channels[d.dms[dmKey(memberIDs)]]
}

// Channels returns every channel row, sorted for the sidebar.
func (d *Snapshot) Channels() []*storepb.ChannelRecord {
	out := slices.Collect(maps.Values(d.channels))
	sortChannels(out)
	return out
}

// Role returns a custom role or nil.
func (d *Snapshot) Role(id string) *svcv1.Role { return d.roles[id] }

// Roles returns the custom roles sorted by position (then name, so the order is stable).
func (d *Snapshot) Roles() []*svcv1.Role {
	out := slices.Collect(maps.Values(d.roles))
	sort.Slice(out, func(i, j int) bool {
		if out[i].GetPosition() != out[j].GetPosition() {
			return out[i].GetPosition() < out[j].GetPosition()
		}
		return out[i].GetName() < out[j].GetName()
	})
	return out
}

// Blocked reports whether a blocked b.
func (d *Snapshot) Blocked(a, b string) bool {
	_, ok := d.blocks[a][b]
	return ok
}

// muted reports whether a muted b.
func (d *Snapshot) muted(a, b string) bool {
	_, ok := d.mutes[a][b]
	return ok
}

// blockedIDs and MutedIDs list whom a member blocked or muted, sorted.
func (d *Snapshot) blockedIDs(id string) []string { return sortedKeys(d.blocks[id]) }
func (d *Snapshot) mutedIDs(id string) []string   { return sortedKeys(d.mutes[id]) }

// Joined reports whether a member joined a TEXT channel (OPT_IN mode).
func (d *Snapshot) Joined(channelID, memberID string) bool {
	_, ok := d.joined[channelID][memberID]
	return ok
}

func sortedKeys(m map[string]struct{}) []string {
	out := slices.Collect(maps.Keys(m))
	slices.Sort(out)
	return out
}

// dmKey identifies a DM by its set of members.
func dmKey(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), ",")
}

// sortChannels orders channels for the sidebar: by category, then position, then name, then
// creation.
func sortChannels(cs []*storepb.ChannelRecord) {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i].GetChannel(), cs[j].GetChannel()
		if a.GetCategory() != b.GetCategory() {
			return a.GetCategory() < b.GetCategory()
		}
		if a.GetPosition() != b.GetPosition() {
			return a.GetPosition() < b.GetPosition()
		}
		if a.GetName() != b.GetName() {
			return a.GetName() < b.GetName()
		}
		return a.GetId() < b.GetId()
	})
}

// --- the writer's draft ---

// draft is a Snapshot being changed by the writer. Each map is cloned the first time the
// batch writes to it, and each inner set the first time it is written, so a published
// Snapshot is never touched.
type draft struct {
	*Snapshot
	owned      uint16
	ownedInner map[innerSet]bool
}

// innerSet names one inner set of a nested map: which map (by its ownership bit) and which key.
type innerSet struct {
	bit uint16
	key string
}

const (
	ownMembers uint16 = 1 << iota
	ownLogins
	ownUsernames
	ownBots
	ownChannels
	ownDMs
	ownJoined
	ownRoles
	ownBlocks
	ownMutes
)

func (d *Snapshot) newDraft() *draft {
	c := *d
	return &draft{Snapshot: &c}
}

// publish ends the draft: the Snapshot it returns must not be changed again.
func (d *draft) publish(seq int64) *Snapshot {
	d.seq = seq
	out := d.Snapshot
	d.Snapshot = nil
	return out
}

func own[K comparable, V any](d *draft, bit uint16, m *map[K]V) {
	if d.owned&bit == 0 {
		*m = maps.Clone(*m)
		d.owned |= bit
	}
}

func (d *draft) setSettings(s *storepb.Settings) { d.settings = s }

// setMember adds or replaces a member row and keeps the lookups in step with it.
func (d *draft) setMember(m *storepb.MemberRecord) {
	id := m.GetMember().GetId()
	if d.owned&ownMembers == 0 {
		d.membersGen = membersGens.Add(1)
	}
	own(d, ownMembers, &d.members)
	// The old row's entries go only where they still point at this member: a deleted bot's
	// username may belong to someone else since.
	if old := d.members[id]; old != nil {
		if k := (login{old.GetIssuer(), old.GetSubject()}); old.GetIssuer() != "" && d.byLogin[k] == id {
			own(d, ownLogins, &d.byLogin)
			delete(d.byLogin, k)
		}
		if k := strings.ToLower(old.GetMember().GetUsername()); d.byUsername[k] == id {
			own(d, ownUsernames, &d.byUsername)
			delete(d.byUsername, k)
		}
		if k := old.GetBotTokenHash(); len(k) == 32 && d.byBotHash[[32]byte(k)] == id {
			own(d, ownBots, &d.byBotHash)
			delete(d.byBotHash, [32]byte(k))
		}
	}
	d.members[id] = m
	if m.GetIssuer() != "" {
		own(d, ownLogins, &d.byLogin)
		d.byLogin[login{m.GetIssuer(), m.GetSubject()}] = id
	}
	// A deleted bot frees its username; everyone else keeps theirs, to come back to.
	if m.GetState() != storepb.MemberState_MEMBER_STATE_DELETED {
		own(d, ownUsernames, &d.byUsername)
		d.byUsername[strings.ToLower(m.GetMember().GetUsername())] = id
		if len(m.GetBotTokenHash()) == 32 {
			own(d, ownBots, &d.byBotHash)
			d.byBotHash[[32]byte(m.GetBotTokenHash())] = id
		}
	}
}

func (d *draft) setChannel(c *storepb.ChannelRecord) {
	own(d, ownChannels, &d.channels)
	d.channels[c.GetChannel().GetId()] = c
	if c.GetChannel().GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
		own(d, ownDMs, &d.dms)
		d.dms[dmKey(c.GetChannel().GetMemberIds())] = c.GetChannel().GetId()
	}
}

func (d *draft) setRole(r *svcv1.Role) {
	own(d, ownRoles, &d.roles)
	d.roles[r.GetId()] = r
}

func (d *draft) deleteRole(id string) {
	own(d, ownRoles, &d.roles)
	delete(d.roles, id)
}

func (d *draft) setJoined(channelID, memberID string, on bool) {
	d.setIn(ownJoined, &d.joined, channelID, memberID, on)
}

func (d *draft) setBlock(a, b string, on bool) { d.setIn(ownBlocks, &d.blocks, a, b, on) }
func (d *draft) setMute(a, b string, on bool)  { d.setIn(ownMutes, &d.mutes, a, b, on) }

// setIn adds or removes b in the set outer[a], cloning what a published Snapshot shares.
func (d *draft) setIn(bit uint16, outer *map[string]map[string]struct{}, a, b string, on bool) {
	own(d, bit, outer)
	if d.ownedInner == nil {
		d.ownedInner = map[innerSet]bool{}
	}
	which := innerSet{bit, a}
	set := (*outer)[a]
	if set == nil {
		set = map[string]struct{}{}
	} else if !d.ownedInner[which] {
		set = maps.Clone(set)
	}
	d.ownedInner[which] = true
	if on {
		set[b] = struct{}{}
	} else {
		delete(set, b)
	}
	if len(set) == 0 {
		delete(*outer, a)
		return
	}
	(*outer)[a] = set
}
