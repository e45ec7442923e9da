package plugins

import (
	"context"
	"time"

	"github.com/dop251/goja"

	"hearth/engine"
)

// The plugins' say in a message before it is stored (engine.MessageHook): their beforeMessage
// hooks, asked all at once from SendMessage and EditMessage before the change is queued (never
// inside the writer). A hook that refuses ({allow: false, reason}) makes the call fail with
// invalid_argument and the reason; one that throws, or does not answer within MessageWait
// (50 ms: the sender is waiting), lets the message through and leaves its error in
// Plugin.error. A plugin hears only the messages of channels its bot sees, and no plugin is
// asked about a plugin's own message: a plugin that sends holds the turn of JavaScript, which
// the others would need to answer.

// messageJob asks one plugin about a message.
type messageJob struct {
	check engine.MessageCheck
	// until is when the sender stops waiting: a job still queued then is skipped.
	until time.Time
	reply chan joinResult
}

// defaultRefusal is the reason of a refusal that gives none.
const defaultRefusal = "a plugin of this community refused this message"

// CheckMessage asks every running plugin with a beforeMessage hook whose bot sees the channel.
func (h *Host) CheckMessage(ctx context.Context, m engine.MessageCheck) *engine.MessageRefusal {
	if m.FromPlugin {
		return nil
	}
	type asked struct {
		p     *instance
		reply chan joinResult
	}
	var all []asked
	until := time.Now().Add(h.opts.MessageWait)
	for _, p := range h.running() {
		if !p.wantsMessages() || !m.Sees(p.bot.ID) {
			continue
		}
		j := &messageJob{check: m, until: until, reply: make(chan joinResult, 1)}
		p.enqueue(job{message: j})
		all = append(all, asked{p, j.reply})
	}
	if len(all) == 0 {
		return nil
	}
	deadline := time.NewTimer(time.Until(until))
	defer deadline.Stop()
	refusal := func(a asked, r joinResult) *engine.MessageRefusal {
		if !r.refused {
			return nil
		}
		return &engine.MessageRefusal{Plugin: a.p.name, Reason: r.reason}
	}
	for i, a := range all {
		select {
		case r := <-a.reply:
			if out := refusal(a, r); out != nil {
				return out
			}
		case <-deadline.C:
			// Whoever has answered by now still counts; the others are let through.
			for _, b := range all[i:] {
				select {
				case r := <-b.reply:
					if out := refusal(b, r); out != nil {
						return out
					}
				default:
					h.recordError(b.p, "hook beforeMessage: did not answer within "+h.opts.MessageWait.String()+"; the message was let through")
				}
			}
			return nil
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// wantsMessages reports whether the plugin registered beforeMessage (read on other goroutines).
func (p *instance) wantsMessages() bool { return p.messageHook.Load() }

// runMessage runs the beforeMessage hook for one message and answers: refused only when the
// hook returns an object with allow === false. A job whose sender stopped waiting is skipped.
func (p *instance) runMessage(j *messageJob) {
	fn := p.hooks["beforeMessage"]
	if fn == nil || time.Now().After(j.until) {
		j.reply <- joinResult{}
		return
	}
	var verdict joinResult
	_, ok := p.callThen("hook beforeMessage", fn, func(v goja.Value) { verdict = p.verdict(v, defaultRefusal) },
		p.protoArg(j.check.Message), p.protoArg(j.check.Author))
	if !ok {
		j.reply <- joinResult{}
		return
	}
	j.reply <- verdict
}
