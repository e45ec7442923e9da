package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The S3 server the tests run against: versitygw, Apache-2.0, a single Go binary that
// serves a folder as S3.
const (
	versitygwModule  = "github.com/versity/versitygw/cmd/versitygw"
	versitygwVersion = "v1.8.0"
	// buildTimeout bounds building a tool when it is not installed (versitygw takes 1.5 to
	// 2 minutes on two cores with the module cache warm).
	buildTimeout = 8 * time.Minute
)

// StartS3 starts versitygw on a free 127.0.0.1 port, serving one empty bucket, "hearth", kept
// in a temporary folder, and returns that bucket's URL for blob.Open. The server is stopped
// when the test ends.
//
// versitygw is taken from PATH, then $(go env GOPATH)/bin, then a build cached in the
// user cache folder; failing all three it is built there once (not in -short mode). If
// it cannot be had, the test is skipped, or fails when HEARTH_REQUIRE_S3=1 (as in CI).
//
// gocloud's s3 driver reads credentials only from the environment (or AWS files), so
// StartS3 sets them with tb.Setenv, along with settings that keep a developer's own AWS
// configuration out. They are restored when the test ends; the test must not be parallel.
// SharedS3 is for tests that are.
func StartS3(tb testing.TB) string {
	tb.Helper()
	srv := startS3(tb)
	tb.Cleanup(srv.stop)
	if err := srv.newBucket("hearth"); err != nil {
		tb.Fatal(err)
	}
	for k, v := range srv.env() {
		tb.Setenv(k, v)
	}
	return srv.bucketURL("hearth")
}

// SharedS3 is StartS3 for tests that run in parallel: the tests of a process that ask share
// one versitygw, each given an empty bucket of its own (hearth-1, hearth-2, ...). Its
// credentials and settings are set in the process's environment once it starts, for the rest
// of the process (a test that sets them otherwise with t.Setenv is not parallel, and puts them
// back). It stops when the last test using it ends, and starts again for the next.
func SharedS3(tb testing.TB) string {
	tb.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.users == 0 {
		shared.srv = startS3(tb)
	}
	srv := shared.srv
	shared.users++
	tb.Cleanup(func() {
		shared.mu.Lock()
		defer shared.mu.Unlock()
		if shared.users--; shared.users == 0 {
			srv.stop()
		}
	})
	for k, v := range srv.env() {
		os.Setenv(k, v)
	}
	shared.buckets++
	name := fmt.Sprintf("hearth-%d", shared.buckets)
	if err := srv.newBucket(name); err != nil {
		tb.Fatal(err)
	}
	return srv.bucketURL(name)
}

// shared is SharedS3's server, with how many tests use it.
var shared struct {
	mu      sync.Mutex
	srv     *s3Server
	users   int
	buckets int
}

// s3Server is a running versitygw serving the folders of root as buckets.
type s3Server struct {
	addr, root     string
	access, secret string
	stop           func()
}

// startS3 starts versitygw over a new folder; the caller stops it. It skips or fails tb when
// versitygw cannot be had (unavailable).
func startS3(tb testing.TB) *s3Server {
	tb.Helper()
	bin, err := findVersitygw(tb)
	if err != nil {
		unavailable(tb, "%v", err)
	}
	// Not tb.TempDir: SharedS3's server outlives the test that started it.
	base, err := os.MkdirTemp("", "hearth-s3-")
	if err != nil {
		tb.Fatal(err)
	}
	started := false
	defer func() {
		if !started {
			os.RemoveAll(base)
		}
	}()
	root := filepath.Join(base, "buckets")
	if err := os.Mkdir(root, 0o700); err != nil {
		tb.Fatal(err)
	}
	args := []string{"--quiet", "posix"}
	if !xattrSupported(root) {
		// versitygw keeps object metadata (content type) in extended attributes.
		sidecar := filepath.Join(base, "sidecar")
		if err := os.Mkdir(sidecar, 0o700); err != nil {
			tb.Fatal(err)
		}
		args = append(args, "--sidecar", sidecar)
	}
	args = append(args, root)
	srv := &s3Server{root: root, access: randomHex(tb, 10), secret: randomHex(tb, 20)}

	// A port found free may be taken before versitygw binds it: try a few.
	for attempt := 1; ; attempt++ {
		srv.addr = freeLoopbackAddr(tb)
		stop, err := startVersitygw(bin, srv.addr, srv.access, srv.secret, args)
		if err == nil {
			started = true
			srv.stop = func() {
				stop()
				os.RemoveAll(base)
			}
			return srv
		}
		if attempt == 3 {
			tb.Fatalf("start versitygw: %v", err)
		}
	}
}

// newBucket makes an empty bucket: a folder of the server's root.
func (s *s3Server) newBucket(name string) error { return os.Mkdir(filepath.Join(s.root, name), 0o700) }

// env is what gocloud's s3 driver must find in the environment to reach the server, and
// settings that keep a developer's own AWS configuration out.
func (s *s3Server) env() map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":     s.access,
		"AWS_SECRET_ACCESS_KEY": s.secret,
		// Whatever the developer's machine says, the tests talk to this server only.
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_DEFAULT_PROFILE":         "",
		"AWS_REGION":                  "",
		"AWS_DEFAULT_REGION":          "",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_S3":         "",
		"AWS_CONFIG_FILE":             filepath.Join(s.root, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(s.root, "no-aws-credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	}
}

// bucketURL is the blob.Open URL of the server's bucket name.
func (s *s3Server) bucketURL(name string) string {
	q := url.Values{
		"endpoint":       {"http://" + s.addr},
		"use_path_style": {"true"},
		"disable_https":  {"true"},
		"region":         {"us-east-1"},
	}
	return "s3://" + name + "?" + q.Encode()
}

// startVersitygw runs the server and waits until it answers HTTP. On success it returns the
// function that stops it (kills it and waits for it).
func startVersitygw(bin, addr, access, secret string, args []string) (stop func(), err error) {
	cmd := exec.Command(bin, append([]string{"--port", addr}, args...)...)
	// A small environment of our own: versitygw also reads settings from VGW_* and
	// ROOT_* variables, which must not leak in. The keys go by environment, not argv, so
	// they do not show in ps.
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"ROOT_ACCESS_KEY_ID=" + access,
		"ROOT_SECRET_ACCESS_KEY=" + secret,
	}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Killed with the test process however it ends (a panic or -timeout runs no cleanup).
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("versitygw exited (%v): %s", err, strings.TrimSpace(out.String()))
		default:
		}
		// Any HTTP answer, even 403 to an unsigned request, means it is serving.
		resp, err := client.Get("http://" + addr + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return nil, fmt.Errorf("versitygw did not answer on %s within 15s: %v: %s", addr, err, strings.TrimSpace(out.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return func() {
		cmd.Process.Kill()
		<-exited
	}, nil
}

// findVersitygw returns the path of a versitygw binary, building it if need be.
func findVersitygw(tb testing.TB) (string, error) {
	return GoTool(tb, "versitygw", versitygwModule, versitygwVersion)
}

// GoTool returns the path of a Go program the tests run (a server to test against): the
// command name on PATH, then in $(go env GOPATH)/bin, then a build of module@version cached in
// the user cache folder; failing all three it is built there once (not in -short mode; a
// minute or two on two cores).
func GoTool(tb testing.TB, name, module, version string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	gobin := goEnv("GOBIN")
	if gobin == "" {
		if gopath := goEnv("GOPATH"); gopath != "" {
			gobin = filepath.Join(filepath.SplitList(gopath)[0], "bin")
		}
	}
	if gobin != "" {
		if p := filepath.Join(gobin, name); isFile(p) {
			return p, nil
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%s is not installed and there is no cache folder to build it in: %v", name, err)
	}
	dir := filepath.Join(cache, "hearth-test", name+"-"+version)
	bin := filepath.Join(dir, name)
	if isFile(bin) {
		return bin, nil
	}
	if testing.Short() {
		return "", fmt.Errorf("%s is not installed, and -short does not build it", name)
	}
	tb.Logf("building %s %s into %s (takes a minute or two, once)", name, version, dir)
	return bin, buildGoTool(dir, bin, name, module, version)
}

// buildGoTool installs module@version into a fresh folder and renames the binary into place,
// so that two test processes building at once both end with a whole binary.
func buildGoTool(dir, bin, name, module, version string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", module+"@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go install %s@%s: %v: %s", module, version, err, strings.TrimSpace(string(out)))
	}
	return os.Rename(filepath.Join(tmp, name), bin)
}

// unavailable skips the test, or fails it when S3 tests are required.
func unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("HEARTH_REQUIRE_S3") == "1" {
		tb.Fatalf("HEARTH_REQUIRE_S3=1 but no S3 server: %s", msg)
	}
	tb.Skipf("no S3 server, skipping: %s (go install %s@%s, or set HEARTH_REQUIRE_S3=1 to make this a failure)", msg, versitygwModule, versitygwVersion)
}

func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// freeLoopbackAddr returns a 127.0.0.1 address whose port was free a moment ago.
func freeLoopbackAddr(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func randomHex(tb testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// lockedBuffer collects a child's output, written from exec's copying goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 64<<10 {
		return len(p), nil // enough to say what went wrong
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
