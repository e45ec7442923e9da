package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// TestBadConfigurationIsOneLineAndExitCode2: every mistake in flags or environment stops the
// server before it starts, with one line naming what is wrong.
func TestBadConfigurationIsOneLineAndExitCode2(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenUDP, err := net.ListenPacket("udp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer takenUDP.Close()
	udpPort := strconv.Itoa(takenUDP.LocalAddr().(*net.UDPAddr).Port)
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"bad base url", []string{"-base-url", "localhost:8080"}, nil, `-base-url "localhost:8080" must be an absolute http or https URL`},
		{"base url with a query", []string{"-base-url", "https://chat.example.com/?x=1"}, nil, "without user info, query or fragment"},
		{"base url with a password", []string{"-base-url", "https://admin:secret@chat.example.com"}, nil, "without user info, query or fragment"},
		{"bot rate not a number", []string{"-bot-rate", "NaN"}, nil, "-bot-rate NaN must be more than 0"},
		{"tls files missing", []string{"-tls-cert", "/nonexistent/cert.pem", "-tls-key", "/nonexistent/key.pem"}, nil, "-tls-cert/-tls-key: open /nonexistent/cert.pem: no such file or directory"},
		{"address without a port", []string{"-addr", "localhost"}, nil, "-addr localhost: listen tcp: address localhost: missing port in address"},
		{"address in use", []string{"-addr", taken.Addr().String()}, nil, "-addr " + taken.Addr().String() + ": listen tcp " + taken.Addr().String() + ": bind: address already in use"},
		{"metrics port unknown", []string{"-metrics-addr", "127.0.0.1:none"}, nil, "-metrics-addr 127.0.0.1:none: listen tcp: lookup tcp/none: unknown port"},
		{"unknown bucket scheme", []string{"-bucket", "ftp://files.example.com/b"}, nil, `-bucket: unknown bucket scheme "ftp"`},
		{"unwritable data dir", []string{"-data", filepath.Join(notADir, "data")}, nil, "-data " + filepath.Join(notADir, "data") + ": cannot create the data directory"},
		{"untrusted plain-http issuer", []string{"-trusted-issuer", "http://login.example.com"}, nil, "-trusted-issuer"},
		{"no issuer at all", []string{"-no-local-issuer"}, nil, "-no-local-issuer needs at least one -trusted-issuer"},
		{"bad owner", []string{"-owner", "alice"}, nil, `-owner "alice" must be ISSUER#SUBJECT`},
		{"half of tls", []string{"-tls-cert", "cert.pem"}, nil, "-tls-cert and -tls-key go together"},
		{"bad log level", []string{"-log-level", "loud"}, nil, `-log-level "loud"`},
		{"bad bot rate", []string{"-bot-rate", "0"}, nil, "-bot-rate 0 must be more than 0"},
		{"bad replay days", []string{"-replay-days", "0"}, nil, "-replay-days 0 must be 1 to 3650"},
		{"bad memory profile", []string{"-memory", "huge"}, nil, `-memory: unknown memory profile "huge"`},
		{"bad metrics address", []string{"-metrics-addr", "9464"}, nil, `-metrics-addr "9464" must be host:port`},
		{"bad value from the environment", nil, map[string]string{"HEARTH_BOT_BURST": "many"}, "HEARTH_BOT_BURST"},
		{"bad base url from the environment", nil, map[string]string{"HEARTH_BASE_URL": "nope"}, `-base-url "nope"`},
		{"unknown flag", []string{"-colour", "red"}, nil, "flag provided but not defined: -colour"},
		{"unparsable value", []string{"-bot-rate", "fast"}, nil, `invalid value "fast" for flag -bot-rate`},
		{"unparsable value from the environment", nil, map[string]string{"HEARTH_BACKUP_EVERY": "often"}, `invalid value "often" for HEARTH_BACKUP_EVERY (-backup-every)`},
		{"backups too often", []string{"-backup-every", "1m"}, nil, "-backup-every 1m0s must be 0 (off) or 5m to 8784h"},
		{"negative keep", []string{"-backup-keep", "-1"}, nil, "-backup-keep -1 must be 0 (keep all) to 10000"},
		{"bad backup bucket", []string{"-backup-to", "ftp://backups.example.com/b"}, nil, `-backup-to: unknown bucket scheme "ftp"`},
		{"backup folder where it cannot be", []string{"-backup-to", filepath.Join(notADir, "backups")}, nil, "-backup-to " + filepath.Join(notADir, "backups") + ": cannot create the folder"},
		{"a backup with a stray argument", []string{"backup", "-data", data, "out.tar.gz"}, nil, `backup: unexpected "out.tar.gz"`},
		{"a restore of nothing", []string{"restore", "-data", data}, nil, "restore: name one backup"},
		{"unknown command", []string{"launch"}, nil, `unknown command "launch"`},
		{"oidc client without client id", []string{"-oidc-client", "https://login.example.com"}, nil, `-oidc-client: "https://login.example.com" must be ISSUER=CLIENT_ID`},
		{"oidc client on plain http", []string{"-oidc-client", "http://login.example.com=hearth"}, nil, "-oidc-client: issuer URL \"http://login.example.com\" must be an absolute https URL"},
		{"oidc client named twice", nil, map[string]string{"HEARTH_OIDC_CLIENT": "https://login.example.com=a,https://login.example.com/=b"}, "-oidc-client names https://login.example.com twice"},
		{"oidc client with spaces", []string{"-oidc-client", "https://login.example.com=a b"}, nil, `client id "a b" must be at most 255 printable characters without spaces`},
		{"cors origin with a path", []string{"-cors-origin", "https://chat.example.com/app"}, nil, `-cors-origin "https://chat.example.com/app" must be an origin`},
		{"cors origin with a slash", nil, map[string]string{"HEARTH_CORS_ORIGIN": "https://chat.example.com/"}, `-cors-origin "https://chat.example.com/" must be an origin`},
		{"domain that is a URL", []string{"-domain", "https://chat.example.com"}, nil, `-domain "https://chat.example.com" is a URL`},
		{"domain with a single label", []string{"-domain", "localhost"}, nil, `-domain "localhost" has a single label`},
		{"wildcard domain", []string{"-domain", "*.example.com"}, nil, "is a wildcard, which needs DNS-01 challenges"},
		{"domain that is an address", []string{"-domain", "192.0.2.1"}, nil, "is an IP address"},
		{"domain with a space", nil, map[string]string{"HEARTH_DOMAIN": "chat.example.com,my chat.example.com"}, `-domain "my chat.example.com" has a character other than`},
		{"domain and tls files", []string{"-domain", "chat.example.com", "-tls-cert", "c.pem", "-tls-key", "k.pem"}, nil, "-domain gets certificates by itself"},
		{"acme directory on plain http", []string{"-domain", "chat.example.com", "-acme-directory", "http://acme.example.com/dir"}, nil, `-acme-directory "http://acme.example.com/dir" must be an https URL`},
		{"acme ca root missing", []string{"-domain", "chat.example.com", "-acme-ca-root", "/nonexistent/ca.pem"}, nil, "-acme-ca-root: no such file or directory"},
		{"acme ca root without a certificate", []string{"-domain", "chat.example.com", "-acme-ca-root", notADir}, nil, "holds no PEM certificate"},
		{"bad acme email", []string{"-domain", "chat.example.com", "-acme-email", "admin"}, nil, `-acme-email "admin" must be an email address`},
		{"https address in use", []string{"-domain", "chat.example.com", "-https-addr", taken.Addr().String()}, nil, "-https-addr " + taken.Addr().String() + ": listen tcp"},
		{"http address in use", []string{"-domain", "chat.example.com", "-https-addr", "127.0.0.1:0", "-http-addr", taken.Addr().String()}, nil, "-http-addr " + taken.Addr().String() + ": listen tcp"},
		{"disk margin too small", []string{"-disk-min-free", "4KiB"}, nil, "-disk-min-free 4KiB must be at least 1MiB"},
		{"disk margin not a size", []string{"-disk-min-free", "lots"}, nil, `invalid value "lots" for flag -disk-min-free`},
		{"voice port in use", []string{"-voice-port", udpPort}, nil, "-voice-port " + udpPort + ": listen udp :" + udpPort + ": bind: address already in use (-voice-port 0 turns voice off)"},
		{"voice port out of range", []string{"-voice-port", "70000"}, nil, "-voice-port 70000 must be 1 to 65535, or 0 (voice off)"},
		{"voice public ip not an address", []string{"-voice-public-ip", "voice.example.com"}, nil, `-voice-public-ip "voice.example.com" must be an IP address, e.g. 203.0.113.7`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := tc.args
			if len(args) == 0 || args[0][0] == '-' {
				args = append([]string{"-data", data, "-addr", "127.0.0.1:0"}, args...)
			}
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			if code != 2 {
				t.Fatalf("exit code %d, want 2 (stderr %q)", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("stderr %q does not say %q", stderr.String(), tc.want)
			}
			if lines := strings.Count(strings.TrimSpace(stderr.String()), "\n"); lines > 0 {
				t.Fatalf("stderr has %d lines, want one: %q", lines+1, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Fatalf("a server that did not start printed %q", stdout.String())
			}
		})
	}
}

// TestTheBinaryServesAndShutsDownCleanly builds hearth, starts it on a loopback port, logs in
// with `hearth token`, joins, holds a stream open, stops it with SIGTERM and starts it again on
// the same data directory: the member is still there.
func TestTheBinaryServesAndShutsDownCleanly(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	data := t.TempDir()
	const base = "http://chat.test"

	srv, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", base)
	tok, err := exec.Command(bin, "token", "-data", data, "-base-url", base, "-sub", "alice", "-name", "Alice").Output()
	if err != nil {
		t.Fatalf("hearth token: %v", err)
	}
	token := strings.TrimSpace(string(tok))
	server := svcv1connect.NewServerServiceClient(http.DefaultClient, url, connect.WithInterceptors(auth.WithBearer(token)))
	join, err := server.Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if m := join.Msg.GetMember(); m.GetRole() != svcv1.MemberRole_MEMBER_ROLE_OWNER || m.GetDisplayName() != "Alice" {
		t.Fatalf("first join = %v", m)
	}
	if resp, err := http.Get(url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	// The built-in issuer's sign-in is served, its issuer named by -base-url.
	if resp, err := http.Get(url + "/oauth/issuers"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/oauth/issuers: %v %v", resp, err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := `{"issuers":[{"issuer":"` + base + `","client_id":"hearth-web","built_in":true}]}`; string(body) != want {
			t.Fatalf("/oauth/issuers = %s, want %s", body, want)
		}
	}
	// The sandbox starts on the first upload, not with the server: no compiled guest yet.
	if _, err := os.Stat(filepath.Join(data, "cache", "wazero")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the sandbox's cache exists before the first upload: %v", err)
	}
	fileURL := uploadThroughBinary(t, url, token)
	if fi, err := os.Stat(filepath.Join(data, "file-key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file-key: %v, %v; want mode 0600", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(data, "cache", "wazero")); err != nil || !fi.IsDir() {
		t.Fatalf("the sandbox's cache: %v", err)
	}

	// A stream open at shutdown ends; the process exits 0 and says it stopped.
	chat := svcv1connect.NewChatServiceClient(http.DefaultClient, url, connect.WithInterceptors(auth.WithBearer(token)))
	stream, err := chat.Subscribe(context.Background(), connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: 0}))
	if err != nil {
		t.Fatal(err)
	}
	if !stream.Receive() || !stream.Msg().GetHeartbeat() {
		t.Fatalf("the stream did not open with a heartbeat: %v", stream.Err())
	}
	ended := make(chan struct{})
	go func() {
		for stream.Receive() {
		}
		close(ended)
	}()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the stream stayed open after SIGTERM")
	}
	if err := srv.wait(20 * time.Second); err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, srv.stderr())
	}
	if !strings.Contains(srv.stderr(), "stopped") {
		t.Fatalf("the log does not say it stopped:\n%s", srv.stderr())
	}

	// The same data directory, the same member.
	_, url = startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", base)
	server = svcv1connect.NewServerServiceClient(http.DefaultClient, url, connect.WithInterceptors(auth.WithBearer(token)))
	me, err := server.GetMe(context.Background(), connect.NewRequest(&svcv1.GetMeRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if me.Msg.GetMember().GetId() != join.Msg.GetMember().GetId() {
		t.Fatalf("after a restart GetMe = %v, want member %s", me.Msg.GetMember(), join.Msg.GetMember().GetId())
	}
	// The same file key: URLs issued before the restart still work.
	if resp, err := http.Get(url + fileURL); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a file URL after a restart: %v %v", resp, err)
	}
}

// uploadThroughBinary uploads a small file with POST /upload, fetches it by its signed URL,
// and returns the URL.
func uploadThroughBinary(t *testing.T, url, token string) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "hello.txt")
	w.Write([]byte("hello, hearth"))
	mw.Close()
	r, _ := http.NewRequest(http.MethodPost, url+"/upload", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	var att struct{ URL, ContentType string }
	err = json.NewDecoder(resp.Body).Decode(&att)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || att.ContentType != "text/plain; charset=utf-8" {
		t.Fatalf("POST /upload: %d %+v %v", resp.StatusCode, att, err)
	}
	resp, err = http.Get(url + att.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != "hello, hearth" {
		t.Fatalf("GET %s: %d %q", att.URL, resp.StatusCode, got)
	}
	return att.URL
}

type process struct {
	cmd    *exec.Cmd
	errBuf *lockedBuffer
	outBuf *lockedBuffer
	exited chan struct{} // closed when the process has exited; err is then set
	err    error
}

func (p *process) stderr() string { return p.errBuf.String() }

// waitStdout waits (bounded) until the process has written want on its standard output.
func (p *process) waitStdout(t *testing.T, want string) {
	t.Helper()
	waitPrinted(t, "its standard output", p.outBuf, want)
}

// waitStderr waits (bounded) until the process has logged want. What it logged before a line
// on its standard output may still be on its way: each stream is copied by a goroutine of its
// own, so a test that read the output line must wait for the log, not read it.
func (p *process) waitStderr(t *testing.T, want string) {
	t.Helper()
	waitPrinted(t, "its log", p.errBuf, want)
}

func waitPrinted(t *testing.T, where string, b *lockedBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(b.String(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("hearth did not print %q on %s:\n%s", want, where, b.String())
		}
	}
}

// wait returns how the process exited, killing it if it runs longer than d.
func (p *process) wait(d time.Duration) error {
	select {
	case <-p.exited:
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.exited
	}
	return p.err
}

var listening = regexp.MustCompile(`listening on (\S+)\)`)

// startBinary runs the server and returns it with the URL it listens on; it is killed when the
// test ends if it is still running.
func startBinary(t *testing.T, bin string, args ...string) (*process, string) {
	t.Helper()
	return startBinaryIn(t, "", bin, args...)
}

// startBinaryIn is startBinary in the working directory dir ("" for the test's).
func startBinaryIn(t *testing.T, dir, bin string, args ...string) (*process, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HEARTH_LOG_LEVEL=info")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, errBuf: &lockedBuffer{}, outBuf: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.outBuf.Write([]byte(sc.Text() + "\n"))
			lines <- sc.Text()
		}
		close(lines)
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.wait(0) })
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("hearth exited before listening:\n%s", p.stderr())
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				go func() {
					for range lines {
					}
				}()
				return p, "http://" + m[1]
			}
		case <-timeout:
			t.Fatalf("hearth did not start within 30s:\n%s", p.stderr())
		}
	}
}

// lockedBuffer collects a process's output while tests read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
