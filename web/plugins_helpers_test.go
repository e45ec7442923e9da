package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Helpers of the plugin tests.

// pluginPath is where a plugin's file is in the server's data directory.
func pluginPath(s *webtest.Server, file string) string {
	return filepath.Join(s.Dir, "plugins", file)
}

// fileText is a file's content, or "<absent>".
func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mustInstall installs a plugin and checks it runs.
func mustInstall(t *testing.T, by *webtest.Client, name, src string) *svcv1.Plugin {
	t.Helper()
	res, err := by.Bot.InstallPlugin(ctx, req(&svcv1.InstallPluginRequest{Name: name, Source: src}))
	if err != nil {
		t.Fatalf("install %s: %v", name, err)
	}
	p := res.Msg.GetPlugin()
	if !p.GetEnabled() || !p.GetRunning() || p.GetError() != "" || p.GetBotId() == "" {
		t.Fatalf("install %s: %v", name, p)
	}
	return p
}

// listed is the plugin of that name in ListPlugins, or nil.
func listed(t *testing.T, by *webtest.Client, name string) *svcv1.Plugin {
	t.Helper()
	res, err := by.Bot.ListPlugins(ctx, req(&svcv1.ListPluginsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Msg.GetPlugins() {
		if p.GetName() == name {
			return p
		}
	}
	return nil
}

// waitListed polls ListPlugins until the plugin meets cond: plugins run on goroutines of their
// own, so what they did shows up a moment after the event that made them do it. The bound
// guards against a hang; it measures nothing.
func waitListed(t *testing.T, by *webtest.Client, name string, cond func(*svcv1.Plugin) bool) *svcv1.Plugin {
	t.Helper()
	deadline := time.Now().Add(webtest.Wait)
	for {
		p := listed(t, by, name)
		if p != nil && cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin %s is %v after %s", name, p, webtest.Wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stoppedWith waits for a plugin to be stopped with an error that says want.
func stoppedWith(t *testing.T, by *webtest.Client, name, want string) *svcv1.Plugin {
	t.Helper()
	p := waitListed(t, by, name, func(p *svcv1.Plugin) bool { return !p.GetRunning() })
	if !p.GetEnabled() || !strings.Contains(p.GetError(), want) {
		t.Fatalf("plugin %s stopped as %v, want an error saying %q", name, p, want)
	}
	return p
}

// erredWith waits for a running plugin to record an error that says want.
func erredWith(t *testing.T, by *webtest.Client, name, want string) *svcv1.Plugin {
	t.Helper()
	p := waitListed(t, by, name, func(p *svcv1.Plugin) bool { return strings.Contains(p.GetError(), want) })
	if !p.GetRunning() {
		t.Fatalf("plugin %s stopped (%v); it should run on", name, p)
	}
	return p
}

// asker sends each question in a channel as by and returns the answer: the text of the message
// after by's own on st (which must see the channel). A non-nil clock moves a second first, so
// that questions in a row stay under the people's send rate.
func asker(t *testing.T, clock *webtest.Clock, by *webtest.Client, st *webtest.Stream, channelID string) func(q string) string {
	return func(q string) string {
		t.Helper()
		if clock != nil {
			clock.Advance(time.Second)
		}
		mustSend(t, by, &svcv1.SendMessageRequest{ChannelId: channelID, Text: q})
		return texts(t, st, 2)[1]
	}
}

// texts sends nothing; it collects the texts of the next n messages created on a stream.
func texts(t *testing.T, st *webtest.Stream, n int) []string {
	t.Helper()
	var out []string
	for len(out) < n {
		if m := st.Next().GetMessageCreated(); m != nil {
			out = append(out, m.GetText())
		}
	}
	return out
}

// nextText is the text of the next message created on a stream.
func nextText(t *testing.T, st *webtest.Stream) string {
	t.Helper()
	return texts(t, st, 1)[0]
}

// logBuffer collects a server's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// withLog sends the server's log, from info up, to l.
func withLog(l *logBuffer) webtest.Option {
	return func(o *engine.Options) {
		o.Log = slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
}

// waitLog waits for a line of the log that contains every part.
func waitLog(t *testing.T, l *logBuffer, parts ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), webtest.Wait)
	defer cancel()
	for {
		for _, line := range strings.Split(l.String(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return line
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no log line with %q in:\n%s", parts, l.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
