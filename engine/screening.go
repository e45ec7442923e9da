package engine

import (
	"context"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// Screening a message before its change is queued (EXTENSIONS.md 6): the sender's timeout, the
// community's filters (members below moderator) and the plugins' beforeMessage hooks, which run
// here, on the caller's goroutine, never in the writer: a plugin cannot hold the writer up, and
// a filter's work is the sender's. A refusal stores nothing of the message and records an
// audit entry, in a change of its own. The change that stores the message checks the timeout
// again (it may have begun since).

// MessageCheck is what a MessageHook is asked about a message about to be stored.
type MessageCheck struct {
	// Message is the message as it will be stored: a new one has no id yet; an edit has its
	// id, its new text and edited_at_ms.
	Message *svcv1.Message
	// Author is its author's member row, to read only (without presence).
	Author *svcv1.Member
	// Edit says the message exists and this is a new text for it.
	Edit bool
	// Sees reports whether a member sees the message's channel: a plugin hears only what its
	// bot may see.
	Sees func(memberID string) bool
	// FromPlugin says the author is a plugin's bot.
	FromPlugin bool
}

// MessageRefusal is a hook's refusal: who refused and why.
type MessageRefusal struct {
	Plugin, Reason string
}

// MessageHook is the plugins' say in a message before it is stored.
type MessageHook interface {
	// CheckMessage returns a refusal, or nil to let the message through. It answers within
	// its own budget, however its hooks do.
	CheckMessage(ctx context.Context, m MessageCheck) *MessageRefusal
}

type messageHookBox struct{ h MessageHook }

// messageHooks holds the MessageHook; nil until SetMessageHook.
type messageHooks struct {
	p atomic.Pointer[messageHookBox]
}

// SetMessageHook gives SendMessage and EditMessage the plugins' beforeMessage hooks.
func (e *Engine) SetMessageHook(h MessageHook) { e.messageHook.p.Store(&messageHookBox{h}) }

// screen applies the timeout, the filters and the hooks to a message about to be stored as
// draft (see MessageCheck.Message), in channel rec, by the caller. It returns the refusal,
// having recorded it in the audit log, or nil.
func (e *Engine) screen(ctx context.Context, c Caller, draft *svcv1.Message, edit bool) error {
	d := e.snap.Load()
	rec, err := d.visibleChannel(c, draft.GetChannelId())
	if err != nil {
		return nil // the change refuses it, with its own words
	}
	me := d.active(c.ID)
	if err := checkNotTimedOut(me.GetMember(), e.now()); err != nil {
		return err
	}
	if me.GetMember().GetRole() < svcv1.MemberRole_MEMBER_ROLE_MODERATOR {
		if rule, msg := e.filterRule(d.Settings().GetModeration(), draft.GetText()); rule != "" {
			return e.refuse(c, draft, edit, "filter "+rule, "", invalid("%s", msg))
		}
	}
	if b := e.messageHook.p.Load(); b != nil {
		r := b.h.CheckMessage(ctx, MessageCheck{
			Message:    draft,
			Author:     me.GetMember(),
			Edit:       edit,
			Sees:       func(id string) bool { return d.sees(id, rec) },
			FromPlugin: me.GetPlugin() != "",
		})
		if r != nil {
			return e.refuse(c, draft, edit, "plugin "+r.Plugin, r.Reason,
				invalid("the plugin %s refused this message: %s", r.Plugin, r.Reason))
		}
	}
	return nil
}

// refuse records a refused message in the audit log (never its text) and returns refusal.
func (e *Engine) refuse(c Caller, draft *svcv1.Message, edit bool, rule, reason string, refusal error) error {
	detail := rule + ": message refused"
	if edit {
		detail = rule + ": edit refused"
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		return struct{}{}, appendAudit(tx, &svcv1.AuditEntry{
			Action:         svcv1.AuditAction_AUDIT_ACTION_MESSAGE_REFUSED,
			TargetMemberId: c.ID,
			ChannelId:      draft.GetChannelId(),
			MessageId:      draft.GetId(),
			Reason:         cutRunes(reason, reasonMax),
			Detail:         detail,
		})
	})
	if err != nil {
		return err
	}
	return refusal
}

// screenSend screens a SendMessage.
func (e *Engine) screenSend(ctx context.Context, c Caller, req *svcv1.SendMessageRequest) error {
	return e.screen(ctx, c, &svcv1.Message{
		ChannelId:    req.GetChannelId(),
		AuthorId:     c.ID,
		Text:         req.GetText(),
		ThreadRootId: req.GetThreadRootId(),
		ClientId:     req.GetClientId(),
		CreatedAtMs:  e.now().UnixMilli(),
	}, false)
}

// screenEdit screens an EditMessage of a message the caller wrote and may edit; anything else
// is left to the change, which refuses it as it always has.
func (e *Engine) screenEdit(ctx context.Context, c Caller, req *svcv1.EditMessageRequest) error {
	var m *svcv1.Message
	err := e.db.View(func(r *store.Reader) error {
		var err error
		m, err = liveMessage(r, req.GetMessageId(), e.readCutoff())
		return err
	})
	if isNotFound(err) || (err == nil && (m.GetAuthorId() != c.ID || m.GetDeleted())) {
		return nil
	}
	if err != nil {
		return err
	}
	m = proto.Clone(m).(*svcv1.Message)
	m.Text = req.GetText()
	m.EditedAtMs = e.now().UnixMilli()
	return e.screen(ctx, c, m, true)
}
