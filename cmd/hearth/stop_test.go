package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// Regression tests for the stop: one slow client used to hold a SIGTERM for 10 s and make the
// server exit 1, and an upload cut by SIGTERM or kill -9 left an 8 MB files/<id>.<hex>.tmp
// behind until a sweep a day later.

const testBase = "http://chat.test"

// member is a person logged in to a running binary.
type member struct {
	token  string
	chat   svcv1connect.ChatServiceClient
	server svcv1connect.ServerServiceClient
}

// loginAs mints a token for sub with the server's own issuer key and returns clients that send
// it; with a forwardedFor, every call says it comes from that address (the server must trust
// the loopback proxy, -trusted-proxy 127.0.0.1/32, to believe it).
func loginAs(t *testing.T, data, url, sub, forwardedFor string) *member {
	t.Helper()
	iss, err := auth.LoadOrCreateIssuer(data, testBase, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := iss.Mint(sub, "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	opts := []connect.ClientOption{connect.WithInterceptors(auth.WithBearer(tok))}
	if forwardedFor != "" {
		opts = append(opts, connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
			return func(ctx context.Context, r connect.AnyRequest) (connect.AnyResponse, error) {
				r.Header().Set("X-Forwarded-For", forwardedFor)
				return next(ctx, r)
			}
		})))
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	return &member{
		token:  tok,
		chat:   svcv1connect.NewChatServiceClient(hc, url, opts...),
		server: svcv1connect.NewServerServiceClient(hc, url, opts...),
	}
}

// join logs sub in and joins; the first to join becomes the owner and finishes the setup.
func join(t *testing.T, data, url, sub, forwardedFor string) *member {
	t.Helper()
	m := loginAs(t, data, url, sub, forwardedFor)
	res, err := m.server.Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatalf("join %s: %v", sub, err)
	}
	if res.Msg.GetMember().GetRole() == svcv1.MemberRole_MEMBER_ROLE_OWNER {
		done := true
		if _, err := m.server.UpdateServerSettings(context.Background(), connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// rawRequest opens a connection and writes a POST's head; the test writes the body as it likes.
func rawRequest(t *testing.T, url, path string, contentLength int, header ...string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: chat.test\r\nContent-Length: %d\r\n%s\r\n", path, contentLength, strings.Join(append(header, ""), "\r\n"))
	return conn
}

const testBoundary = "hearth-stop-test"

// startUpload begins an upload of a 1 MB file and sends 300 KB of it, more than the sandbox
// reads first, so that the file is being written; it waits until its temporary file exists.
func startUpload(t *testing.T, url, data, token string) net.Conn {
	t.Helper()
	head := "--" + testBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n"
	conn := rawRequest(t, url, "/upload", 1_000_000, "Authorization: Bearer "+token, "Content-Type: multipart/form-data; boundary="+testBoundary)
	if _, err := conn.Write(append([]byte(head), make([]byte, 300<<10)...)); err != nil {
		t.Fatal(err)
	}
	// The file is written once the sandbox has looked at its head, and a server's first look
	// compiles the sandbox's guest (its cache is in the data folder, new for each test): 20 s
	// were once not enough for that on a loaded machine.
	deadline := time.Now().Add(60 * time.Second)
	for len(partialFiles(t, data)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the upload's temporary file did not appear")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return conn
}

// partialFiles lists the temporary files of half-written objects in the file bucket.
func partialFiles(t *testing.T, data string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(data, "files"), func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".tmp") {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestSlowClientsDoNotHoldUpAStop: with every kind of slow client at once (an upload that
// stalls, a call whose body trickles, a download nobody reads, an idle keep-alive connection,
// an open stream), SIGTERM still stops the server with exit code 0, within its 10 s: it
// refuses new connections at once, closes the idle one, ends the stream, commits what it
// acknowledged and removes the upload's temporary file.
func TestSlowClientsDoNotHoldUpAStop(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	data := t.TempDir()
	srv, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase)
	alice := join(t, data, url, "alice", "")
	ctx := context.Background()
	ch, err := alice.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	chID := ch.Msg.GetChannel().GetId()

	// A download nobody reads: 16 MB, more than the sockets' buffers hold.
	big := uploadFile(t, url, alice.token, bytes.Repeat([]byte("x"), 16<<20))
	download, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer download.Close()
	fmt.Fprintf(download, "GET %s HTTP/1.1\r\nHost: chat.test\r\n\r\n", big)

	stream, err := alice.chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{}))
	if err != nil || !stream.Receive() {
		t.Fatalf("subscribe: %v %v", err, stream.Err())
	}
	startUpload(t, url, data, alice.token)
	body := fmt.Sprintf(`{"channelId":%q,"text":"never finished"}`, chID)
	trickle := rawRequest(t, url, "/svc.v1.ChatService/SendMessage", len(body), "Authorization: Bearer "+alice.token, "Content-Type: application/json")
	trickle.Write([]byte(body[:10]))
	idle, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprintf(idle, "GET /healthz HTTP/1.1\r\nHost: chat.test\r\n\r\n")
	if res, err := http.ReadResponse(bufio.NewReader(idle), nil); err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz on the idle connection: %v %v", res, err)
	}
	sent, err := alice.chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: chID, Text: "acknowledged"}))
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// While the slow requests drain, new connections are refused and the idle one is closed.
	refused := false
	for !refused {
		select {
		case <-srv.exited:
			t.Fatal("the server exited before it was seen refusing a connection")
		default:
		}
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second)
		if refused = err != nil; !refused {
			conn.Close()
			time.Sleep(20 * time.Millisecond)
		}
	}
	idle.SetReadDeadline(time.Now().Add(20 * time.Second))
	if n, err := idle.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("the idle connection stays open while the server stops: %d %v", n, err)
	}
	if err := srv.wait(20 * time.Second); err != nil {
		t.Fatalf("after SIGTERM: %v (exit code 0 wanted)\n%s", err, srv.stderr())
	}
	t.Logf("stopped %s after SIGTERM", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(srv.stderr(), "stopped") {
		t.Fatalf("the log does not say it stopped:\n%s", srv.stderr())
	}
	for stream.Receive() {
	}
	if left := partialFiles(t, data); len(left) > 0 {
		t.Fatalf("the stop left %v", left)
	}

	_, url = startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase)
	alice = loginAs(t, data, url, "alice", "")
	list, err := alice.chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: chID}))
	if err != nil {
		t.Fatal(err)
	}
	if msgs := list.Msg.GetMessages(); len(msgs) != 1 || msgs[0].GetId() != sent.Msg.GetMessage().GetId() {
		t.Fatalf("after the restart the channel holds %v, want the acknowledged message only", msgs)
	}
}

// TestH2CConnectionsDoNotHoldUpAStop: cleartext HTTP/2 connections, one with a stream open and
// one left idle after a call, end with a stop: the stream ends first, both connections are
// told to go away and close, and the server stops without having to cut anything off.
func TestH2CConnectionsDoNotHoldUpAStop(t *testing.T) {
	bin := hearthBinary(t)
	data := t.TempDir()
	srv, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase)
	token := join(t, data, url, "alice", "").token
	h2c := func() svcv1connect.ChatServiceClient {
		tr := &http.Transport{}
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetUnencryptedHTTP2(true)
		return svcv1connect.NewChatServiceClient(&http.Client{Transport: tr}, url, connect.WithInterceptors(auth.WithBearer(token)))
	}
	ctx := context.Background()
	if _, err := h2c().CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})); err != nil {
		t.Fatal(err)
	}
	stream, err := h2c().Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{}))
	if err != nil || !stream.Receive() {
		t.Fatalf("subscribe: %v %v", err, stream.Err())
	}
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for stream.Receive() {
	}
	if err := srv.wait(20 * time.Second); err != nil {
		t.Fatalf("after SIGTERM: %v (exit code 0 wanted)\n%s", err, srv.stderr())
	}
	if log := srv.stderr(); !strings.Contains(log, "stopped") || strings.Contains(log, "closing the connections") {
		t.Fatalf("the stop did not drain cleanly:\n%s", log)
	}
}

// uploadFile uploads data and returns its signed URL.
func uploadFile(t *testing.T, url, token string, data []byte) string {
	t.Helper()
	var body bytes.Buffer
	fmt.Fprintf(&body, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n", testBoundary)
	body.Write(data)
	fmt.Fprintf(&body, "\r\n--%s--\r\n", testBoundary)
	r, _ := http.NewRequest(http.MethodPost, url+"/upload", &body)
	r.Header.Set("Content-Type", "multipart/form-data; boundary="+testBoundary)
	r.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("upload: %d %s", res.StatusCode, b)
	}
	i := bytes.Index(b, []byte(`"url":"`))
	if i < 0 {
		t.Fatalf("upload answered %s", b)
	}
	u := string(b[i+7:])
	return strings.ReplaceAll(u[:strings.IndexByte(u, '"')], `\u0026`, "&")
}

// TestAnUploadCutByKillLeavesNoTemporaryFile: kill -9 in the middle of an upload leaves its
// temporary file on disk (nothing can remove it then); the next start removes it.
func TestAnUploadCutByKillLeavesNoTemporaryFile(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	data := t.TempDir()
	srv, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase)
	alice := join(t, data, url, "alice", "")
	startUpload(t, url, data, alice.token)
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.wait(20 * time.Second)
	left := partialFiles(t, data)
	if len(left) == 0 {
		t.Fatal("kill -9 left no temporary file: the test tests nothing")
	}
	srv, _ = startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", testBase)
	if still := partialFiles(t, data); len(still) > 0 {
		t.Fatalf("after a restart the temporary files of a killed upload are still there: %v", still)
	}
	srv.waitStderr(t, "removed the partly written files of an earlier run")
}
