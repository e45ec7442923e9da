package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// The crash test, at CI size: members send and edit messages as fast as the server lets them,
// the real binary is killed with SIGKILL in the middle of it, started again on the same data,
// and what it says is checked against what it acknowledged before it died. Five rounds, on
// one data directory. docs/performance.md's durability runs are the same at a larger scale
// (cmd/hearth-load).

const (
	crashRounds  = 5
	crashSenders = 12
)

// ledger is what the server acknowledged: every message, with its created seq and the last
// edit whose answer came back.
type ledger struct {
	mu   sync.Mutex
	msgs map[string]acked // by message id
}

type acked struct {
	createdSeq int64
	text       string // the text of the last acknowledged send or edit
	author     string
}

func (l *ledger) put(id string, a acked) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs[id] = a
}

// TestKill9LosesNoAcknowledgedMessage: after each kill -9 the server starts again, every
// message and edit it acknowledged is there, the event log's seqs run 1, 2, 3... without a gap
// or a repeat, and GetState, ListMessages and the log agree.
func TestKill9LosesNoAcknowledgedMessage(t *testing.T) {
	t.Parallel()
	c := startCrashCommunity(t, "load", "sender-", "10.1.0.", crashSenders)
	data, chID := c.data, c.chID
	book := &ledger{msgs: map[string]acked{}}
	for round := range crashRounds {
		var senders []*member
		for i := range crashSenders {
			senders = append(senders, loginAs(t, data, c.url, fmt.Sprint("sender-", i), ""))
		}
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i, m := range senders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sendAndEdit(ctx, m, chID, fmt.Sprintf("r%d-s%d", round, i), book)
			}()
		}
		// Let the writer get busy, then pull the plug mid-batch: the senders are still sending.
		time.Sleep(time.Duration(400+150*round) * time.Millisecond)
		c.killAndRestart(t, stop, &wg)
		n := checkAgainstLog(t, loginAs(t, data, c.url, "owner", ""), chID, book)
		t.Logf("round %d: %d messages acknowledged in all, all there after kill -9; %d events in the log", round+1, len(book.msgs), n)
	}
	if len(book.msgs) < crashRounds*crashSenders {
		t.Fatalf("only %d messages were acknowledged in %d rounds: the load did not run", len(book.msgs), crashRounds)
	}
}

// sendAndEdit sends messages as fast as the send rate allows and, while it does not, edits its
// latest message (edits have no rate), until ctx ends or the server dies, writing down what the
// server acknowledged. Edit texts grow in order ("... edit 000001", "... edit 000002"), so the
// text a message ends with is at least its last acknowledged one.
func sendAndEdit(ctx context.Context, m *member, chID, prefix string, book *ledger) {
	var last *svcv1.Message
	edits := 0
	for n := 0; ctx.Err() == nil; {
		text := fmt.Sprintf("%s-m%04d", prefix, n)
		res, err := m.chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: chID, Text: text, ClientId: text}))
		switch {
		case err == nil:
			last, edits, n = res.Msg.GetMessage(), 0, n+1
			book.put(last.GetId(), acked{createdSeq: last.GetCreatedSeq(), text: text, author: last.GetAuthorId()})
			continue
		case connect.CodeOf(err) != connect.CodeResourceExhausted:
			return // the server is gone
		case last == nil:
			time.Sleep(10 * time.Millisecond)
			continue
		}
		edits++
		edited := fmt.Sprintf("%s edit %06d", last.GetText(), edits)
		if _, err := m.chat.EditMessage(ctx, connect.NewRequest(&svcv1.EditMessageRequest{MessageId: last.GetId(), Text: edited})); err != nil {
			return
		}
		book.put(last.GetId(), acked{createdSeq: last.GetCreatedSeq(), text: edited, author: last.GetAuthorId()})
	}
}

// checkAgainstLog replays the whole event log as the owner and checks it against GetState,
// ListMessages and the ledger; it returns the number of events.
func checkAgainstLog(t *testing.T, owner *member, chID string, book *ledger) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	state, err := owner.chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	// The log, from the start: seqs 1..state.seq, each once, in order.
	created := map[string]int64{} // message id -> created seq, in the load channel
	texts := map[string]string{}  // message id -> its text as the log last has it
	var lastCreated int64
	stream, err := owner.chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: 0}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var seq int64
	for seq < state.Msg.GetSeq() {
		if !stream.Receive() {
			t.Fatalf("the replay ended at seq %d of %d: %v", seq, state.Msg.GetSeq(), stream.Err())
		}
		ev := stream.Msg()
		if ev.GetSeq() == 0 {
			continue // heartbeats and presence are not logged
		}
		if ev.GetSeq() != seq+1 {
			t.Fatalf("the log goes from seq %d to %d", seq, ev.GetSeq())
		}
		seq = ev.GetSeq()
		if m := ev.GetMessageCreated(); m.GetChannelId() == chID {
			created[m.GetId()] = ev.GetSeq()
			texts[m.GetId()] = m.GetText()
			lastCreated = ev.GetSeq()
		}
		if m := ev.GetMessageUpdated(); m.GetChannelId() == chID {
			texts[m.GetId()] = m.GetText()
		}
	}

	// ListMessages holds exactly the log's messages, with the log's texts.
	listed := map[string]*svcv1.Message{}
	before := ""
	for {
		page, err := owner.chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: chID, BeforeId: before, Limit: 200}))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Msg.GetMessages() {
			listed[m.GetId()] = m
		}
		if !page.Msg.GetHasMore() || len(page.Msg.GetMessages()) == 0 {
			break
		}
		before = page.Msg.GetMessages()[0].GetId()
	}
	if len(listed) != len(created) {
		t.Fatalf("ListMessages has %d messages, the log created %d", len(listed), len(created))
	}
	others := 0
	for id, m := range listed {
		if created[id] != m.GetCreatedSeq() || texts[id] != m.GetText() {
			t.Fatalf("message %s: listed at seq %d as %q, the log has seq %d, %q", id, m.GetCreatedSeq(), m.GetText(), created[id], texts[id])
		}
		if m.GetAuthorId() != state.Msg.GetMe().GetId() {
			others++
		}
	}

	// Everything acknowledged is there, edits included (a later edit may have landed unanswered).
	book.mu.Lock()
	for id, a := range book.msgs {
		m := listed[id]
		if m == nil {
			t.Fatalf("acknowledged message %s (seq %d, %q) is gone", id, a.createdSeq, a.text)
		}
		if m.GetCreatedSeq() != a.createdSeq || m.GetText() < a.text {
			t.Fatalf("acknowledged message %s: seq %d %q, acknowledged as seq %d %q", id, m.GetCreatedSeq(), m.GetText(), a.createdSeq, a.text)
		}
	}
	book.mu.Unlock()

	// GetState agrees: the channel's last message, and the owner's unread count (the owner
	// never read it; every message is someone else's).
	for i, c := range state.Msg.GetChannels() {
		if c.GetId() != chID {
			continue
		}
		if c.GetLastMessageSeq() != lastCreated {
			t.Fatalf("GetState says the last message is at seq %d, the log at %d", c.GetLastMessageSeq(), lastCreated)
		}
		if rs := state.Msg.GetReadStates()[i]; int(rs.GetUnreadCount()) != others {
			t.Fatalf("GetState counts %d unread, the log has %d messages by others", rs.GetUnreadCount(), others)
		}
		return int(seq)
	}
	t.Fatal(errors.New("GetState does not list the load channel"))
	return 0
}

// crashCommunity is a server process for a kill -9 test: an owner, a text channel, and n
// members who joined, each from an address of its own (Join allows 10 a minute per address),
// and the arguments to start it again with.
type crashCommunity struct {
	bin, data, url, chID string
	args                 []string
	srv                  *process
	owner                *member
}

// startCrashCommunity starts it: the channel is named channel, the members prefix0, prefix1...
// joining from subnet1, subnet2...
func startCrashCommunity(t *testing.T, channel, prefix, subnet string, n int) *crashCommunity {
	t.Helper()
	c := &crashCommunity{bin: hearthBinary(t), data: t.TempDir()}
	c.args = []string{"-data", c.data, "-addr", "127.0.0.1:0", "-base-url", testBase, "-trusted-proxy", "127.0.0.1/32"}
	c.srv, c.url = startBinary(t, c.bin, c.args...)
	c.owner = join(t, c.data, c.url, "owner", "10.0.0.1")
	ch, err := c.owner.chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{Name: channel, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	c.chID = ch.Msg.GetChannel().GetId()
	for i := range n {
		join(t, c.data, c.url, fmt.Sprint(prefix, i), fmt.Sprint(subnet, i+1))
	}
	return c
}

// killAndRestart kills the server with SIGKILL, ends the load (stop, then waits for wg) and
// starts the server again on the same data folder.
func (c *crashCommunity) killAndRestart(t *testing.T, stop func(), wg *sync.WaitGroup) {
	t.Helper()
	if err := c.srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.srv.wait(20 * time.Second)
	stop()
	wg.Wait()
	c.srv, c.url = startBinary(t, c.bin, c.args...)
}
