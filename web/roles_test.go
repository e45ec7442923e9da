package web_test

import (
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestRoles: create, rename, recolor, reorder and delete roles; every member hears of each
// change; GetState lists them by position.
func TestRoles(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	seq := c.s.Engine.Seq()
	streams := []*webtest.Stream{c.member.Subscribe(t, seq), c.bot.Subscribe(t, seq)}
	names := []string{"member", "bot"}
	expect := func(want ...string) {
		t.Helper()
		c.labels.expect(t, c.owner, streams, names, want, want)
	}

	res, err := c.admin.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "  Gardeners ", Color: "#33aa55"}))
	if err != nil {
		t.Fatal(err)
	}
	gardeners := res.Msg.GetRole()
	if gardeners.GetName() != "Gardeners" || gardeners.GetColor() != "#33aa55" || gardeners.GetPosition() != 0 || gardeners.GetId() == "" {
		t.Fatalf("new role = %v", gardeners)
	}
	cooks := c.role(t, "Cooks")
	bakers := c.role(t, "Bakers")
	if cooks.GetPosition() != 1 || bakers.GetPosition() != 2 {
		t.Fatalf("positions %d %d, want 1 2: a new role goes last", cooks.GetPosition(), bakers.GetPosition())
	}
	expect("role_updated:Gardeners@0", "role_updated:Cooks@1", "role_updated:Bakers@2")

	// Moving a role renumbers those it passes; each changed role is announced in the new order.
	up, err := c.owner.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: bakers.GetId(), Position: ptr(int32(0))}))
	if err != nil || up.Msg.GetRole().GetPosition() != 0 {
		t.Fatalf("moving Bakers first: %v %v", up, err)
	}
	expect("role_updated:Bakers@0", "role_updated:Gardeners@1", "role_updated:Cooks@2")
	_, err = c.owner.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: bakers.GetId(), Position: ptr(int32(99)), Name: ptr("Bread"), Color: ptr("")}))
	wantOK(t, "moving Bakers past the end and renaming it", err)
	expect("role_updated:Gardeners@0", "role_updated:Cooks@1", "role_updated:Bread@2")
	if got := roleNames(t, c.member); !slices.Equal(got, []string{"Gardeners", "Cooks", "Bread"}) {
		t.Fatalf("GetState roles = %v", got)
	}

	// Changing nothing sends nothing; a new case of its own name is fine.
	_, err = c.owner.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: cooks.GetId(), Name: ptr("Cooks"), Position: ptr(int32(1))}))
	wantOK(t, "an update that changes nothing", err)
	_, err = c.owner.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: cooks.GetId(), Name: ptr("COOKS")}))
	wantOK(t, "renaming to another case", err)
	expect("role_updated:COOKS@1")

	// Deleting takes the role from every member; role_deleted alone tells the clients.
	mustSetRoles(t, c.owner, c.member, cooks, gardeners)
	mustSetRoles(t, c.owner, c.bot, cooks)
	expect("member_updated:member", "member_updated:bot")
	_, err = c.admin.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: cooks.GetId()}))
	wantOK(t, "deleting COOKS", err)
	expect("role_deleted:Cooks")
	state, err := c.member.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(state.Msg.GetMe().GetRoleIds(), []string{gardeners.GetId()}) {
		t.Fatalf("member's roles after the delete: %v", state.Msg.GetMe().GetRoleIds())
	}
	for _, m := range state.Msg.GetMembers() {
		if slices.Contains(m.GetRoleIds(), cooks.GetId()) {
			t.Fatalf("%s still holds the deleted role", m.GetUsername())
		}
	}
	if got := roleNames(t, c.member); !slices.Equal(got, []string{"Gardeners", "Bread"}) {
		t.Fatalf("GetState roles after the delete = %v", got)
	}
	// The name is free again, and a new role still goes last.
	again := c.role(t, "cooks")
	if again.GetPosition() != 3 {
		t.Fatalf("a role made after a delete has position %d, want 3 (after the last)", again.GetPosition())
	}
}

// TestDeleteRoleWhileAChannelListsIt: failed_precondition naming the channel, nothing changes;
// once the channel no longer lists the role, it goes.
func TestDeleteRoleWhileAChannelListsIt(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	r := c.role(t, "gardeners")
	garden := c.channel(t, c.owner, "garden", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustAccess(t, c.owner, garden, false, r)
	mustSetRoles(t, c.owner, c.member, r)
	seq := c.s.Engine.Seq()
	_, err := c.owner.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: r.GetId()}))
	wantCode(t, "deleting a role a channel lists", err, connect.CodeFailedPrecondition, `role "gardeners" still limits channel "garden"`, "SetChannelAccess")
	if c.s.Engine.Seq() != seq || len(roleNames(t, c.member)) != 1 {
		t.Fatal("the refused delete changed something")
	}
	mustAccess(t, c.owner, garden, false)
	_, err = c.owner.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: r.GetId()}))
	wantOK(t, "deleting it once the channel is open to all", err)
}

func TestRoleBadInput(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	r := c.role(t, "Gardeners")
	c.role(t, "Cooks")
	seq := c.s.Engine.Seq()
	for _, tc := range []struct {
		what string
		r    *svcv1.CreateRoleRequest
		code connect.Code
		want string
	}{
		{"an empty name", &svcv1.CreateRoleRequest{Name: "   "}, connect.CodeInvalidArgument, "name must be 1 to 32 characters; it is empty"},
		{"a long name", &svcv1.CreateRoleRequest{Name: strings.Repeat("é", 33)}, connect.CodeInvalidArgument, "name is 33 characters; the limit is 32"},
		{"a control character", &svcv1.CreateRoleRequest{Name: "a\nb"}, connect.CodeInvalidArgument, "name must not contain control characters"},
		{"a taken name", &svcv1.CreateRoleRequest{Name: "gARDENERS"}, connect.CodeAlreadyExists, `a role named "Gardeners" exists`},
		{"a bad color", &svcv1.CreateRoleRequest{Name: "x", Color: "green"}, connect.CodeInvalidArgument, `color must be #rrggbb or empty; got "green"`},
		{"a short color", &svcv1.CreateRoleRequest{Name: "x", Color: "#abc"}, connect.CodeInvalidArgument, "color must be #rrggbb"},
	} {
		_, err := c.owner.Server.CreateRole(ctx, req(tc.r))
		wantCode(t, "CreateRole with "+tc.what, err, tc.code, tc.want)
	}
	for _, tc := range []struct {
		what string
		r    *svcv1.UpdateRoleRequest
		code connect.Code
		want string
	}{
		{"no role id", &svcv1.UpdateRoleRequest{Name: ptr("x")}, connect.CodeInvalidArgument, "role_id is required"},
		{"an unknown role", &svcv1.UpdateRoleRequest{RoleId: "nope", Name: ptr("x")}, connect.CodeNotFound, "role nope does not exist"},
		{"another role's name", &svcv1.UpdateRoleRequest{RoleId: r.GetId(), Name: ptr("cooks")}, connect.CodeAlreadyExists, `a role named "Cooks" exists`},
		{"an empty name", &svcv1.UpdateRoleRequest{RoleId: r.GetId(), Name: ptr("")}, connect.CodeInvalidArgument, "name must be 1 to 32 characters"},
		{"a bad color", &svcv1.UpdateRoleRequest{RoleId: r.GetId(), Color: ptr("#12345g")}, connect.CodeInvalidArgument, "color must be #rrggbb"},
		{"a negative position", &svcv1.UpdateRoleRequest{RoleId: r.GetId(), Position: ptr(int32(-1))}, connect.CodeInvalidArgument, "position must be 0 or more; got -1"},
	} {
		_, err := c.owner.Server.UpdateRole(ctx, req(tc.r))
		wantCode(t, "UpdateRole with "+tc.what, err, tc.code, tc.want)
	}
	_, err := c.owner.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: "nope"}))
	wantCode(t, "DeleteRole of an unknown role", err, connect.CodeNotFound, "role nope does not exist")
	_, err = c.owner.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{}))
	wantCode(t, "DeleteRole without an id", err, connect.CodeInvalidArgument, "role_id is required")
	for _, tc := range []struct {
		what string
		r    *svcv1.SetMemberRolesRequest
		code connect.Code
		want string
	}{
		{"no member id", &svcv1.SetMemberRolesRequest{RoleIds: []string{r.GetId()}}, connect.CodeInvalidArgument, "member_id is required"},
		{"an unknown member", &svcv1.SetMemberRolesRequest{MemberId: "ghost"}, connect.CodeNotFound, "member ghost is not in this community"},
		{"an unknown role", &svcv1.SetMemberRolesRequest{MemberId: c.member.Member.GetId(), RoleIds: []string{r.GetId(), "nope"}}, connect.CodeNotFound, "role_ids: role nope does not exist"},
		{"an empty role id", &svcv1.SetMemberRolesRequest{MemberId: c.member.Member.GetId(), RoleIds: []string{""}}, connect.CodeInvalidArgument, "role_ids[0] is empty"},
		{"251 role ids", &svcv1.SetMemberRolesRequest{MemberId: c.member.Member.GetId(), RoleIds: make([]string, 251)}, connect.CodeInvalidArgument, "role_ids has 251 ids; the limit is 250"},
	} {
		_, err := c.owner.Server.SetMemberRoles(ctx, req(tc.r))
		wantCode(t, "SetMemberRoles with "+tc.what, err, tc.code, tc.want)
	}
	if c.s.Engine.Seq() != seq {
		t.Fatal("a refused call wrote an event")
	}
	// Repeats are dropped; setting the same roles again sends nothing.
	res, err := c.owner.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: c.bot.Member.GetId(), RoleIds: []string{r.GetId(), r.GetId()}}))
	if err != nil || !slices.Equal(res.Msg.GetMember().GetRoleIds(), []string{r.GetId()}) || res.Msg.GetMember().GetKind() != svcv1.MemberKind_MEMBER_KIND_BOT {
		t.Fatalf("SetMemberRoles on a bot: %v %v", res, err)
	}
	seq = c.s.Engine.Seq()
	_, err = c.owner.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: c.bot.Member.GetId(), RoleIds: []string{r.GetId()}}))
	if err != nil || c.s.Engine.Seq() != seq {
		t.Fatalf("setting the same roles again: %v, seq %d -> %d", err, seq, c.s.Engine.Seq())
	}
}

func roleNames(t *testing.T, who *webtest.Client) []string {
	t.Helper()
	res, err := who.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Msg.GetRoles() {
		out = append(out, r.GetName())
	}
	return out
}
