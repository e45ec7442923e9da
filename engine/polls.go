package engine

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/clock"
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// Polls (EXTENSIONS.md 4). A poll lives in its message (Message.poll, the voters in each
// option's voter_ids); a vote or a close is a change to the message like a reaction: its seq is
// bumped and message_updated goes to the channel. What a vote costs stays bounded: the event is
// encoded once for every stream (the hub's shared frames), and the log keeps it without the
// voters (logCopy), which a replay takes from the message as it is then.
//
// A poll with closes_at_ms also has a row keyed by that time (store.PutPollClose). One timer on
// the engine's clock waits for the soonest; when it fires, a change closes every poll due by
// the batch's time and the timer waits for the next. The rows outlive a restart: the engine
// closes the polls due while it was down as it starts, and waits for the others.

// Poll limits.
const (
	pollQuestionMax = 300
	pollOptionsMin  = 2
	pollOptionsMax  = 10
	pollOptionMax   = 100
	pollCloseMin    = time.Minute
	pollCloseMax    = 30 * 24 * time.Hour
	// pollClosesPerChange bounds the polls one closing change closes.
	pollClosesPerChange = 256
)

// checkPollInput checks what a poll's own fields allow, before the writer; when it closes is
// checked against the batch's time (newPoll).
func checkPollInput(p *svcv1.PollInput, threadRootID string) error {
	if p == nil {
		return nil
	}
	if threadRootID != "" {
		return invalid("poll: a thread reply cannot hold a poll; send it to the channel")
	}
	if err := checkLen("poll.question", p.GetQuestion(), pollQuestionMax); err != nil {
		return err
	}
	if strings.TrimSpace(p.GetQuestion()) == "" {
		return invalid("poll.question must not be empty (1 to %d characters)", pollQuestionMax)
	}
	if n := len(p.GetOptions()); n < pollOptionsMin || n > pollOptionsMax {
		return invalid("poll.options has %d options; a poll has %d to %d", n, pollOptionsMin, pollOptionsMax)
	}
	seen := make([]string, 0, len(p.GetOptions()))
	for i, o := range p.GetOptions() {
		field := "poll.options[" + strconv.Itoa(i) + "]"
		if err := checkLen(field, o, pollOptionMax); err != nil {
			return err
		}
		key := strings.ToLower(strings.TrimSpace(o))
		if key == "" {
			return invalid("%s must not be empty (1 to %d characters)", field, pollOptionMax)
		}
		if j := slices.Index(seen, key); j >= 0 {
			return invalid("%s repeats poll.options[%d]; the options must be distinct", field, j)
		}
		seen = append(seen, key)
	}
	return nil
}

// newPoll makes the poll of a message sent at nowMs.
func newPoll(in *svcv1.PollInput, nowMs int64) (*svcv1.Poll, error) {
	if in == nil {
		return nil, nil
	}
	if at := in.GetClosesAtMs(); at != 0 {
		if ahead := time.Duration(at-nowMs) * time.Millisecond; ahead < pollCloseMin || ahead > pollCloseMax {
			return nil, invalid("poll.closes_at_ms must be 0 (open until closed) or 1 minute to 30 days ahead; it is %s ahead", ahead.Round(time.Second))
		}
	}
	p := &svcv1.Poll{Question: in.GetQuestion(), Multiple: in.GetMultiple(), ClosesAtMs: in.GetClosesAtMs()}
	for i, o := range in.GetOptions() {
		p.Options = append(p.Options, &svcv1.PollOption{Id: strconv.Itoa(i), Text: o})
	}
	return p, nil
}

func hasVoters(p *svcv1.Poll) bool {
	return slices.ContainsFunc(p.GetOptions(), func(o *svcv1.PollOption) bool { return len(o.GetVoterIds()) > 0 })
}

// pollClosed reports whether a poll takes no more votes at nowMs: closed, or past its time
// (before the timer's change has closed it).
func pollClosed(p *svcv1.Poll, nowMs int64) bool {
	return p.GetClosed() || p.GetClosesAtMs() != 0 && nowMs >= p.GetClosesAtMs()
}

// pollMessage finds a message with a poll that the caller sees.
func (e *Engine) pollMessage(tx *Tx, c Caller, id string) (*svcv1.Message, error) {
	m, _, err := e.visibleMessage(tx, c, id)
	if err != nil {
		return nil, err
	}
	if m.GetDeleted() {
		return nil, precondition("message %s was deleted", m.GetId())
	}
	if m.GetPoll() == nil {
		return nil, invalid("message %s has no poll", m.GetId())
	}
	return m, nil
}

// VotePoll replaces the caller's vote in a poll.
func (e *Engine) VotePoll(ctx context.Context, c Caller, req *svcv1.VotePollRequest) (*svcv1.VotePollResponse, error) {
	if n := len(req.GetOptionIds()); n > pollOptionsMax {
		return nil, invalid("option_ids has %d ids; a poll has at most %d options", n, pollOptionsMax)
	}
	return submit(e, func(tx *Tx) (*svcv1.VotePollResponse, error) {
		m, err := e.pollMessage(tx, c, req.GetMessageId())
		if err != nil {
			return nil, err
		}
		// Withdrawing a vote puts nothing new before anyone: a block allows it.
		if len(req.GetOptionIds()) > 0 {
			if err := dmWriteBlocked(tx.Snap(), c, tx.Snap().Channel(m.GetChannelId())); err != nil {
				return nil, err
			}
		}
		if err := checkNotTimedOut(tx.Snap().active(c.ID).GetMember(), tx.Now()); err != nil {
			return nil, err
		}
		p := m.GetPoll()
		if pollClosed(p, tx.NowMs()) {
			return nil, precondition("the poll of message %s is closed", m.GetId())
		}
		chosen, err := pollChoice(p, req.GetOptionIds())
		if err != nil {
			return nil, err
		}
		if !vote(m, c.ID, chosen) {
			return &svcv1.VotePollResponse{Message: m}, fillReplies(tx.read(), m)
		}
		if err := e.messageUpdated(tx, m); err != nil {
			return nil, err
		}
		return &svcv1.VotePollResponse{Message: m}, nil
	})
}

// pollChoice checks option ids against a poll: which options (by index) they choose.
func pollChoice(p *svcv1.Poll, ids []string) ([]bool, error) {
	chosen := make([]bool, len(p.GetOptions()))
	for i, id := range ids {
		j := slices.IndexFunc(p.GetOptions(), func(o *svcv1.PollOption) bool { return o.GetId() == id })
		if j < 0 {
			return nil, invalid("option_ids[%d] %.16q is not an option of this poll (its options are \"0\" to \"%d\")", i, id, len(p.GetOptions())-1)
		}
		if chosen[j] {
			return nil, invalid("option_ids[%d] repeats option %q", i, id)
		}
		chosen[j] = true
	}
	if len(ids) > 1 && !p.GetMultiple() {
		return nil, invalid("option_ids has %d options; this poll takes one (it is not multiple)", len(ids))
	}
	return chosen, nil
}

// vote replaces the member's vote in m's poll by the chosen options, and reports whether that
// changed anything: an option kept keeps the member's place in its voter_ids, one newly chosen
// puts them last. m must be the change's own (read for it): a poll of many voters is changed
// in place, not copied whole for one vote.
func vote(m *svcv1.Message, member string, chosen []bool) bool {
	changed := false
	for i, o := range m.GetPoll().GetOptions() {
		has := slices.Contains(o.GetVoterIds(), member)
		switch {
		case has && !chosen[i]:
			o.VoterIds = slices.DeleteFunc(o.VoterIds, func(id string) bool { return id == member })
		case !has && chosen[i]:
			o.VoterIds = append(o.VoterIds, member)
		default:
			continue
		}
		changed = true
	}
	return changed
}

// ClosePoll closes a poll: its author, or a moderator or higher who outranks the author.
func (e *Engine) ClosePoll(ctx context.Context, c Caller, req *svcv1.ClosePollRequest) (*svcv1.ClosePollResponse, error) {
	return submit(e, func(tx *Tx) (*svcv1.ClosePollResponse, error) {
		m, err := e.pollMessage(tx, c, req.GetMessageId())
		if err != nil {
			return nil, err
		}
		if err := tx.Snap().actsOnMessageOf(c.ID, m.GetAuthorId(), "close a poll", "close only the polls"); err != nil {
			return nil, err
		}
		if m.GetPoll().GetClosed() {
			return &svcv1.ClosePollResponse{Message: m}, fillReplies(tx.read(), m)
		}
		m, err = e.closePoll(tx, m)
		if err != nil {
			return nil, err
		}
		return &svcv1.ClosePollResponse{Message: m}, nil
	})
}

// closePoll closes an open poll: message_updated, and its closing time forgotten.
func (e *Engine) closePoll(tx *Tx, m *svcv1.Message) (*svcv1.Message, error) {
	m = proto.Clone(m).(*svcv1.Message)
	m.Poll.Closed = true
	if at := m.GetPoll().GetClosesAtMs(); at != 0 {
		if err := tx.mutate().DeletePollClose(at, m.GetId()); err != nil {
			return nil, err
		}
	}
	return m, e.messageUpdated(tx, m)
}

// pollCloser is the timer of the soonest poll that closes by itself.
type pollCloser struct {
	mu     sync.Mutex
	timer  clock.Timer
	at     int64 // when timer fires, Unix ms
	closed bool
}

// startPolls closes the polls due while the server was down and waits for the next.
func (e *Engine) startPolls() {
	e.closeDuePolls()
}

// stopPolls stops the timer (Close).
func (e *Engine) stopPolls() {
	pc := &e.polls
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.closed = true
	if pc.timer != nil {
		pc.timer.Stop()
		pc.timer = nil
	}
}

// schedulePollClose has the timer fire at atMs unless it fires sooner already.
func (e *Engine) schedulePollClose(atMs int64) {
	pc := &e.polls
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.closed || pc.timer != nil && pc.at <= atMs {
		return
	}
	if pc.timer != nil {
		pc.timer.Stop()
	}
	pc.at = atMs
	pc.timer = e.clock.AfterFunc(max(0, time.Duration(atMs-e.now().UnixMilli())*time.Millisecond), e.pollsDue)
}

// pollsDue is the timer firing.
func (e *Engine) pollsDue() {
	pc := &e.polls
	pc.mu.Lock()
	pc.timer, pc.at = nil, 0
	pc.mu.Unlock()
	e.closeDuePolls()
}

// closeDuePolls closes every poll due by now, then has the timer wait for the next one.
func (e *Engine) closeDuePolls() {
	for {
		more, err := submit(e, func(tx *Tx) (bool, error) {
			type due struct {
				at int64
				id string
			}
			var dues []due
			err := tx.read().PollCloses(func(at int64, id string) bool {
				if at > tx.NowMs() {
					return false
				}
				dues = append(dues, due{at, id})
				return len(dues) < pollClosesPerChange
			})
			if err != nil {
				return false, err
			}
			for _, d := range dues {
				m, err := tx.read().Message(d.id)
				if isNotFound(err) || err == nil && (m.GetDeleted() || m.GetPoll().GetClosed() || m.GetPoll().GetClosesAtMs() != d.at) {
					// Gone, or closed already: only the row is left.
					if err := tx.mutate().DeletePollClose(d.at, d.id); err != nil {
						return false, err
					}
					continue
				}
				if err != nil {
					return false, err
				}
				if _, err := e.closePoll(tx, m); err != nil {
					return false, err
				}
			}
			return len(dues) == pollClosesPerChange, nil
		})
		if errors.Is(err, ErrClosed) {
			return
		}
		if err != nil {
			e.log.Error("closing the polls due; trying again in a minute", "err", err)
			e.schedulePollClose(e.now().Add(time.Minute).UnixMilli())
			return
		}
		if !more {
			break
		}
	}
	var next int64
	err := e.db.View(func(r *store.Reader) error {
		return r.PollCloses(func(at int64, _ string) bool {
			next = at
			return false
		})
	})
	if err != nil {
		e.log.Error("finding the next poll to close", "err", err)
		return
	}
	if next != 0 {
		e.schedulePollClose(next)
	}
}
