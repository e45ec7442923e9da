package plugins

import (
	"context"
	"sort"
	"time"

	"github.com/dop251/goja"

	"hearth/engine"
)

// The plugins' say in Join (engine.JoinHook): their questions, and their joinRequest hooks,
// which run before the Join changes anything. A hook that refuses ({allow: false, reason})
// makes the Join fail with permission_denied and the reason; one that throws, runs out of time
// or does not answer within JoinWait lets the person in and leaves its error in Plugin.error:
// a broken plugin must not lock people out.

// joinJob asks one plugin about a newcomer.
type joinJob struct {
	arg   map[string]any
	reply chan joinResult
}

type joinResult struct {
	refused bool
	reason  string
}

// reasonMax bounds a refusal's reason.
const reasonMax = 500

// JoinQuestions lists the questions of the running plugins, by plugin name.
func (h *Host) JoinQuestions() []engine.JoinQuestion {
	var out []engine.JoinQuestion
	for _, p := range h.running() {
		for _, q := range p.joinQuestions() {
			out = append(out, engine.JoinQuestion{Plugin: p.name, Text: q})
		}
	}
	return out
}

// running lists the running instances by name.
func (h *Host) running() []*instance {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*instance
	for _, e := range h.plugins {
		if e.inst != nil {
			out = append(out, e.inst)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// CheckJoin asks every running plugin with a joinRequest hook, all at once, each with the
// answers to its own questions.
func (h *Host) CheckJoin(ctx context.Context, j engine.JoinCheck) error {
	answers := map[string][]string{}
	for i, q := range j.Questions {
		answers[q.Plugin] = append(answers[q.Plugin], j.Answers[i])
	}
	type asked struct {
		p     *instance
		reply chan joinResult
	}
	var all []asked
	for _, p := range h.running() {
		if !p.wantsJoins() {
			continue
		}
		a := answers[p.name]
		if a == nil {
			a = []string{}
		}
		jj := &joinJob{
			arg: map[string]any{
				"login":       map[string]string{"iss": j.Login.Issuer, "sub": j.Login.Subject},
				"displayName": j.DisplayName,
				"answers":     a,
			},
			reply: make(chan joinResult, 1),
		}
		p.enqueue(job{join: jj})
		all = append(all, asked{p, jj.reply})
	}
	deadline := time.NewTimer(h.opts.JoinWait)
	defer deadline.Stop()
	for _, a := range all {
		select {
		case r := <-a.reply:
			if r.refused {
				return &engine.Error{Code: engine.CodePermissionDenied, Msg: r.reason}
			}
		case <-deadline.C:
			h.recordError(a.p, "hook joinRequest: did not answer within "+h.opts.JoinWait.String()+"; the join was let through")
			// The others had as long; whoever has answered by now still counts.
			for _, b := range all {
				select {
				case r := <-b.reply:
					if r.refused {
						return &engine.Error{Code: engine.CodePermissionDenied, Msg: r.reason}
					}
				default:
				}
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// wantsJoins reports whether the plugin registered joinRequest. hooks belongs to the runtime's
// goroutine; the flag is read here on another.
func (p *instance) wantsJoins() bool { return p.joinHook.Load() }

// runJoin runs the joinRequest hook for one newcomer and answers: refused only when the hook
// returns an object with allow === false.
func (p *instance) runJoin(j *joinJob) {
	fn := p.hooks["joinRequest"]
	if fn == nil {
		j.reply <- joinResult{}
		return
	}
	var verdict joinResult
	_, ok := p.callThen("hook joinRequest", fn, func(v goja.Value) { verdict = p.verdict(v, "the community did not accept this join") }, p.jsonArg(j.arg))
	if !ok {
		// The failure is recorded (or the plugin stopped); the person gets in.
		j.reply <- joinResult{}
		return
	}
	j.reply <- verdict
}

// verdict reads a joinRequest or beforeMessage hook's result (a settled promise counts as its
// value); a refusal without a reason gets otherwise. It runs the script's getters and toString,
// so it runs inside the hook's run (callThen).
func (p *instance) verdict(v goja.Value, otherwise string) joinResult {
	if pr, ok := v.Export().(*goja.Promise); ok {
		if pr.State() != goja.PromiseStateFulfilled {
			return joinResult{}
		}
		v = pr.Result()
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return joinResult{}
	}
	allow := o.Get("allow")
	if allow == nil || !allow.StrictEquals(p.sb.vm.ToValue(false)) {
		return joinResult{}
	}
	reason := ""
	if r := o.Get("reason"); r != nil && !goja.IsUndefined(r) && !goja.IsNull(r) {
		reason = r.String()
	}
	if reason == "" {
		reason = otherwise
	}
	reason = clip(reason, reasonMax)
	return joinResult{refused: true, reason: reason}
}
