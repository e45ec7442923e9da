package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Bots are members of kind BOT. A bot made with CreateBot authenticates with a token of which
// the engine keeps only the SHA-256 (the web layer makes the token and hands the engine its
// hash: the engine never sees a secret it would have to keep). A plugin's bot has no token at
// all: the plugin host calls the engine as that bot directly.
//
// Bots cannot be kicked or banned (DeleteBot is the way); they can hold custom roles and be
// added to private channels like anyone. Managing a bot is for admins and the owner, and, as
// every action on a member, only for a caller who outranks it.

// TokenHash is the SHA-256 of a bot token.
type TokenHash = [32]byte

// CreateBot makes a bot member holding the token whose hash is given, and sends member_joined
// to every member.
func (e *Engine) CreateBot(ctx context.Context, c Caller, req *svcv1.CreateBotRequest, token TokenHash) (*svcv1.Member, error) {
	if err := checkBotProfile(req); err != nil {
		return nil, err
	}
	return submit(e, func(tx *Tx) (*svcv1.Member, error) {
		if _, err := tx.Snap().requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "creating bots"); err != nil {
			return nil, err
		}
		m, err := e.addBot(tx, req, token[:], "")
		if err != nil {
			return nil, err
		}
		if err := auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_BOT_CREATED, m.GetId(), "", "bot "+m.GetUsername()); err != nil {
			return nil, err
		}
		return e.memberView(m), nil
	})
}

// checkBotProfile checks CreateBot's fields against the profile limits.
func checkBotProfile(req *svcv1.CreateBotRequest) error {
	if err := checkUsername("username", req.GetUsername()); err != nil {
		return err
	}
	if err := checkShownText("display_name", req.GetDisplayName(), displayNameMax); err != nil {
		return err
	}
	if err := checkLen("bio", req.GetBio(), bioMax); err != nil {
		return err
	}
	return checkWebURL("avatar_url", req.GetAvatarUrl(), avatarURLMax)
}

// addBot writes a new active bot, joins it to the default channels as any newcomer, and sends
// member_joined. token is the hash of its token (nil for a plugin's bot); plugin names the
// plugin it belongs to.
func (e *Engine) addBot(tx *Tx, req *svcv1.CreateBotRequest, token []byte, plugin string) (*svcv1.Member, error) {
	d := tx.Snap()
	if d.usernameTaken(req.GetUsername(), "") {
		return nil, exists("username %q is taken", req.GetUsername())
	}
	m := &svcv1.Member{
		Id:          uuid.Must(uuid.NewV7()).String(),
		Kind:        svcv1.MemberKind_MEMBER_KIND_BOT,
		Role:        svcv1.MemberRole_MEMBER_ROLE_MEMBER,
		Username:    req.GetUsername(),
		DisplayName: firstNonEmpty(strings.TrimSpace(req.GetDisplayName()), req.GetUsername()),
		AvatarUrl:   req.GetAvatarUrl(),
		Bio:         req.GetBio(),
		JoinedAtMs:  tx.NowMs(),
	}
	rec := &storepb.MemberRecord{
		Member:       m,
		State:        storepb.MemberState_MEMBER_STATE_ACTIVE,
		BotTokenHash: token,
		Plugin:       plugin,
	}
	return m, e.welcome(tx, rec)
}

// ListBots lists the bots in the community, by username.
func (e *Engine) ListBots(ctx context.Context, c Caller, _ *svcv1.ListBotsRequest) (*svcv1.ListBotsResponse, error) {
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	out := &svcv1.ListBotsResponse{Bots: []*svcv1.Member{}}
	for _, r := range d.activeMembers() {
		if r.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT {
			out.Bots = append(out.Bots, e.memberView(r.GetMember()))
		}
	}
	return out, nil
}

// DeleteBot deletes a bot: its token stops working, its username is freed, it leaves its
// private channels, the others get member_left, and its open streams end. Its messages stay,
// and its row stays (as deleted) so that they keep an author.
func (e *Engine) DeleteBot(ctx context.Context, c Caller, req *svcv1.DeleteBotRequest) (*svcv1.DeleteBotResponse, error) {
	id := req.GetBotId()
	if id == "" {
		return nil, invalid("bot_id is required")
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		rec, err := managedBot(tx.Snap(), c, id, "deleting bots")
		if err != nil {
			return struct{}{}, err
		}
		if p := rec.GetPlugin(); p != "" {
			return struct{}{}, precondition("bot %s belongs to the plugin %q: delete it with DeletePlugin", id, p)
		}
		if err := e.deleteBot(tx, rec); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_BOT_DELETED, id, "", "bot "+rec.GetMember().GetUsername())
	})
	if err != nil {
		return nil, err
	}
	return &svcv1.DeleteBotResponse{}, nil
}

// deleteBot removes a bot's token and takes it out of the community for good.
func (e *Engine) deleteBot(tx *Tx, rec *storepb.MemberRecord) error {
	rec = proto.Clone(rec).(*storepb.MemberRecord)
	rec.BotTokenHash = nil
	if err := e.removeMember(tx, rec, storepb.MemberState_MEMBER_STATE_DELETED, ""); err != nil {
		return err
	}
	id := rec.GetMember().GetId()
	tx.afterCommit(func() { e.open.end(id, ErrGone) })
	return nil
}

// RotateBotToken gives a bot the token whose hash is given. The old token fails from the
// next call on (handlers authenticate against the newest Snapshot, which the writer
// publishes before it answers), and the streams opened with it end with unauthenticated.
func (e *Engine) RotateBotToken(ctx context.Context, c Caller, req *svcv1.RotateBotTokenRequest, token TokenHash) error {
	id := req.GetBotId()
	if id == "" {
		return invalid("bot_id is required")
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		rec, err := managedBot(tx.Snap(), c, id, "rotating bot tokens")
		if err != nil {
			return struct{}{}, err
		}
		if p := rec.GetPlugin(); p != "" {
			return struct{}{}, precondition("bot %s belongs to the plugin %q and has no token", id, p)
		}
		rec = proto.Clone(rec).(*storepb.MemberRecord)
		rec.BotTokenHash = token[:]
		if err := tx.putMember(rec); err != nil {
			return struct{}{}, err
		}
		if err := auditMember(tx, c, svcv1.AuditAction_AUDIT_ACTION_BOT_TOKEN_ROTATED, id, "", "bot "+rec.GetMember().GetUsername()); err != nil {
			return struct{}{}, err
		}
		tx.afterCommit(func() {
			e.open.end(id, &Error{Code: CodeUnauthenticated, Msg: "the bot's token was replaced; connect again with the new one"})
		})
		return struct{}{}, nil
	})
	return err
}

// managedBot finds the active bot a call manages and checks the caller may: admin or owner,
// of higher rank than the bot.
func managedBot(d *Snapshot, c Caller, id, what string) (*storepb.MemberRecord, error) {
	me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, what)
	if err != nil {
		return nil, err
	}
	rec := d.active(id)
	if rec == nil || rec.GetMember().GetKind() != svcv1.MemberKind_MEMBER_KIND_BOT {
		return nil, notFound("bot %s does not exist", id)
	}
	if rec.GetMember().GetRole() >= me.GetMember().GetRole() {
		return nil, denied("%s needs a higher rank than the bot's; bot %s is %s", what, id, article(rankName(rec.GetMember().GetRole())))
	}
	return rec, nil
}

// PluginBots maps the name of every plugin that has a bot to the bot's member id.
func (e *Engine) PluginBots() map[string]string {
	out := map[string]string{}
	for _, r := range e.snap.Load().activeMembers() {
		if p := r.GetPlugin(); p != "" {
			out[p] = r.GetMember().GetId()
		}
	}
	return out
}

// EnsurePluginBot returns the bot of the plugin name, creating it (username = name) the first
// time. It fails with already_exists when the username belongs to someone else.
func (e *Engine) EnsurePluginBot(name string) (Caller, error) {
	if err := checkUsername("name", name); err != nil {
		return Caller{}, err
	}
	return submit(e, func(tx *Tx) (Caller, error) {
		d := tx.Snap()
		if id := pluginBot(d, name); id != "" {
			return Caller{ID: id}, nil
		}
		m, err := e.addBot(tx, &svcv1.CreateBotRequest{Username: name, DisplayName: name}, nil, name)
		if err != nil {
			return Caller{}, err
		}
		return Caller{ID: m.GetId()}, nil
	})
}

// DeletePluginBot deletes the bot of the plugin name, if it has one.
func (e *Engine) DeletePluginBot(name string) error {
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		d := tx.Snap()
		id := pluginBot(d, name)
		if id == "" {
			return struct{}{}, nil
		}
		return struct{}{}, e.deleteBot(tx, d.active(id))
	})
	return err
}

// pluginBot is the id of the active bot of a plugin, or "".
func pluginBot(d *Snapshot, name string) string {
	var ids []string
	for _, r := range d.members {
		if r.GetPlugin() == name && r.GetState() == storepb.MemberState_MEMBER_STATE_ACTIVE {
			ids = append(ids, r.GetMember().GetId())
		}
	}
	if len(ids) == 0 {
		return ""
	}
	sort.Strings(ids)
	return ids[0]
}
