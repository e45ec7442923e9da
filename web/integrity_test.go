package web_test

import (
	"fmt"
	"sync"
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
	t.Parallel()
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

// Calls that race land one after the other in the writer: the same client_id sent at once
// (with different texts) makes one message, and one DM comes of many OpenDM at once by both
// of its members.
func TestRacingSendsAndDMsMakeOneOfEach(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	alice := s.Join("alice")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	const n = 8
	msgs := make([]*svcv1.Message, n)
	dms := make([]*svcv1.Channel, n)
	errs := make([]error, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			res, err := owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: general.GetId(), ClientId: "once", Text: fmt.Sprint("try ", i)}))
			if errs[i] = err; err == nil {
				msgs[i] = res.Msg.GetMessage()
			}
		}()
		go func() {
			defer wg.Done()
			opener, other := owner, alice
			if i%2 == 1 {
				opener, other = alice, owner
			}
			res, err := opener.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: []string{other.Member.GetId()}}))
			if errs[n+i] = err; err == nil {
				dms[i] = res.Msg.GetChannel()
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	for i := range n {
		if msgs[i].GetId() != msgs[0].GetId() || msgs[i].GetText() != msgs[0].GetText() {
			t.Fatalf("send %d got %v, send 0 got %v: want the same message", i, msgs[i], msgs[0])
		}
		if dms[i].GetId() != dms[0].GetId() {
			t.Fatalf("OpenDM %d got channel %s, OpenDM 0 got %s: want one DM", i, dms[i].GetId(), dms[0].GetId())
		}
	}
	list, err := owner.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: general.GetId()}))
	if err != nil || len(list.Msg.GetMessages()) != 1 {
		t.Fatalf("general holds %v (%v), want the one message", list.Msg.GetMessages(), err)
	}
	s.Restart()
	state, err := alice.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, ch := range state.Msg.GetChannels() {
		if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_DM {
			count++
		}
	}
	if count != 1 {
		t.Fatalf("alice has %d DMs after a restart, want 1", count)
	}
}
