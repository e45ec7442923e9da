package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// memoryScripts are hooks that try to take the server's memory, each by another way: the audit
// that found `+` unbounded (a hook doubling a string took the server from 37 MB to 952 MB, and
// several such plugins to 1.16 GB), and every other built-in that grows a string or an array
// in big steps. want is what the plugin's error says once the hook has been stopped: a
// RangeError naming the limit (the hook fails, the plugin runs on), or the plugin stopped at
// the heap limit, or (for the built-ins too slow in goja to make 64 MB in 500 ms: spreading,
// map, a regular expression's captures, JSON, and padStart on a machine busy with other
// tests) at whichever of the heap and time limits comes first: the bound on the server's RSS
// is what they are here for.
var memoryScripts = []struct{ name, src, want string }{
	{"double", `let s = "éé"; for (let i = 0; i < 40; i++) s = s + s`, "+: the string would be"},
	{"double-assign", `let s = "éé"; for (let i = 0; i < 40; i++) s += s`, "+: the string would be"},
	{"double-object", `const o = {s: "éé"}; for (let i = 0; i < 40; i++) o.s += o.s`, "+: the string would be"},
	{"double-template", "let s = 'éé'; for (let i = 0; i < 40; i++) s = `${s}${s}`", "a template literal: the result would be"},
	{"double-concat", `let s = "éé"; for (let i = 0; i < 40; i++) s = s.concat(s)`, "concat: the result would be"},
	// On a loaded machine keep-plus can reach its time limit before its memory limit (it did
	// once in CI's run); its memory is the peak's to bound then, as the others'.
	{"keep-plus", `const keep = []; const s = "é".repeat(1 << 20); for (let i = 0; i < 1e6; i++) keep.push(s + i)`, "stopped: hook message"},
	{"keep-repeat", `const keep = []; for (let i = 0; i < 1e6; i++) keep.push("é".repeat(4e6))`, "used more than 64 MB of memory"},
	{"keep-pad", `const keep = []; for (let i = 0; i < 1e6; i++) keep.push("".padStart(4e6, "é" + i))`, "stopped: hook message"},
	{"keep-join", `const a = Array(1000).fill("é".repeat(4000)); const keep = []; for (let i = 0; i < 1e6; i++) keep.push(a.join(i))`, "used more than 64 MB of memory"},
	{"keep-spread", `const a = Array(131072).fill(0); const keep = []; for (;;) keep.push([...a])`, "stopped: hook message"},
	{"keep-map", `const a = Array(131072).fill(0); const keep = []; for (;;) keep.push(a.map(x => x))`, "stopped: hook message"},
	{"keep-regexp", `const s = "é".repeat(2e6); const keep = []; for (;;) keep.push(/(.*)/.exec(s))`, "stopped: hook message"},
	{"keep-json-parse", `const t = JSON.stringify("é".repeat(1e6)); const keep = []; for (;;) keep.push(JSON.parse(t))`, "stopped: hook message"},
	{"json-stringify", `const s = "é".repeat(2e6); const a = Array(100000).fill(s); JSON.stringify(a)`, "stopped: hook message"},
	{"replace", `const big = "x".repeat(4e6); "é".repeat(1000).replace(/é/g, () => big)`, "replace: the result would be more than"},
	{"elements", `const a = []; for (let i = 0; ; i++) a[i] = {i, s: "é" + i}`, "stopped: hook message"},
	{"typed-array", `new Uint8Array(1e9)`, "Uint8Array is not defined"},
}

// TestPluginHooksStayInTheirMemory builds hearth, installs each memory script as a plugin's
// message hook and sends the message that runs it, one after the other: each is stopped with
// its limit named, and the server's peak RSS (VmHWM) stays within three heap limits (64 MB)
// of what it was before the first ran.
func TestPluginHooksStayInTheirMemory(t *testing.T) {
	// Not in parallel: a script must reach its memory limit within its time limit, which is
	// real time, and the other tests' servers beside it took that time (seen at go test -p 4).
	bin := hearthBinary(t)
	data := t.TempDir()
	const base = "http://chat.test"
	srv, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", base)
	tok, err := exec.Command(bin, "token", "-data", data, "-base-url", base, "-sub", "owner").Output()
	if err != nil {
		t.Fatalf("hearth token: %v", err)
	}
	bearer := connect.WithInterceptors(auth.WithBearer(strings.TrimSpace(string(tok))))
	ctx := context.Background()
	server := svcv1connect.NewServerServiceClient(http.DefaultClient, url, bearer)
	chat := svcv1connect.NewChatServiceClient(http.DefaultClient, url, bearer)
	bots := svcv1connect.NewBotServiceClient(http.DefaultClient, url, bearer)
	if _, err := server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	ch, err := chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range memoryScripts {
		src := fmt.Sprintf("chat.on('message', m => { if (m.text !== %q) return; %s })", s.name, s.src)
		if _, err := bots.InstallPlugin(ctx, connect.NewRequest(&svcv1.InstallPluginRequest{Name: s.name, Source: src})); err != nil {
			t.Fatalf("install %s: %v", s.name, err)
		}
	}
	send := func(text string) {
		t.Helper()
		if _, err := chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ch.Msg.GetChannel().GetId(), Text: text})); err != nil {
			t.Fatal(err)
		}
	}
	// Every plugin has run a hook once (and ignored it): what the server holds with them all.
	send("warm up")
	waitFor(t, func() bool { return pluginsIdle(ctx, t, bots) })
	pid := srv.cmd.Process.Pid
	before := procStatus(t, pid, "VmHWM")
	for _, s := range memoryScripts {
		send(s.name)
		var got string
		deadline := time.Now().Add(60 * time.Second)
		for got == "" && time.Now().Before(deadline) {
			got = pluginError(ctx, t, bots, s.name)
			if got == "" {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if !strings.Contains(got, s.want) {
			t.Errorf("%s: the plugin's error is %q, want it to say %q", s.name, got, s.want)
		}
		t.Logf("%-16s VmHWM %4d MB  %s", s.name, procStatus(t, pid, "VmHWM")>>20, got)
	}
	peak := procStatus(t, pid, "VmHWM")
	t.Logf("peak RSS: %d MB before the scripts, %d MB after", before>>20, peak>>20)
	if limit := before + 3*64<<20; peak > limit {
		t.Errorf("the server's peak RSS went from %d MB to %d MB; the bound is %d MB", before>>20, peak>>20, limit>>20)
	}
}

// pluginError is the error ListPlugins shows for a plugin.
func pluginError(ctx context.Context, t *testing.T, bots svcv1connect.BotServiceClient, name string) string {
	t.Helper()
	res, err := bots.ListPlugins(ctx, connect.NewRequest(&svcv1.ListPluginsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Msg.GetPlugins() {
		if p.GetName() == name {
			return p.GetError()
		}
	}
	t.Fatalf("no plugin %s", name)
	return ""
}

// pluginsIdle reports whether every plugin runs without an error.
func pluginsIdle(ctx context.Context, t *testing.T, bots svcv1connect.BotServiceClient) bool {
	res, err := bots.ListPlugins(ctx, connect.NewRequest(&svcv1.ListPluginsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Msg.GetPlugins() {
		if !p.GetRunning() || p.GetError() != "" {
			t.Fatalf("plugin %s: running %v, error %q", p.GetName(), p.GetRunning(), p.GetError())
		}
	}
	// The hooks of the warm-up message ran when every plugin's bot has read past it: give them
	// the time to (they hold nothing of it).
	time.Sleep(500 * time.Millisecond)
	return true
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out")
}

// procStatus reads a field of /proc/<pid>/status in bytes (VmHWM: the peak resident set).
func procStatus(t *testing.T, pid int, field string) uint64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc status to read the process's memory from: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		return kb << 10
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
