package web_test

import (
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Tests of the integrity audit: state that two calls together could leave inconsistent.

// A deleted bot frees its username; a person who takes it keeps it, whatever later rewrites
// the deleted bot's row (DeleteRole takes a role from every row, a deleted bot's included).
// The row rewrite used to drop the person's name from the username index, so that a third
// member could take the same username.
func TestRewritingADeletedBotKeepsTheUsernameOfWhoTookIt(t *testing.T) {
	s := webtest.Start(t)
	owner := s.Join("owner")
	alice := s.Join("alice")
	bob := s.Join("bob")
	bot := s.CreateBot(owner, "helper")
	role, err := owner.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "helpers"}))
	if err != nil {
		t.Fatal(err)
	}
	roleID := role.Msg.GetRole().GetId()
	if _, err := owner.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: bot.Member.GetId(), RoleIds: []string{roleID}})); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Bot.DeleteBot(ctx, req(&svcv1.DeleteBotRequest{BotId: bot.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	name := "helper"
	if _, err := alice.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Username: &name})); err != nil {
		t.Fatalf("alice takes the deleted bot's username: %v", err)
	}
	if _, err := owner.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: roleID})); err != nil {
		t.Fatal(err)
	}
	_, err = bob.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Username: &name}))
	wantCode(t, "bob takes alice's username", err, connect.CodeAlreadyExists, "taken")
	_, err = owner.Bot.CreateBot(ctx, req(&svcv1.CreateBotRequest{Username: name}))
	wantCode(t, "a new bot with alice's username", err, connect.CodeAlreadyExists)
}
