package web_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The example plugins of docs/plugins.md, run as the page shows them.

// docExample is the ```js block after `<!-- example: name -->` in docs/plugins.md.
func docExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/plugins.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	marker := "<!-- example: " + name + " -->\n```js\n"
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("docs/plugins.md has no example %q", name)
	}
	rest := doc[i+len(marker):]
	end := strings.Index(rest, "```")
	if end < 0 {
		t.Fatalf("example %q does not end", name)
	}
	return rest[:end]
}

func TestDocExampleWelcome(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	mustChannel(t, owner, "announcements", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustInstall(t, owner, "welcome", docExample(t, "welcome"))
	st := owner.Subscribe(t, s.Engine.Seq())
	for i, sub := range []string{"ann", "bob"} {
		clock.Advance(time.Minute)
		c := s.Join(sub)
		var m *svcv1.Message
		for m == nil {
			m = st.Next().GetMessageCreated()
		}
		want := "Welcome, <@" + c.Member.GetId() + ">! (" + strconv.Itoa(i+1) + " welcomed so far)"
		if m.GetChannelId() != general.GetId() || m.GetText() != want {
			t.Fatalf("welcome %d: %q in %s, want %q in #general", i, m.GetText(), m.GetChannelId(), want)
		}
	}
	// Bots are not welcomed: the next message is the marker.
	s.CreateBot(owner, "helper")
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "marker"})
	if got := nextText(t, st); got != "marker" {
		t.Fatalf("after a bot was created the plugin said %q", got)
	}
}

func TestDocExampleGate(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	logs := &logBuffer{}
	s := webtest.Start(t, webtest.WithClock(clock), withLog(logs))
	owner := s.Join("owner")
	mustInstall(t, owner, "gate", docExample(t, "gate"))
	info, err := owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
	if err != nil || strings.Join(info.Msg.GetJoinQuestions(), "|") != "What is the name of our village?" {
		t.Fatalf("join_questions = %v, %v", info.Msg.GetJoinQuestions(), err)
	}
	join := func(sub, answer string) error {
		clock.Advance(6 * time.Second)
		_, err := s.Client(s.Token(sub)).Server.Join(ctx, req(&svcv1.JoinRequest{DisplayName: "Gus", Answers: []string{answer}}))
		return err
	}
	wantCode(t, "a wrong answer", join("gus", "Springfield"), connect.CodePermissionDenied, "That is not it; ask the person who invited you.")
	wantOK(t, "the right answer", join("gus", "  HearthVille "))
	waitLog(t, logs, "plugin=gate", `line="let in Gus"`)
}

func TestDocExampleRoll(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	owner := s.Join("owner")
	general := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	mustInstall(t, owner, "roll", docExample(t, "roll"))
	st := owner.Subscribe(t, s.Engine.Seq())
	ask := func(text string) (*svcv1.Message, *svcv1.Message) {
		t.Helper()
		clock.Advance(time.Second)
		cmd := mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: text})
		for {
			if m := st.Next().GetMessageCreated(); m != nil && m.GetId() != cmd.GetId() {
				return cmd, m
			}
		}
	}
	rolled := regexp.MustCompile(`^🎲 2d6: (\d) \+ (\d) = (\d+)$`)
	for range 5 {
		cmd, answer := ask("!roll 2d6")
		got := rolled.FindStringSubmatch(answer.GetText())
		if got == nil || answer.GetThreadRootId() != cmd.GetId() {
			t.Fatalf("!roll 2d6 answered %q (thread %q)", answer.GetText(), answer.GetThreadRootId())
		}
		a, _ := strconv.Atoi(got[1])
		b, _ := strconv.Atoi(got[2])
		sum, _ := strconv.Atoi(got[3])
		if a < 1 || a > 6 || b < 1 || b > 6 || a+b != sum {
			t.Fatalf("!roll 2d6 answered %q", answer.GetText())
		}
	}
	if _, answer := ask("!roll 50d6"); answer.GetText() != "I roll 1 to 20 dice of 2 to 100 sides." {
		t.Fatalf("!roll 50d6 answered %q", answer.GetText())
	}
	// Anything else is not a command: the next message is the marker.
	clock.Advance(time.Second)
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "roll 2d6"})
	mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: general.GetId(), Text: "marker"})
	if got := texts(t, st, 2); got[1] != "marker" {
		t.Fatalf("the plugin answered a non-command: %v", got)
	}
}

// TestEveryDocExampleIsRun: each example plugin of docs/plugins.md has a test above that runs
// it; an example added to the page without one fails here (the page says they all are run).
func TestEveryDocExampleIsRun(t *testing.T) {
	t.Parallel()
	tested := map[string]bool{"welcome": true, "gate": true, "roll": true, "newcomer-links": true}
	b, err := os.ReadFile("../docs/plugins.md")
	if err != nil {
		t.Fatal(err)
	}
	found := regexp.MustCompile("<!-- example: ([a-z0-9-]+) -->\n```js\n").FindAllStringSubmatch(string(b), -1)
	blocks := strings.Count(string(b), "```js\n")
	if len(found) != blocks {
		t.Fatalf("docs/plugins.md has %d js blocks but %d of them are marked <!-- example: name -->", blocks, len(found))
	}
	for _, m := range found {
		if !tested[m[1]] {
			t.Errorf("docs/plugins.md's example %q has no test in web/plugins_docs_test.go", m[1])
		}
		delete(tested, m[1])
	}
	for name := range tested {
		t.Errorf("web/plugins_docs_test.go tests the example %q, which docs/plugins.md no longer has", name)
	}
}
