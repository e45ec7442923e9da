package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// DeleteRole of a role held by more members than one change rewrites takes several commits. A
// crash between them used to leave the role in place with some members silently stripped of
// it: state the event log never announced (clients that resume from their seq keep showing the
// role on them), and, the "being deleted" mark gone with the process, a role free to limit a
// channel that those members can then no longer see. Now the first commit deletes the role
// with its role_deleted event; what remains is member rows naming a role that does not exist,
// which a start strips before the engine serves. The crash is made by the first commit
// reporting a failure after it stored the batch: the writer stops, as after a crash.
func TestDeleteRoleCutShortByACrashLeavesStateAndLogAgreeing(t *testing.T) {
	c := openTestCommunity(t)
	owner := c.join("owner")
	ctx := context.Background()
	r, err := c.e.CreateRole(ctx, owner, &svcv1.CreateRoleRequest{Name: "crowd"})
	if err != nil {
		t.Fatal(err)
	}
	roleID := r.GetRole().GetId()
	holders := roleStripChunk + roleStripChunk/2
	for start := 0; start < holders; start += 500 {
		_, err := submit(c.e, func(tx *Tx) (struct{}, error) {
			for i := start; i < min(start+500, holders); i++ {
				id := fmt.Sprintf("m%05d", i)
				err := tx.putMember(&storepb.MemberRecord{
					Member:  &svcv1.Member{Id: id, Username: id, DisplayName: id, Role: svcv1.MemberRole_MEMBER_ROLE_MEMBER, RoleIds: []string{roleID}},
					Issuer:  "http://127.0.0.1",
					Subject: id,
					State:   storepb.MemberState_MEMBER_STATE_ACTIVE,
				})
				if err != nil {
					return struct{}{}, err
				}
			}
			return struct{}{}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	c.e.commitBatch = func(b *store.Batch) error {
		if err := b.Commit(); err != nil {
			return err
		}
		return errors.New("the process died here")
	}
	if _, err := c.e.DeleteRole(ctx, owner, &svcv1.DeleteRoleRequest{RoleId: roleID}); err == nil {
		t.Fatal("DeleteRole succeeded though its first commit failed")
	}
	c.restart()

	d := c.e.Snapshot()
	var holding int
	for _, m := range d.members {
		if slices.Contains(m.GetMember().GetRoleIds(), roleID) {
			holding++
		}
	}
	announced := false
	err = c.db.View(func(r *store.Reader) error {
		return r.Events(0, 1<<62, func(le *storepb.LoggedEvent) (bool, error) {
			if le.GetEvent().GetRoleDeleted() == roleID {
				announced = true
			}
			return true, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case d.Role(roleID) == nil && announced && holding == 0:
		// Deleted, announced, and no member row names it.
	case d.Role(roleID) != nil && !announced && holding == holders:
		// Not deleted at all.
	default:
		t.Fatalf("after the crash: role exists %v, role_deleted logged %v, %d of %d members hold it", d.Role(roleID) != nil, announced, holding, holders)
	}
}
