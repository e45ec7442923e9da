package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Custom roles. A role only decides which TEXT channels a member sees (Channel.role_ids);
// permissions come from the rank. Roles are ordered by position, 0 first, kept dense: a new role
// goes last, and moving one renumbers the others.

// rolesMax bounds how many custom roles a community has: every GetState carries them all.
const rolesMax = 250

// CreateRole adds a custom role, last in position.
func (e *Engine) CreateRole(ctx context.Context, c Caller, req *svcv1.CreateRoleRequest) (*svcv1.CreateRoleResponse, error) {
	name, err := roleName(req.GetName())
	if err != nil {
		return nil, err
	}
	if err := checkColor("color", req.GetColor()); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.CreateRoleResponse, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "CreateRole"); err != nil {
			return nil, err
		}
		if err := roleNameFree(d, name, ""); err != nil {
			return nil, err
		}
		roles := d.Roles()
		if len(roles) >= rolesMax {
			return nil, precondition("the community has %d roles, the limit; delete one first", rolesMax)
		}
		var pos int32
		if len(roles) > 0 {
			pos = roles[len(roles)-1].GetPosition() + 1
		}
		r := &svcv1.Role{Id: uuid.Must(uuid.NewV7()).String(), Name: name, Color: req.GetColor(), Position: pos}
		if err := e.roleUpdated(tx, r); err != nil {
			return nil, err
		}
		if err := auditRole(tx, c, svcv1.AuditAction_AUDIT_ACTION_ROLE_CREATED, nil, r); err != nil {
			return nil, err
		}
		return &svcv1.CreateRoleResponse{Role: r}, nil
	})
}

// UpdateRole changes a role's name, color or position.
func (e *Engine) UpdateRole(ctx context.Context, c Caller, req *svcv1.UpdateRoleRequest) (*svcv1.UpdateRoleResponse, error) {
	if req.GetRoleId() == "" {
		return nil, invalid("role_id is required")
	}
	var name string
	if req.Name != nil {
		var err error
		if name, err = roleName(req.GetName()); err != nil {
			return nil, err
		}
	}
	if err := checkColor("color", req.GetColor()); err != nil {
		return nil, err
	}
	if req.GetPosition() < 0 {
		return nil, invalid("position must be 0 or more; got %d", req.GetPosition())
	}
	return submit(e, func(tx *Tx) (*svcv1.UpdateRoleResponse, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "UpdateRole"); err != nil {
			return nil, err
		}
		old := d.Role(req.GetRoleId())
		if old == nil {
			return nil, notFound("role %s does not exist", req.GetRoleId())
		}
		r := proto.Clone(old).(*svcv1.Role)
		if req.Name != nil {
			if err := roleNameFree(d, name, r.GetId()); err != nil {
				return nil, err
			}
			r.Name = name
		}
		if req.Color != nil {
			r.Color = req.GetColor()
		}
		order := d.Roles()
		at := slices.IndexFunc(order, func(x *svcv1.Role) bool { return x.GetId() == r.GetId() })
		order[at] = r
		if req.Position != nil {
			order = slices.Delete(order, at, at+1)
			order = slices.Insert(order, min(int(req.GetPosition()), len(order)), r)
			for i, x := range order {
				if x.GetPosition() != int32(i) {
					x = proto.Clone(x).(*svcv1.Role)
					x.Position = int32(i)
					order[i] = x
				}
			}
		}
		// Every role whose fields or position changed is stored and announced, in the new order.
		for _, x := range order {
			if x.GetId() == r.GetId() {
				r = x
			}
			if proto.Equal(x, d.Role(x.GetId())) {
				continue
			}
			if err := e.roleUpdated(tx, x); err != nil {
				return nil, err
			}
		}
		if err := auditRole(tx, c, svcv1.AuditAction_AUDIT_ACTION_ROLE_UPDATED, old, r); err != nil {
			return nil, err
		}
		return &svcv1.UpdateRoleResponse{Role: r}, nil
	})
}

// roleStripChunk is how many member rows one change of DeleteRole rewrites: far below what
// one Badger transaction takes, whatever the memory profile.
const roleStripChunk = 1000

// DeleteRole deletes a role no channel is limited by, and takes it from every member.
//
// One change deletes the role, sends role_deleted and takes the role from up to
// roleStripChunk member rows; the rows left (a role given to more members than one transaction
// holds) are rewritten after it, roleStripChunk a change, without events: role_deleted told
// clients to drop the role. A crash between those changes leaves member rows naming a role
// that does not exist, which Open strips before the engine serves: at every commit the event
// log and the state agree. Meanwhile such a row changes nothing: a role that does not exist
// limits no channel, and can be neither given nor set on a channel.
func (e *Engine) DeleteRole(ctx context.Context, c Caller, req *svcv1.DeleteRoleRequest) (*svcv1.DeleteRoleResponse, error) {
	id := req.GetRoleId()
	if id == "" {
		return nil, invalid("role_id is required")
	}
	n, err := submit(e, func(tx *Tx) (int, error) {
		role, err := deletableRole(tx.Snap(), c, id)
		if err != nil {
			return 0, err
		}
		if err := auditRole(tx, c, svcv1.AuditAction_AUDIT_ACTION_ROLE_DELETED, role, nil); err != nil {
			return 0, err
		}
		if err := tx.deleteRole(id); err != nil {
			return 0, err
		}
		if _, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_RoleDeleted{RoleDeleted: id}}); err != nil {
			return 0, err
		}
		return stripDeletedRoles(tx, roleStripChunk)
	})
	if err != nil {
		return nil, err
	}
	if n == roleStripChunk {
		// The role is deleted and announced: what is left is the engine's to finish (the next
		// start does, if this cannot).
		if err := e.stripDeletedRoles(); err != nil {
			e.log.Warn("taking a deleted role from member rows; the next start finishes it", "err", err)
		}
	}
	return &svcv1.DeleteRoleResponse{}, nil
}

// stripDeletedRoles takes the roles that no longer exist from every member row, in changes of
// roleStripChunk: after a DeleteRole of a role held by many, and at start, after a crash cut
// one short.
func (e *Engine) stripDeletedRoles() error {
	for {
		n, err := submit(e, func(tx *Tx) (int, error) { return stripDeletedRoles(tx, roleStripChunk) })
		if err != nil || n < roleStripChunk {
			return err
		}
	}
}

// deletableRole checks that c may delete role id and that no channel is limited by it.
func deletableRole(d *Snapshot, c Caller, id string) (*svcv1.Role, error) {
	if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "DeleteRole"); err != nil {
		return nil, err
	}
	r := d.Role(id)
	if r == nil {
		return nil, notFound("role %s does not exist", id)
	}
	// Only TEXT channels list roles, and admins see every TEXT channel: naming it tells the
	// caller nothing they cannot see.
	for _, rec := range d.Channels() {
		if slices.Contains(rec.GetChannel().GetRoleIds(), id) {
			return nil, precondition("role %q still limits channel %q; take it off with SetChannelAccess first", r.GetName(), rec.GetChannel().GetName())
		}
	}
	return r, nil
}

// stripDeletedRoles takes the roles that do not exist from at most limit member rows and says
// how many it rewrote. No member_updated: role_deleted told every client to drop the role.
// Rows of members who left are cleaned too, and the profile a ban keeps (ListBans shows it), so
// nothing points at a deleted role.
func stripDeletedRoles(tx *Tx, limit int) (int, error) {
	d := tx.Snap()
	gone := func(id string) bool { return d.Role(id) == nil }
	n := 0
	for _, m := range d.members {
		if !slices.ContainsFunc(m.GetMember().GetRoleIds(), gone) &&
			!slices.ContainsFunc(m.GetBannedProfile().GetRoleIds(), gone) {
			continue
		}
		if n == limit {
			break
		}
		m = proto.Clone(m).(*storepb.MemberRecord)
		m.Member.RoleIds = slices.DeleteFunc(m.Member.RoleIds, gone)
		if p := m.GetBannedProfile(); p != nil {
			p.RoleIds = slices.DeleteFunc(p.RoleIds, gone)
		}
		if err := tx.putMember(m); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// SetMemberRoles replaces a member's custom roles.
func (e *Engine) SetMemberRoles(ctx context.Context, c Caller, req *svcv1.SetMemberRolesRequest) (*svcv1.SetMemberRolesResponse, error) {
	target := req.GetMemberId()
	if target == "" {
		return nil, invalid("member_id is required")
	}
	roleIDs, err := roleIDList("role_ids", req.GetRoleIds())
	if err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.SetMemberRolesResponse, error) {
		d := tx.Snap()
		me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "SetMemberRoles")
		if err != nil {
			return nil, err
		}
		rec := d.active(target)
		if rec == nil {
			return nil, notFound("member %s is not in this community", target)
		}
		if target != c.ID && rec.GetMember().GetRole() >= me.GetMember().GetRole() {
			return nil, denied("you can only set the roles of members of a lower rank than yours, or your own")
		}
		if err := rolesExist(d, "role_ids", roleIDs); err != nil {
			return nil, err
		}
		if sameSet(rec.GetMember().GetRoleIds(), roleIDs) {
			return &svcv1.SetMemberRolesResponse{Member: e.memberView(rec.GetMember())}, nil
		}
		before := memberVisibility(d, target)
		before0 := rec.GetMember().GetRoleIds()
		rec = proto.Clone(rec).(*storepb.MemberRecord)
		rec.Member.RoleIds = roleIDs
		if err := tx.putMember(rec); err != nil {
			return nil, err
		}
		if err := e.emitMemberUpdated(tx, rec.GetMember()); err != nil {
			return nil, err
		}
		if _, err := e.announceVisibility(tx, before); err != nil {
			return nil, err
		}
		if err := auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_MEMBER_ROLES_CHANGED, target, "", rolesChange(d, before0, roleIDs)); err != nil {
			return nil, err
		}
		return &svcv1.SetMemberRolesResponse{Member: e.memberView(rec.GetMember())}, nil
	})
}

// roleUpdated stores a role and sends role_updated to every member.
func (e *Engine) roleUpdated(tx *Tx, r *svcv1.Role) error {
	if err := tx.putRole(r); err != nil {
		return err
	}
	_, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_RoleUpdated{RoleUpdated: r}})
	return err
}

// roleName checks a role name: 1 to 32 characters once the spaces around it are trimmed, shown
// as a name (checkShownText).
func roleName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	if name == "" {
		return "", invalid("name must be 1 to %d characters; it is empty", roleNameMax)
	}
	if err := checkShownText("name", name, roleNameMax); err != nil {
		return "", err
	}
	return name, nil
}

// roleNameFree fails with already_exists when another role (not except) has the name, in any
// case.
func roleNameFree(d *Snapshot, name, except string) error {
	for _, r := range d.roles {
		if r.GetId() != except && strings.EqualFold(r.GetName(), name) {
			return exists("a role named %q exists", r.GetName())
		}
	}
	return nil
}
