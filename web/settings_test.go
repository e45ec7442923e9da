package web_test

import (
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestSetupWizardAndSettings: the setup wizard is the owner's alone; every setting of
// UpdateServerSettings lands in GetServerInfo (public); a bad field changes nothing; each
// change sends server_updated to every member, and a mode change channel_mode_changed first.
func TestSetupWizardAndSettings(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Client(s.Token("owner"))
	if _, err := owner.Server.Join(ctx, req(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	bob := s.Client(s.Token("bob"))
	res, err := bob.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	bob.Member = res.Msg.GetMember()
	// During setup the owner may already hand out ranks, but only the owner finishes it.
	if _, err := owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: bob.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_ADMIN})); err != nil {
		t.Fatal(err)
	}
	_, err = bob.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Name: ptr("Mine")}))
	wantCode(t, "an admin changing settings during setup", err, connect.CodePermissionDenied, "being set up")

	mode := svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
	all := &svcv1.UpdateServerSettingsRequest{
		Name:             ptr("Gardeners"),
		Description:      ptr("We grow **things**."),
		AccentColor:      ptr("#33AA55"),
		InviteOnly:       ptr(true),
		RetentionDays:    ptr(int32(365)),
		ChannelMode:      &mode,
		SetupComplete:    ptr(true),
		JoinQuestions:    []string{"What do you grow?", "Where?"},
		SetJoinQuestions: true,
	}
	if _, err := owner.Server.UpdateServerSettings(ctx, req(all)); err != nil {
		t.Fatal(err)
	}
	info, err := s.Client("").Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	i := info.Msg
	if i.GetName() != "Gardeners" || i.GetDescription() != "We grow **things**." || i.GetAccentColor() != "#33AA55" || !i.GetInviteOnly() ||
		i.GetRetentionDays() != 365 || i.GetNeedsSetup() || !slices.Equal(i.GetJoinQuestions(), all.JoinQuestions) || i.GetMemberCount() != 2 {
		t.Fatalf("GetServerInfo after every setting = %v", i)
	}
	st, err := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	if err != nil || st.Msg.GetChannelMode() != mode {
		t.Fatalf("GetState after the mode change: %v %v", st, err)
	}

	os, bs := owner.Subscribe(t, st.Msg.GetSeq()), bob.Subscribe(t, st.Msg.GetSeq())
	roles := svcv1.ChannelMode_CHANNEL_MODE_ROLES
	got := between(t, owner, func() {
		if _, err := bob.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{ChannelMode: &roles})); err != nil {
			t.Fatal(err)
		}
		if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetJoinQuestions: true})); err != nil {
			t.Fatal(err)
		}
	}, os, bs)
	want := []string{"channel_mode_changed:CHANNEL_MODE_ROLES", "server_updated", "server_updated"}
	wantEvents(t, got, [][]string{want, want}, "owner", "bob")

	// A bad field anywhere: invalid_argument naming it, and nothing else is applied.
	for _, tc := range []struct {
		r    *svcv1.UpdateServerSettingsRequest
		want string
	}{
		{&svcv1.UpdateServerSettingsRequest{Name: ptr("Half"), RetentionDays: ptr(int32(36501))}, "retention_days must be 0 (keep forever) to 36,500; got 36501"},
		{&svcv1.UpdateServerSettingsRequest{Name: ptr("Half"), SetJoinQuestions: true, JoinQuestions: []string{strings.Repeat("q", 201)}}, "each of join_questions is 201 characters; the limit is 200"},
		{&svcv1.UpdateServerSettingsRequest{Name: ptr("Half"), SetJoinQuestions: true, JoinQuestions: []string{""}}, "join_questions must not contain an empty question"},
		{&svcv1.UpdateServerSettingsRequest{Name: ptr("Half"), JoinQuestions: []string{"q"}}, "join_questions is only applied with set_join_questions true"},
		{&svcv1.UpdateServerSettingsRequest{Name: ptr("Half"), AccentColor: ptr("#12345")}, "accent_color must be #rrggbb or empty"},
	} {
		_, err := owner.Server.UpdateServerSettings(ctx, req(tc.r))
		wantCode(t, tc.want, err, connect.CodeInvalidArgument, tc.want)
	}
	_, err = bob.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: ptr(false)}))
	wantCode(t, "an admin reopening the setup", err, connect.CodePermissionDenied, "only the owner")
	// An unknown upload refuses the whole change.
	_, err = owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Name: ptr("Half"), IconId: ptr("x")}))
	wantCode(t, "icon_id", err, connect.CodeNotFound, "icon_id: upload x does not exist")
	info, _ = owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if info.Msg.GetName() != "Gardeners" || len(info.Msg.GetJoinQuestions()) != 0 {
		t.Fatalf("after refused changes: %v, want the name kept and the questions cleared", info.Msg)
	}
}
