package web_test

import (
	"fmt"
	"slices"
	"testing"

	"connectrpc.com/connect"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The permission matrix of DMs, private channels, channel access, channel modes and roles: for
// each call, each caller rank, each target rank, in and out of the channel, with and without the
// role, the expected code. Every row runs on a channel or role of its own, so rows never depend
// on one another.

const (
	codeOK           = connect.Code(0)
	codeDenied       = connect.CodePermissionDenied
	codePrecondition = connect.CodeFailedPrecondition
	codeInvalid      = connect.CodeInvalidArgument
)

// rankNames are the columns (targets) and rows (callers) of the matrices, in this order.
var rankNames = []string{"member", "moderator", "admin", "owner", "bot"}

// codeMatrix is the expected code per caller rank (key) and target rank (index as in rankNames).
type codeMatrix map[string][5]connect.Code

// one is the cast member of a rank.
func (c *cast) one(rank string) *webtest.Client {
	switch rank {
	case "member":
		return c.member
	case "moderator":
		return c.mod
	case "admin":
		return c.admin
	case "owner":
		return c.owner
	}
	return c.bot
}

// target is a member of a rank other than the caller (of the same rank when asked), except the
// owner, of whom there is one: the owner as target of the owner is the owner themself.
func (c *cast) target(caller *webtest.Client, rank string) *webtest.Client {
	t := c.one(rank)
	if t != caller {
		return t
	}
	switch rank {
	case "member":
		return c.member2
	case "moderator":
		return c.mod2
	case "admin":
		return c.admin2
	case "bot":
		return c.bot2
	}
	return t
}

// private makes a private channel of exactly these members (the owner creates it and leaves
// unless among them).
func (c *cast) private(t *testing.T, members ...*webtest.Client) *svcv1.Channel {
	t.Helper()
	ch := mustChannel(t, c.owner, "p", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE)
	var others []*webtest.Client
	for _, m := range members {
		if m != c.owner && !slices.Contains(others, m) {
			others = append(others, m)
		}
	}
	if len(others) > 0 {
		mustAdd(t, c.owner, ch, others...)
	}
	if !slices.Contains(members, c.owner) {
		if _, err := c.owner.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: ch.GetId()})); err != nil {
			t.Fatal(err)
		}
	}
	return ch
}

func checkCode(t *testing.T, what string, err error, want connect.Code) {
	t.Helper()
	if codeOf(err) != want {
		w := "ok"
		if want != codeOK {
			w = want.String()
		}
		t.Errorf("%s: got %v, want %s", what, err, w)
	}
}

func TestPermissionsPrivateChannels(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	removeOther := codeMatrix{
		"member":    {codeDenied, codeDenied, codeDenied, codeDenied, codeDenied},
		"moderator": {codeOK, codeDenied, codeDenied, codeDenied, codeOK},
		"admin":     {codeOK, codeOK, codeDenied, codeDenied, codeOK},
		"owner":     {codeOK, codeOK, codeOK, codeOK /* own id */, codeOK},
		"bot":       {codeDenied, codeDenied, codeDenied, codeDenied, codeDenied},
	}
	for _, cr := range rankNames {
		caller := c.one(cr)
		for i, tr := range rankNames {
			target := c.target(caller, tr)
			what := fmt.Sprintf("%s removes a %s", cr, tr)

			ch := c.private(t, caller, target)
			_, err := caller.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: ch.GetId(), MemberId: target.Member.GetId()}))
			checkCode(t, what+", both in the channel", err, removeOther[cr][i])

			ch = c.private(t, target)
			_, err = caller.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: ch.GetId(), MemberId: target.Member.GetId()}))
			want := codeDenied
			if caller == target {
				want = codeOK // the owner removing themself: they are in, being the target
			}
			checkCode(t, what+", the caller out of the channel", err, want)

			// Any member of the channel may add anyone; nobody outside may, admins included.
			what = fmt.Sprintf("%s adds a %s", cr, tr)
			ch = c.private(t, caller)
			_, err = caller.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: ch.GetId(), MemberIds: memberIDs(target)}))
			checkCode(t, what+", the caller in the channel", err, codeOK)
			ch = c.private(t, c.member2)
			_, err = caller.Chat.AddChannelMembers(ctx, req(&svcv1.AddChannelMembersRequest{ChannelId: ch.GetId(), MemberIds: memberIDs(target)}))
			checkCode(t, what+", the caller out of the channel", err, codeDenied)
		}
		// Removing oneself: fine when in, refused (nothing to see) when out.
		ch := c.private(t, caller)
		_, err := caller.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: ch.GetId(), MemberId: caller.Member.GetId()}))
		checkCode(t, cr+" removes themself, in the channel", err, codeOK)
		_, err = caller.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: ch.GetId(), MemberId: caller.Member.GetId()}))
		checkCode(t, cr+" removes themself, out of the channel", err, codeDenied)
	}
}

func TestPermissionsDMs(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	dms := map[[2]string]*svcv1.Channel{}
	for _, cr := range rankNames {
		caller := c.one(cr)
		for _, tr := range rankNames {
			target := c.target(caller, tr)
			if target == caller {
				continue // a DM needs someone else
			}
			res, err := caller.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(target)}))
			checkCode(t, fmt.Sprintf("%s opens a DM with a %s", cr, tr), err, codeOK)
			dms[[2]string{cr, tr}] = res.Msg.GetChannel()

			// In a DM nobody removes anyone else, whatever their rank.
			_, err = caller.Chat.RemoveChannelMember(ctx, req(&svcv1.RemoveChannelMemberRequest{ChannelId: res.Msg.GetChannel().GetId(), MemberId: target.Member.GetId()}))
			checkCode(t, fmt.Sprintf("%s removes a %s from their DM", cr, tr), err, codeInvalid)
		}
	}
	// With a block between the two, in either direction: refused whatever the rankNames.
	c.s.Seed(func(b *store.Batch) error {
		for _, cr := range rankNames {
			for _, tr := range rankNames {
				caller, target := c.one(cr), c.target(c.one(cr), tr)
				if caller != target {
					if err := b.SetBlock(target.Member.GetId(), caller.Member.GetId(), true); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	for key, dm := range dms {
		caller, target := c.one(key[0]), c.target(c.one(key[0]), key[1])
		_, err := caller.Chat.OpenDM(ctx, req(&svcv1.OpenDMRequest{MemberIds: memberIDs(target)}))
		checkCode(t, fmt.Sprintf("%s opens a DM with a %s who blocked them", key[0], key[1]), err, codeDenied)
		_, err = caller.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "hi"}))
		checkCode(t, fmt.Sprintf("%s writes to a %s who blocked them", key[0], key[1]), err, codeDenied)
		_, err = target.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: dm.GetId(), Text: "hi"}))
		checkCode(t, fmt.Sprintf("a %s writes to the %s they blocked", key[1], key[0]), err, codeDenied)
	}
}

// seesLimited says whether a caller of a rank sees a channel limited to a role they hold or not.
func seesLimited(rank string, withRole bool) bool {
	return withRole || rank == "admin" || rank == "owner"
}

func TestPermissionsChannelAccessAndModes(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	r := c.role(t, "r")
	for _, mode := range []svcv1.ChannelMode{svcv1.ChannelMode_CHANNEL_MODE_ROLES, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN} {
		setMode(t, c.owner, mode)
		optIn := mode == svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
		for _, cr := range rankNames {
			caller := c.one(cr)
			for _, withRole := range []bool{true, false} {
				if withRole {
					mustSetRoles(t, c.owner, caller, r)
				} else {
					mustSetRoles(t, c.owner, caller)
				}
				what := fmt.Sprintf("%s, %s the role, in %v", cr, map[bool]string{true: "with", false: "without"}[withRole], mode)
				sees := seesLimited(cr, withRole)
				limited := mustChannel(t, c.owner, "limited", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
				mustAccess(t, c.owner, limited, false, r)

				var want connect.Code
				switch {
				case cr == "admin" || cr == "owner":
					want = codeOK
				default:
					want = codeDenied
				}
				_, err := caller.Chat.SetChannelAccess(ctx, req(&svcv1.SetChannelAccessRequest{ChannelId: limited.GetId(), RoleIds: []string{r.GetId()}, IsDefault: true}))
				checkCode(t, "SetChannelAccess by "+what, err, want)

				res, err := caller.Chat.BrowseChannels(ctx, req(&svcv1.BrowseChannelsRequest{}))
				checkCode(t, "BrowseChannels by "+what, err, codeOK)
				listed := slices.ContainsFunc(res.Msg.GetChannels(), func(ch *svcv1.Channel) bool { return ch.GetId() == limited.GetId() })
				if listed != sees {
					t.Errorf("BrowseChannels by %s lists the limited channel: %v, want %v", what, listed, sees)
				}

				_, err = caller.Chat.ListMessages(ctx, req(&svcv1.ListMessagesRequest{ChannelId: limited.GetId()}))
				checkCode(t, "ListMessages by "+what, err, map[bool]connect.Code{true: codeOK, false: codeDenied}[sees])
				_, err = caller.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: limited.GetId(), Text: "x"}))
				checkCode(t, "SendMessage by "+what, err, map[bool]connect.Code{true: codeOK, false: codeDenied}[sees])

				// Join and leave: OPT_IN mode only, and only what one sees; leaving what one does
				// not see is nothing to do.
				want = codeDenied
				switch {
				case sees && optIn:
					want = codeOK
				case sees:
					want = codePrecondition
				}
				_, err = caller.Chat.JoinChannel(ctx, req(&svcv1.JoinChannelRequest{ChannelId: limited.GetId()}))
				checkCode(t, "JoinChannel by "+what, err, want)
				want = codeOK
				if sees && !optIn {
					want = codePrecondition
				}
				_, err = caller.Chat.LeaveChannel(ctx, req(&svcv1.LeaveChannelRequest{ChannelId: limited.GetId()}))
				checkCode(t, "LeaveChannel by "+what, err, want)
			}
		}
	}
}

func TestPermissionsRoles(t *testing.T) {
	t.Parallel()
	c := newCast(t)
	for _, cr := range rankNames {
		caller := c.one(cr)
		want := codeDenied
		if cr == "admin" || cr == "owner" {
			want = codeOK
		}
		_, err := caller.Server.CreateRole(ctx, req(&svcv1.CreateRoleRequest{Name: "by " + cr}))
		checkCode(t, "CreateRole by "+cr, err, want)
		r := c.role(t, "for "+cr)
		_, err = caller.Server.UpdateRole(ctx, req(&svcv1.UpdateRoleRequest{RoleId: r.GetId(), Color: ptr("#000000")}))
		checkCode(t, "UpdateRole by "+cr, err, want)
		_, err = caller.Server.DeleteRole(ctx, req(&svcv1.DeleteRoleRequest{RoleId: r.GetId()}))
		checkCode(t, "DeleteRole by "+cr, err, want)
	}

	r := c.role(t, "r")
	setRoles := codeMatrix{
		"member":    {codeDenied, codeDenied, codeDenied, codeDenied, codeDenied},
		"moderator": {codeDenied, codeDenied, codeDenied, codeDenied, codeDenied},
		"admin":     {codeOK, codeOK, codeDenied, codeDenied, codeOK},
		"owner":     {codeOK, codeOK, codeOK, codeOK /* own */, codeOK},
		"bot":       {codeDenied, codeDenied, codeDenied, codeDenied, codeDenied},
	}
	for _, cr := range rankNames {
		caller := c.one(cr)
		for i, tr := range rankNames {
			target := c.target(caller, tr)
			_, err := caller.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: target.Member.GetId(), RoleIds: []string{r.GetId()}}))
			checkCode(t, fmt.Sprintf("SetMemberRoles by %s on a %s", cr, tr), err, setRoles[cr][i])
		}
		want := codeDenied
		if cr == "admin" || cr == "owner" {
			want = codeOK
		}
		_, err := caller.Server.SetMemberRoles(ctx, req(&svcv1.SetMemberRolesRequest{MemberId: caller.Member.GetId(), RoleIds: []string{r.GetId()}}))
		checkCode(t, fmt.Sprintf("SetMemberRoles by %s on themself", cr), err, want)
	}
}
