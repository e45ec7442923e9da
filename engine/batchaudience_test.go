package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// The writer commits many changes in one batch, and live events are judged against the
// community as of the batch's end. A change in a batch that lets a member into a channel must
// not let them receive, live, what the channel's earlier changes in the same batch sent: they
// were not in it then (the text of a message deleted before they came in, among others).

// batchScene is a community of an owner and an outsider, with a private channel holding one
// message, and the outsider's open stream.
type batchScene struct {
	e       *Engine
	owner   Caller
	out     Caller
	private string
	msg     string
	roleID  string
	joinID  string
	markers int
	events  chan *svcv1.Event
}

func newBatchScene(t *testing.T) *batchScene {
	t.Helper()
	ctx := context.Background()
	e := openTestEngine(t, t.TempDir())
	join := func(sub string) Caller {
		m, _, err := e.Join(ctx, JoinInput{Login: Login{Issuer: "https://issuer", Subject: sub}, ClientAddr: sub, Req: &svcv1.JoinRequest{}})
		if err != nil {
			t.Fatal(err)
		}
		return Caller{ID: m.GetId()}
	}
	s := &batchScene{e: e, owner: join("owner"), out: join("out"), events: make(chan *svcv1.Event, 1000)}
	ch, err := e.CreateChannel(ctx, s.owner, &svcv1.CreateChannelRequest{Name: "private", Kind: svcv1.ChannelKind_CHANNEL_KIND_PRIVATE})
	if err != nil {
		t.Fatal(err)
	}
	s.private = ch.GetChannel().GetId()
	m, err := e.SendMessage(ctx, s.owner, &svcv1.SendMessageRequest{ChannelId: s.private, Text: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	s.msg = m.GetMessage().GetId()
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Subscribe(sctx, s.out, e.Seq(), SendFunc(func(f *Frame, _ bool) error {
			if f.Event.GetSeq() > 0 {
				s.events <- f.Event
			}
			return nil
		}))
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// inOneBatch runs the calls in order as changes of one batch: the writer is held while they
// queue, each after the one before it.
func (s *batchScene) inOneBatch(t *testing.T, calls ...func()) {
	t.Helper()
	started, hold := make(chan struct{}), make(chan struct{})
	held := make(chan struct{})
	go func() {
		defer close(held)
		submit(s.e, func(tx *Tx) (struct{}, error) { close(started); <-hold; return struct{}{}, nil })
	}()
	<-started
	var wg sync.WaitGroup
	for _, call := range calls {
		n := len(s.e.queue)
		wg.Add(1)
		go func() { defer wg.Done(); call() }()
		deadline := time.Now().Add(10 * time.Second)
		for len(s.e.queue) == n {
			if time.Now().After(deadline) {
				t.Fatal("a call did not queue its change")
			}
			time.Sleep(time.Millisecond)
		}
	}
	close(hold)
	wg.Wait()
	<-held
}

// received is what the outsider's stream got of the logged events since the last call: up to
// a marker every member receives (the owner's bio changes), the marker left out.
func (s *batchScene) received(t *testing.T) []string {
	t.Helper()
	s.markers++
	bio := fmt.Sprint("marker ", s.markers)
	if _, err := s.e.UpdateProfile(context.Background(), s.owner, &svcv1.UpdateProfileRequest{Bio: &bio}); err != nil {
		t.Fatal(err)
	}
	out := []string{}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-s.events:
			if ev.GetMemberUpdated().GetBio() == bio {
				return out
			}
			out = append(out, describeEvent(ev))
		case <-timeout:
			t.Fatalf("the stream got %v, and no marker", out)
		}
	}
}

func describeEvent(ev *svcv1.Event) string {
	switch k := ev.GetKind().(type) {
	case *svcv1.Event_MessageCreated:
		return "message_created:" + k.MessageCreated.GetText()
	case *svcv1.Event_MessageUpdated:
		return "message_updated:" + k.MessageUpdated.GetText()
	case *svcv1.Event_MessageDeleted:
		return "message_deleted"
	case *svcv1.Event_ChannelCreated:
		return "channel_created:" + k.ChannelCreated.GetName()
	case *svcv1.Event_ChannelUpdated:
		return "channel_updated:" + k.ChannelUpdated.GetName()
	case *svcv1.Event_MemberUpdated:
		return "member_updated"
	}
	return fmt.Sprintf("%T", ev.GetKind())
}

func TestBatchEventsBeforeAMemberComesInAreNotTheirs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// setup runs before the batch; in is the change of the batch that lets the outsider in.
		setup func(t *testing.T, s *batchScene) (channel string)
		in    func(s *batchScene) func()
		want  []string
	}{
		{
			name:  "added to a private channel",
			setup: func(t *testing.T, s *batchScene) string { return s.private },
			in: func(s *batchScene) func() {
				return func() {
					s.e.AddChannelMembers(ctx, s.owner, &svcv1.AddChannelMembersRequest{ChannelId: s.private, MemberIds: []string{s.out.ID}})
				}
			},
			want: []string{"channel_updated:private"},
		},
		{
			name: "given a role that shows a channel",
			setup: func(t *testing.T, s *batchScene) string {
				r, err := s.e.CreateRole(ctx, s.owner, &svcv1.CreateRoleRequest{Name: "crew"})
				if err != nil {
					t.Fatal(err)
				}
				ch, err := s.e.CreateChannel(ctx, s.owner, &svcv1.CreateChannelRequest{Name: "crew", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.e.SetChannelAccess(ctx, s.owner, &svcv1.SetChannelAccessRequest{ChannelId: ch.GetChannel().GetId(), RoleIds: []string{r.GetRole().GetId()}}); err != nil {
					t.Fatal(err)
				}
				s.roleID = r.GetRole().GetId()
				return ch.GetChannel().GetId()
			},
			in: func(s *batchScene) func() {
				return func() {
					s.e.SetMemberRoles(ctx, s.owner, &svcv1.SetMemberRolesRequest{MemberId: s.out.ID, RoleIds: []string{s.roleID}})
				}
			},
			want: []string{"member_updated", "channel_created:crew"},
		},
		{
			name:  "joining a channel in OPT_IN mode",
			setup: optInChannel,
			in: func(s *batchScene) func() {
				return func() {
					s.e.JoinChannel(ctx, s.out, &svcv1.JoinChannelRequest{ChannelId: s.joinID})
				}
			},
			want: []string{"channel_updated:open"},
		},
		{
			name:  "the mode going back to ROLES",
			setup: optInChannel,
			in: func(s *batchScene) func() {
				return func() {
					mode := svcv1.ChannelMode_CHANNEL_MODE_ROLES
					s.e.UpdateServerSettings(ctx, s.owner, &svcv1.UpdateServerSettingsRequest{ChannelMode: &mode})
				}
			},
			want: []string{"*svcv1.Event_ChannelModeChanged", "*svcv1.Event_ServerUpdated"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newBatchScene(t)
			chID := tc.setup(t, s)
			s.joinID = chID
			s.received(t)
			var msg string
			if chID == s.private {
				msg = s.msg
			} else {
				m, err := s.e.SendMessage(ctx, s.owner, &svcv1.SendMessageRequest{ChannelId: chID, Text: "secret"})
				if err != nil {
					t.Fatal(err)
				}
				msg = m.GetMessage().GetId()
			}
			s.inOneBatch(t,
				func() {
					s.e.SendMessage(ctx, s.owner, &svcv1.SendMessageRequest{ChannelId: chID, Text: "before"})
				},
				func() { s.e.React(ctx, s.owner, &svcv1.ReactRequest{MessageId: msg, Emoji: "👍"}) },
				func() { s.e.DeleteMessage(ctx, s.owner, &svcv1.DeleteMessageRequest{MessageId: msg}) },
				tc.in(s),
				func() {
					s.e.SendMessage(ctx, s.owner, &svcv1.SendMessageRequest{ChannelId: chID, Text: "after"})
				},
			)
			got := s.received(t)
			want := append(tc.want, "message_created:after")
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("the outsider received %v, want %v", got, want)
			}
		})
	}
}

// optInChannel puts the community in OPT_IN mode and makes a text channel "open" that the
// outsider has not joined.
func optInChannel(t *testing.T, s *batchScene) string {
	ctx := context.Background()
	mode := svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
	if _, err := s.e.UpdateServerSettings(ctx, s.owner, &svcv1.UpdateServerSettingsRequest{ChannelMode: &mode}); err != nil {
		t.Fatal(err)
	}
	ch, err := s.e.CreateChannel(ctx, s.owner, &svcv1.CreateChannelRequest{Name: "open", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	return ch.GetChannel().GetId()
}

// TestBatchViewerEventsReachThoseWhoSawTheChannel: a member who saw a channel before a change
// of the batch put them in it (the mode going back to ROLES puts everyone in the TEXT channels
// they see) still gets the batch's earlier events sent to those who see it: a topic changed
// just before reaches them, as it would have in a batch of its own.
func TestBatchViewerEventsReachThoseWhoSawTheChannel(t *testing.T) {
	ctx := context.Background()
	s := newBatchScene(t)
	chID := optInChannel(t, s)
	s.received(t)
	topic := "news"
	s.inOneBatch(t,
		func() {
			s.e.UpdateChannel(ctx, s.owner, &svcv1.UpdateChannelRequest{ChannelId: chID, Topic: &topic})
		},
		func() {
			mode := svcv1.ChannelMode_CHANNEL_MODE_ROLES
			s.e.UpdateServerSettings(ctx, s.owner, &svcv1.UpdateServerSettingsRequest{ChannelMode: &mode})
		},
	)
	got := s.received(t)
	want := []string{"channel_updated:open", "*svcv1.Event_ChannelModeChanged", "*svcv1.Event_ServerUpdated"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the member who saw the channel received %v, want %v", got, want)
	}
}
