package engine

import (
	"context"
	"slices"
	"sync/atomic"

	"hearth/engine/store/storepb"
)

// Join asks the plugins too: they add questions after the community's own
// (GetServerInfo.join_questions lists both), and their joinRequest hooks may refuse a newcomer.
// The engine knows them only through this interface, which the assembly sets; the hooks run
// before the Join's change is queued, never inside the writer.

// JoinQuestion is a question a plugin asks of people who join.
type JoinQuestion struct {
	Plugin, Text string
}

// JoinCheck is what a JoinHook is asked about a newcomer.
type JoinCheck struct {
	Login       Login
	DisplayName string
	// Questions are the hook's questions as this Join saw them; Answers are their answers, in
	// the same order.
	Questions []JoinQuestion
	Answers   []string
}

// JoinHook is the plugins' say in Join.
type JoinHook interface {
	// JoinQuestions are the questions the running plugins ask, in order.
	JoinQuestions() []JoinQuestion
	// CheckJoin returns an error (permission_denied with the reason) to refuse the newcomer,
	// nil to let them in.
	CheckJoin(ctx context.Context, j JoinCheck) error
}

type joinHookBox struct{ h JoinHook }

// joinHooks holds the JoinHook; nil until SetJoinHook.
type joinHooks struct{ p atomic.Pointer[joinHookBox] }

// SetJoinHook gives Join the plugins' questions and hooks.
func (e *Engine) SetJoinHook(h JoinHook) { e.joinHook.p.Store(&joinHookBox{h}) }

func (e *Engine) hook() JoinHook {
	if b := e.joinHook.p.Load(); b != nil {
		return b.h
	}
	return nil
}

// hookQuestions are the plugins' questions now.
func (e *Engine) hookQuestions() []JoinQuestion {
	if h := e.hook(); h != nil {
		return h.JoinQuestions()
	}
	return nil
}

// joinQuestions is every question a newcomer answers: the community's, then the plugins'.
func joinQuestions(s *storepb.Settings, hooked []JoinQuestion) []string {
	out := slices.Clone(s.GetJoinQuestions())
	for _, q := range hooked {
		out = append(out, q.Text)
	}
	return out
}

// checkJoinHook asks the plugins about a login that is not in the community, after checking
// it brought one answer per question. It returns the plugins' questions as it saw them, so
// that the change checks the answers against the same list.
func (e *Engine) checkJoinHook(ctx context.Context, in JoinInput) ([]JoinQuestion, error) {
	d := e.snap.Load()
	if rec := d.memberByLogin(in.Login.Issuer, in.Login.Subject); rec != nil && rec.GetState() != storepb.MemberState_MEMBER_STATE_LEFT {
		// A member already in (Join answers with them) or banned (refused): nothing to ask.
		return nil, nil
	}
	hooked := e.hookQuestions()
	own := len(d.Settings().GetJoinQuestions())
	if err := answersMatch(own+len(hooked), len(in.Req.GetAnswers())); err != nil {
		return nil, err
	}
	h := e.hook()
	if h == nil {
		return hooked, nil
	}
	err := h.CheckJoin(ctx, JoinCheck{
		Login:       in.Login,
		DisplayName: in.Req.GetDisplayName(),
		Questions:   hooked,
		Answers:     in.Req.GetAnswers()[own:],
	})
	return hooked, err
}

func answersMatch(questions, answers int) error {
	if questions != answers {
		return invalid("answers has %s; the community asks %s", plural(answers, "answer", "answers"), plural(questions, "question", "questions"))
	}
	return nil
}

// JoinQuestionsMax is how many join questions the community, and each plugin, may ask.
const JoinQuestionsMax = joinQuestionsMax

// CheckJoinQuestions checks a list of join questions against the limits of
// UpdateServerSettings.join_questions (a plugin's chat.setJoinQuestions has the same).
func CheckJoinQuestions(field string, qs []string) error {
	if n := len(qs); n > joinQuestionsMax {
		return invalid("%s has %d questions; the limit is %d", field, n, joinQuestionsMax)
	}
	for _, q := range qs {
		if q == "" {
			return invalid("%s must not contain an empty question", field)
		}
		if err := checkLen("each of "+field, q, joinQuestionMax); err != nil {
			return err
		}
	}
	return nil
}
