package web_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Switching a community of 401 members and 40 channels to OPT_IN writes 16,040 joined rows:
// more than one Badger transaction takes under the small memory profile. The switch still
// succeeds, and every member stays in every channel, after a restart too.
func TestOptInSwitchOfALargeCommunity(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	const members, channels = 400, 40
	seedMembers(s, "m", members)
	for i := range channels {
		mustChannel(t, owner, fmt.Sprintf("c%d", i), svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	}
	setMode(t, owner, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
	check := func(when string) {
		t.Helper()
		for _, sub := range []string{"m0", "m399"} {
			st, err := s.Client(s.Token(sub)).Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
			if err != nil {
				t.Fatalf("%s: GetState of %s: %v", when, sub, err)
			}
			if n := len(st.Msg.GetChannels()); n != channels {
				t.Fatalf("%s: %s is in %d channels, want %d", when, sub, n, channels)
			}
		}
	}
	check("after the switch")
	s.Restart()
	check("after a restart")
}

// Deleting a role held by 9,000 members rewrites 9,000 member rows: more than one transaction
// holds. The role goes, and no member keeps it, after a restart too.
func TestDeleteRoleHeldByThousands(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	res, err := owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "everyone"}))
	if err != nil {
		t.Fatal(err)
	}
	role := res.Msg.GetRole().GetId()
	const perSeed, seeds = 3000, 3 // a seed is one transaction too
	for n := range seeds {
		seedMembers(s, fmt.Sprintf("m%d-", n), perSeed, role)
	}
	_, err = owner.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: role}))
	wantOK(t, "deleting a role 9,000 members hold", err)
	s.Restart()
	st, err := owner.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Msg.GetRoles()) != 0 {
		t.Fatalf("roles after the delete: %v", st.Msg.GetRoles())
	}
	held := 0
	for _, m := range st.Msg.GetMembers() {
		if len(m.GetRoleIds()) > 0 {
			held++
		}
	}
	if n := len(st.Msg.GetMembers()); n != perSeed*seeds+1 || held != 0 {
		t.Fatalf("GetState lists %d members, %d of them with a role; want %d, none", n, held, perSeed*seeds+1)
	}
}

// seedMembers stores n members, prefix0 to prefix<n-1> (their usernames and their subjects at
// the server's issuer), holding roleIDs, in one transaction.
func seedMembers(s *webtest.Server, prefix string, n int, roleIDs ...string) {
	s.Seed(func(b *store.Batch) error {
		for i := range n {
			sub := fmt.Sprintf("%s%d", prefix, i)
			err := b.PutMember(&storepb.MemberRecord{
				Member: &svcv1.Member{Id: uuid.Must(uuid.NewV7()).String(), Kind: svcv1.MemberKind_MEMBER_KIND_HUMAN,
					Role: svcv1.MemberRole_MEMBER_ROLE_MEMBER, Username: sub, DisplayName: sub, RoleIds: roleIDs},
				Issuer: s.Issuer.URL(), Subject: sub, State: storepb.MemberState_MEMBER_STATE_ACTIVE,
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
