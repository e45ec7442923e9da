package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// withoutHearthEnv unsets every HEARTH_* variable for the test (they come back after it).
func withoutHearthEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "HEARTH_") {
			t.Setenv(k, v)
			os.Unsetenv(k)
		}
	}
}

// TestDefaultsAndTheEnvironment: with no flag and no HEARTH_* variable the server takes
// DECISIONS.md's defaults; a variable sets its flag (a list flag from a comma list); a flag on
// the command line wins over its variable.
func TestDefaultsAndTheEnvironment(t *testing.T) {
	withoutHearthEnv(t)
	parse := func(args ...string) Config {
		t.Helper()
		var c Config
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		serveFlags(fs, &c)
		if err := parseFlags(fs, args); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := parse()
	want := Config{
		Addr: ":8080", Data: "./data", Name: "Hearth", LogLevel: "info",
		BotRate: 20, BotBurst: 40, ReplayDays: 7, ReplayEvents: 100000, Memory: "small", BackupKeep: 7,
		HTTPSAddr: ":443", HTTPAddr: ":80", ACMEDirectory: "https://acme-v02.api.letsencrypt.org/directory",
		VoicePort: 7881,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", c, want)
	}
	// -web-url follows -base-url; the data directory is the only thing validate touches.
	c.Data = t.TempDir()
	if err := c.validate(); err != nil || c.BaseURL != "http://localhost:8080" || c.WebURL != "http://localhost:8080/app" {
		t.Fatalf("validate the defaults: %v, base url %q, web url %q", err, c.BaseURL, c.WebURL)
	}

	t.Setenv("HEARTH_BASE_URL", "https://from-the-environment.example")
	t.Setenv("HEARTH_BOT_RATE", "3")
	t.Setenv("HEARTH_TRUSTED_ISSUER", "https://a.example, https://b.example")
	t.Setenv("HEARTH_FILES_REDIRECT", "true")
	c = parse("-base-url", "https://from-the-flag.example", "-trusted-issuer", "https://c.example")
	if c.BaseURL != "https://from-the-flag.example" {
		t.Errorf("-base-url with HEARTH_BASE_URL set: %q, want the flag's", c.BaseURL)
	}
	if !slices.Equal(c.TrustedIssuers, []string{"https://c.example"}) {
		t.Errorf("-trusted-issuer with HEARTH_TRUSTED_ISSUER set: %q, want the flag's alone", c.TrustedIssuers)
	}
	if c.BotRate != 3 || !c.FilesRedirect {
		t.Errorf("from the environment: bot rate %g, files redirect %v; want 3 and true", c.BotRate, c.FilesRedirect)
	}
	c = parse()
	if c.BaseURL != "https://from-the-environment.example" || !slices.Equal(c.TrustedIssuers, []string{"https://a.example", "https://b.example"}) {
		t.Errorf("from the environment: base url %q, issuers %q", c.BaseURL, c.TrustedIssuers)
	}
}

// TestNoFlagsOnAFreshMachine: README's first steps in an empty folder, with no flag at all
// (only HEARTH_ADDR, to listen on a free loopback port): the server makes ./data with its keys,
// private to its user, and prints the command that mints a token; that command, run as
// printed from the same folder, gives a token the server takes; the browser client is served.
func TestNoFlagsOnAFreshMachine(t *testing.T) {
	bin := hearthBinary(t)
	withoutHearthEnv(t)
	t.Setenv("HEARTH_ADDR", "127.0.0.1:0")
	// Voice stays on, on a free port rather than 7881, which another server may hold.
	t.Setenv("HEARTH_VOICE_PORT", strconv.Itoa(freeVoicePort(t)))
	dir := t.TempDir()
	srv, url := startBinaryIn(t, dir, bin)
	hint := "token -data ./data -base-url http://localhost:8080 -sub alice"
	srv.waitStdout(t, hint)
	data := filepath.Join(dir, "data")
	for name, perm := range map[string]os.FileMode{"": 0o700, "db": 0o700, "files": 0o700, "issuer-key": 0o600, "file-key": 0o600} {
		if fi, err := os.Stat(filepath.Join(data, name)); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("./data/%s: %v %v, want mode %v", name, fi, err, perm)
		}
	}

	cmd := exec.Command(bin, strings.Fields(hint)...)
	cmd.Dir = dir
	tok, err := cmd.Output()
	if err != nil {
		t.Fatalf("hearth %s: %v", hint, err)
	}
	server := svcv1connect.NewServerServiceClient(http.DefaultClient, url, connect.WithInterceptors(auth.WithBearer(strings.TrimSpace(string(tok)))))
	join, err := server.Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{}))
	if err != nil || join.Msg.GetMember().GetRole() != svcv1.MemberRole_MEMBER_ROLE_OWNER {
		t.Fatalf("Join with the printed command's token: %v %v", join, err)
	}
	resp, err := http.Get(url + "/app/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<script") {
		t.Fatalf("GET /app/: %d %.200s", resp.StatusCode, page)
	}

}
