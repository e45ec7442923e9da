package web_test

import (
	"fmt"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The codes of the rank matrices. ok is success.
const (
	ok  = connect.Code(0)
	den = connect.CodePermissionDenied
	nf  = connect.CodeNotFound
	inv = connect.CodeInvalidArgument
	pre = connect.CodeFailedPrecondition
)

// grid is a rank matrix: [caller][target], both in the order of ranks (owner, admin,
// moderator, member).
type grid [4][4]connect.Code

// TestRankMatrix: every call of this issue that acts on a member, for every caller rank and
// every target rank, through HTTP, with the exact code. Each cell acts on a member of its own,
// so one cell's success never changes another's. (Bot targets are covered by the engine's
// TestModerationOfBots and, over HTTP, by TestStatesRefusedTransitions.)
func TestRankMatrix(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	callers := []*webtest.Client{c.owner}
	for _, r := range ranks[1:] {
		callers = append(callers, c.member(r))
	}
	general := c.channel("general")

	matrices := []struct {
		call string
		want grid
		// setup makes the cell's target of rank r; act makes the call.
		setup func(r svcv1.MemberRole) *webtest.Client
		act   func(caller, target *webtest.Client, r svcv1.MemberRole) error
	}{
		{"KickMember", grid{
			{den, ok, ok, ok},
			{den, den, ok, ok},
			{den, den, den, ok},
			{den, den, den, den},
		}, c.member, func(caller, target *webtest.Client, _ svcv1.MemberRole) error {
			_, err := caller.Server.KickMember(ctx, req(&svcv1.KickMemberRequest{MemberId: target.Member.GetId()}))
			return err
		}},
		{"BanMember", grid{
			{den, ok, ok, ok},
			{den, den, ok, ok},
			{den, den, den, ok},
			{den, den, den, den},
		}, c.member, func(caller, target *webtest.Client, _ svcv1.MemberRole) error {
			_, err := caller.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: target.Member.GetId()}))
			return err
		}},
		// The target is banned at rank r by the owner (the owner, never banned, is not_found).
		{"UnbanMember", grid{
			{nf, ok, ok, ok},
			{nf, den, ok, ok},
			{nf, den, den, ok},
			{den, den, den, den},
		}, func(r svcv1.MemberRole) *webtest.Client {
			m := c.member(r)
			if r != svcv1.MemberRole_MEMBER_ROLE_OWNER {
				if _, err := c.owner.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: m.Member.GetId()})); err != nil {
					t.Fatal(err)
				}
			}
			return m
		}, func(caller, target *webtest.Client, _ svcv1.MemberRole) error {
			_, err := caller.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: target.Member.GetId()}))
			return err
		}},
		// The new rank is one the caller may give: moderator for a member, member otherwise.
		{"SetMemberRole", grid{
			{den, ok, ok, ok},
			{den, den, ok, ok},
			{den, den, den, den},
			{den, den, den, den},
		}, c.member, func(caller, target *webtest.Client, r svcv1.MemberRole) error {
			to := svcv1.MemberRole_MEMBER_ROLE_MEMBER
			if r == svcv1.MemberRole_MEMBER_ROLE_MEMBER {
				to = svcv1.MemberRole_MEMBER_ROLE_MODERATOR
			}
			_, err := caller.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: target.Member.GetId(), Role: to}))
			return err
		}},
		// The target wrote the reported message; the cell's caller resolves the report.
		{"ResolveReport", grid{
			{ok, ok, ok, ok},
			{nf, nf, ok, ok},
			{nf, nf, nf, ok},
			{den, den, den, den},
		}, func(r svcv1.MemberRole) *webtest.Client { return callers[rankIndex(r)] },
			func(caller, author *webtest.Client, _ svcv1.MemberRole) error {
				id := reportOf(t, c, author, general.GetId())
				_, err := caller.Server.ResolveReport(ctx, req(&svcv1.ResolveReportRequest{ReportId: id}))
				return err
			}},
		// Blocking, muting and reporting are for anyone about anyone but themselves.
		{"BlockMember", grid{
			{inv, ok, ok, ok},
			{ok, inv, ok, ok},
			{ok, ok, inv, ok},
			{ok, ok, ok, inv},
		}, func(r svcv1.MemberRole) *webtest.Client { return callers[rankIndex(r)] },
			func(caller, target *webtest.Client, _ svcv1.MemberRole) error {
				_, err := caller.Server.BlockMember(ctx, req(&svcv1.BlockMemberRequest{MemberId: target.Member.GetId()}))
				return err
			}},
		{"MuteMember", grid{
			{inv, ok, ok, ok},
			{ok, inv, ok, ok},
			{ok, ok, inv, ok},
			{ok, ok, ok, inv},
		}, func(r svcv1.MemberRole) *webtest.Client { return callers[rankIndex(r)] },
			func(caller, target *webtest.Client, _ svcv1.MemberRole) error {
				_, err := caller.Server.MuteMember(ctx, req(&svcv1.MuteMemberRequest{MemberId: target.Member.GetId()}))
				return err
			}},
		{"UnblockMember", grid{
			{inv, ok, ok, ok},
			{ok, inv, ok, ok},
			{ok, ok, inv, ok},
			{ok, ok, ok, inv},
		}, func(r svcv1.MemberRole) *webtest.Client { return callers[rankIndex(r)] },
			func(caller, target *webtest.Client, _ svcv1.MemberRole) error {
				_, err := caller.Server.UnblockMember(ctx, req(&svcv1.UnblockMemberRequest{MemberId: target.Member.GetId()}))
				return err
			}},
		{"UnmuteMember", grid{
			{inv, ok, ok, ok},
			{ok, inv, ok, ok},
			{ok, ok, inv, ok},
			{ok, ok, ok, inv},
		}, func(r svcv1.MemberRole) *webtest.Client { return callers[rankIndex(r)] },
			func(caller, target *webtest.Client, _ svcv1.MemberRole) error {
				_, err := caller.Server.UnmuteMember(ctx, req(&svcv1.UnmuteMemberRequest{MemberId: target.Member.GetId()}))
				return err
			}},
		{"ReportMessage", grid{
			{inv, ok, ok, ok},
			{ok, inv, ok, ok},
			{ok, ok, inv, ok},
			{ok, ok, ok, inv},
		}, func(r svcv1.MemberRole) *webtest.Client { return callers[rankIndex(r)] },
			func(caller, author *webtest.Client, _ svcv1.MemberRole) error {
				m := c.send(author, general.GetId(), "report me")
				c.clock.Advance(10 * time.Minute)
				_, err := caller.Server.ReportMessage(ctx, req(&svcv1.ReportMessageRequest{MessageId: m.GetId()}))
				return err
			}},
	}
	for _, mx := range matrices {
		for i, caller := range callers {
			for j, r := range ranks {
				target := mx.setup(r)
				err := mx.act(caller, target, r)
				if got, want := codeOf(err), mx.want[i][j]; got != want {
					t.Errorf("%s by %s on %s: %v, want %v", mx.call, rankLabel(ranks[i]), rankLabel(r), err, codeName(want))
				}
			}
		}
	}

	// ListReports: which authors' reports each rank sees.
	for _, author := range callers {
		reportOf(t, c, author, general.GetId())
	}
	sees := [4][4]bool{
		{true, true, true, true},
		{false, false, true, true},
		{false, false, false, true},
	}
	for i, caller := range callers {
		res, err := caller.Server.ListReports(ctx, req(&svcv1.ListReportsRequest{}))
		if i == 3 {
			wantCode(t, "ListReports by a member", err, den, "moderator rank or higher")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var got [4]bool
		for _, rep := range res.Msg.GetReports() {
			got[rankIndex(rep.GetAuthor().GetRole())] = true
		}
		if got != sees[i] {
			t.Errorf("ListReports by %s sees reports about %v, want %v", rankLabel(ranks[i]), got, sees[i])
		}
	}

	// Calls without a target: who may make them.
	for _, tc := range []struct {
		call string
		want [4]connect.Code
		act  func(caller *webtest.Client) error
	}{
		{"ListBans", [4]connect.Code{ok, ok, ok, den}, func(caller *webtest.Client) error {
			_, err := caller.Server.ListBans(ctx, req(&svcv1.ListBansRequest{}))
			return err
		}},
		{"CreateInvite", [4]connect.Code{ok, ok, ok, den}, func(caller *webtest.Client) error {
			_, err := caller.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{}))
			return err
		}},
		{"ListInvites", [4]connect.Code{ok, ok, ok, den}, func(caller *webtest.Client) error {
			_, err := caller.Server.ListInvites(ctx, req(&svcv1.ListInvitesRequest{}))
			return err
		}},
		{"RevokeInvite", [4]connect.Code{ok, ok, ok, den}, func(caller *webtest.Client) error {
			inv, err := c.owner.Server.CreateInvite(ctx, req(&svcv1.CreateInviteRequest{}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = caller.Server.RevokeInvite(ctx, req(&svcv1.RevokeInviteRequest{Code: inv.Msg.GetInvite().GetCode()}))
			return err
		}},
		{"UpdateServerSettings", [4]connect.Code{ok, ok, den, den}, func(caller *webtest.Client) error {
			_, err := caller.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{Description: ptr("hi")}))
			return err
		}},
		{"ListMembers", [4]connect.Code{ok, ok, ok, ok}, func(caller *webtest.Client) error {
			_, err := caller.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
			return err
		}},
		// Last, on members of their own: leaving takes the caller out.
		{"LeaveCommunity", [4]connect.Code{pre, ok, ok, ok}, func(caller *webtest.Client) error {
			if caller != c.owner {
				caller = c.member(caller.Member.GetRole())
			}
			_, err := caller.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
			return err
		}},
	} {
		for i, caller := range callers {
			if err := tc.act(caller); codeOf(err) != tc.want[i] {
				t.Errorf("%s by %s: %v, want %v", tc.call, rankLabel(ranks[i]), err, codeName(tc.want[i]))
			}
		}
	}
}

func rankIndex(r svcv1.MemberRole) int {
	for i, x := range ranks {
		if x == r {
			return i
		}
	}
	panic(fmt.Sprint("no rank ", r))
}

func codeName(c connect.Code) string {
	if c == ok {
		return "success"
	}
	return c.String()
}

// reportOf has a fresh member report a fresh message of author and returns the report's id
// (the owner lists every report).
func reportOf(t *testing.T, c *community, author *webtest.Client, channelID string) string {
	t.Helper()
	m := c.send(author, channelID, "reported")
	reporter := c.member(svcv1.MemberRole_MEMBER_ROLE_MEMBER)
	if _, err := reporter.Server.ReportMessage(ctx, req(&svcv1.ReportMessageRequest{MessageId: m.GetId(), Note: "look"})); err != nil {
		t.Fatal(err)
	}
	res, err := c.owner.Server.ListReports(ctx, req(&svcv1.ListReportsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range res.Msg.GetReports() {
		if rep.GetMessage().GetId() == m.GetId() {
			return rep.GetId()
		}
	}
	t.Fatalf("the owner does not list the report of %s", m.GetId())
	return ""
}
