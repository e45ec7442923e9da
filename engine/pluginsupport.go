package engine

import (
	"context"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// What the plugin host (engine/plugins, an adapter like web) needs from the engine beyond the
// calls any member makes: the rank check of the plugin calls, their event, and read-only views
// a plugin's `chat` object offers. Everything a plugin does as its bot goes through the same
// methods, and the same checks, as any member's calls.

// RequireAdmin fails with permission_denied unless the caller is an admin or the owner.
func (e *Engine) RequireAdmin(c Caller, what string) error {
	_, err := e.snap.Load().requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, what)
	return err
}

// RequirePluginManager fails with permission_denied unless the caller may manage the plugin
// name (install over it, enable, disable, delete): an admin or the owner, of higher rank than
// the plugin's bot if it has one. A plugin acts as its bot, so managing it is acting on the bot,
// and a bot the owner made an admin is the owner's to manage (as with DeleteBot).
func (e *Engine) RequirePluginManager(c Caller, name, what string) error {
	d := e.snap.Load()
	me, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, what)
	if err != nil {
		return err
	}
	if checkUsername("name", name) != nil {
		return nil // no plugin has such a name: the call refuses it
	}
	if bot := pluginBot(d, name); bot != "" && d.rank(bot) >= me.GetMember().GetRole() {
		return denied("%s needs a higher rank than the plugin's bot; the bot of %q is %s", what, name, article(rankName(d.rank(bot))))
	}
	return nil
}

// PluginsChanged sends plugins_changed to admins and the owner.
func (e *Engine) PluginsChanged() error { return e.PluginChanged(Caller{}, 0, "") }

// PluginChanged sends plugins_changed to admins and the owner and, when action is set, records
// what the caller did to the plugin name in the audit log, in the same change.
func (e *Engine) PluginChanged(c Caller, action svcv1.AuditAction, name string) error {
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		_, err := tx.emit(&storepb.Audience{Kind: storepb.Audience_KIND_ADMINS},
			&svcv1.Event{Kind: &svcv1.Event_PluginsChanged{PluginsChanged: true}})
		if err != nil || action == svcv1.AuditAction_AUDIT_ACTION_UNSPECIFIED {
			return struct{}{}, err
		}
		return struct{}{}, appendAudit(tx, &svcv1.AuditEntry{ActorId: c.ID, Action: action, Detail: "plugin " + name})
	})
	return err
}

// CheckPluginName checks a plugin's name: a valid username (its bot's).
func CheckPluginName(name string) error { return checkUsername("name", name) }

// PluginNameFree reports whether a plugin may take name as its bot's username: nobody has it,
// or the plugin's own bot does.
func (e *Engine) PluginNameFree(name string) error {
	if err := checkUsername("name", name); err != nil {
		return err
	}
	d := e.snap.Load()
	if d.usernameTaken(name, pluginBot(d, name)) {
		return exists("the username %q is taken by a member; a plugin's name is its bot's username", name)
	}
	return nil
}

// GetMember returns a member in the community, as ListMembers shows them; nil when there is
// no such member (or they left).
func (e *Engine) GetMember(ctx context.Context, c Caller, id string) (*svcv1.Member, error) {
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	if m := d.active(id); m != nil {
		return e.memberView(m.GetMember()), nil
	}
	return nil, nil
}

// SeenChannels lists every channel the caller can see, sorted for the sidebar: the TEXT
// channels they see (joined or not), and the private channels and DMs they are in.
func (e *Engine) SeenChannels(ctx context.Context, c Caller) ([]*svcv1.Channel, error) {
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	var out []*svcv1.Channel
	err := e.db.View(func(r *store.Reader) error {
		for _, rec := range d.Channels() {
			if !d.sees(c.ID, rec) {
				continue
			}
			view, err := e.channelView(r, rec, d.Seq())
			if err != nil {
				return err
			}
			out = append(out, view)
		}
		return nil
	})
	return out, err
}
