package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	"hearth/auth"
	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
	"hearth/web"
	"hearth/web/webtest"
)

// opsServer is a server assembled by web.Open with the operator's options the tests set
// (logs, metrics), on a loopback HTTP server.
type opsServer struct {
	*web.Server
	URL string
	log *syncBuffer
}

// syncBuffer is the log the server writes and the test reads, with the ways the tests read it.
type syncBuffer struct{ webtest.LogBuffer }

// lines returns the log lines that match every pattern.
func (b *syncBuffer) lines(patterns ...string) []string {
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		ok := l != ""
		for _, p := range patterns {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// waitLine waits (bounded) for a log line the server writes after answering.
func (b *syncBuffer) waitLine(t *testing.T, patterns ...string) string {
	t.Helper()
	deadline := time.Now().Add(webtest.Wait)
	for {
		if ls := b.lines(patterns...); len(ls) > 0 {
			return ls[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q in:\n%s", patterns, b.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func startOps(t *testing.T, version string, options ...webtest.Option) *opsServer {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	o := &opsServer{URL: "http://" + hs.Listener.Addr().String(), log: &syncBuffer{}}
	log := slog.New(slog.NewTextHandler(o.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := engine.Options{BaseURL: o.URL, Version: version}
	for _, o := range options {
		o(&opts)
	}
	s, err := web.Open(context.Background(), web.Config{
		Data:             t.TempDir(),
		Engine:           opts,
		Metrics:          true,
		IssuerHTTPClient: http.DefaultClient,
		Log:              log,
	})
	if err != nil {
		t.Fatal(err)
	}
	o.Server = s
	hs.Config = s.HTTPServer()
	hs.Start()
	t.Cleanup(func() {
		s.CloseStreams()
		hs.Close()
		s.Close()
	})
	return o
}

func (o *opsServer) client(t *testing.T, token string, opts ...connect.ClientOption) (svcv1connect.ServerServiceClient, svcv1connect.ChatServiceClient) {
	if token != "" {
		opts = append(opts, connect.WithInterceptors(auth.WithBearer(token)))
	}
	hc := webtest.HTTPClient()
	return svcv1connect.NewServerServiceClient(hc, o.URL, opts...), svcv1connect.NewChatServiceClient(hc, o.URL, opts...)
}

// TestRequestLogs: at info, one line per failed call or request and per stream opened and
// closed, with the method, the code or status, the member, the client address and the
// duration; successful ones at debug; never a token. The start line names the version, the
// data directory, the bucket and the issuers.
func TestRequestLogs(t *testing.T) {
	t.Parallel()
	o := startOps(t, "1.4.0")
	ctx := context.Background()
	token, err := o.Issuer.Mint("alice", "Alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	server, chat := o.client(t, token)
	join, err := server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	alice := join.Msg.GetMember().GetId()
	done := true
	if _, err := server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
		t.Fatal(err)
	}
	anonymous, _ := o.client(t, "")
	if _, err := anonymous.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{})); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("GetMe without a token: %v", err)
	}
	grpcAnonymous, _ := o.client(t, "", connect.WithGRPC())
	if _, err := grpcAnonymous.ListMembers(ctx, connect.NewRequest(&svcv1.ListMembersRequest{})); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("ListMembers over gRPC without a token: %v", err)
	}
	if _, err := chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general"})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("CreateChannel without a kind: %v", err)
	}
	if _, err := server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{})); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/files/0193/a.txt": 403, "/no-such-page": 404, "/healthz": 200} {
		resp, err := http.Get(o.URL + path)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("GET %s: %v %v, want %d", path, resp, err, want)
		}
		resp.Body.Close()
	}
	streamCtx, cancel := context.WithCancel(ctx)
	st, err := chat.Subscribe(streamCtx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: o.Engine.Seq()}))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Receive() {
		t.Fatal(st.Err())
	}
	cancel()
	st.Close()

	log := o.log
	defer func() {
		if t.Failed() {
			t.Log(log.String())
		}
	}()
	info := func(patterns ...string) string {
		return log.waitLine(t, append([]string{"level=INFO"}, patterns...)...)
	}
	debug := func(patterns ...string) string {
		return log.waitLine(t, append([]string{"level=DEBUG"}, patterns...)...)
	}
	info("msg=starting", "version=1.4.0", "data=/", "bucket=file:///", "issuers=["+o.URL+"]")
	info(`msg="call failed"`, "method=/svc.v1.ServerService/GetMe", "code=unauthenticated", `member=""`, "addr=127.0.0.1", "took=")
	info(`msg="call failed"`, "method=/svc.v1.ServerService/ListMembers", "code=unauthenticated", "addr=127.0.0.1")
	info(`msg="call failed"`, "method=/svc.v1.ChatService/CreateChannel", "code=invalid_argument", "member="+alice, "error=")
	info(`msg="request failed"`, `method="GET /files/{id}/{name}"`, "status=403", "addr=127.0.0.1")
	info(`msg="request failed"`, `method="GET /no-such-page"`, "status=404")
	info(`msg="stream opened"`, "method=/svc.v1.ChatService/Subscribe", "member="+alice, "addr=127.0.0.1")
	info(`msg="stream closed"`, "method=/svc.v1.ChatService/Subscribe", "ended=client_closed", "member="+alice, "took=")
	debug("msg=call", "method=/svc.v1.ServerService/GetMe", "code=ok", "member="+alice)
	debug("msg=request", `method="GET /healthz"`, "status=200")
	if ls := log.lines("level=INFO", "method=/svc.v1.ServerService/GetMe", "code=ok"); len(ls) > 0 {
		t.Fatalf("a successful call logged at info: %q", ls)
	}
	if strings.Contains(log.String(), token) {
		t.Fatal("a token reached the log")
	}
}

// TestMetricsCountBuildAndStreamEnds: hearth_build_info names the version and its track, and
// Subscribe streams are counted by how they ended.
func TestMetricsCountBuildAndStreamEnds(t *testing.T) {
	t.Parallel()
	o := startOps(t, "1.5.0-beta.2")
	ctx := context.Background()
	token, _ := o.Issuer.Mint("alice", "", time.Hour)
	server, chat := o.client(t, token)
	if _, err := server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	open := func() *connect.ServerStreamForClient[svcv1.Event] {
		st, err := chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: o.Engine.Seq()}))
		if err != nil || !st.Receive() {
			t.Fatalf("subscribe: %v %v", err, st.Err())
		}
		return st
	}
	// A stream after a seq the log does not have yet gets resync.
	resync, err := chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: o.Engine.Seq() + 100}))
	if err != nil {
		t.Fatal(err)
	}
	for resync.Receive() {
	}
	closed := open()
	closed.Close()
	o.log.waitLine(t, `msg="stream closed"`, "ended=client_closed")
	atShutdown := open()
	o.CloseStreams()
	for atShutdown.Receive() {
	}
	o.log.waitLine(t, `msg="stream closed"`, "ended=shutdown")

	rec := httptest.NewRecorder()
	o.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	text := rec.Body.String()
	for _, want := range []string{
		`hearth_build_info{track="beta",version="1.5.0-beta.2"} 1`,
		`hearth_subscribe_streams_ended_total{reason="client_closed"} 1`,
		`hearth_subscribe_streams_ended_total{reason="shutdown"} 1`,
		`hearth_subscribe_streams_ended_total{reason="resync"} 1`,
		`hearth_subscribe_streams_ended_total{reason="error"} 0`,
		`hearth_backups_total{result="ok"} 0`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, grep(text, "hearth_build_info|hearth_subscribe_streams_ended|hearth_backups_total"))
		}
	}
}

// TestMetricsCountStreamsEndedByTheCapAndByLeaving: the two ways a stream ends that the
// server decides for a member, each counted under its own reason: the oldest of 17 streams
// (stream_cap, and its client is told resource_exhausted) and a stream of a member who left
// (member_left).
func TestMetricsCountStreamsEndedByTheCapAndByLeaving(t *testing.T) {
	t.Parallel()
	o := startOps(t, "1.5.0")
	ctx := context.Background()
	var chats []svcv1connect.ChatServiceClient
	for _, sub := range []string{"alice", "bob"} {
		token, _ := o.Issuer.Mint(sub, "", time.Hour)
		server, chat := o.client(t, token)
		if _, err := server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{})); err != nil {
			t.Fatal(err)
		}
		if sub == "alice" {
			done := true
			if _, err := server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
				t.Fatal(err)
			}
		}
		chats = append(chats, chat)
	}
	open := func(chat svcv1connect.ChatServiceClient) *connect.ServerStreamForClient[svcv1.Event] {
		st, err := chat.Subscribe(ctx, connect.NewRequest(&svcv1.SubscribeRequest{AfterSeq: o.Engine.Seq()}))
		if err != nil || !st.Receive() {
			t.Fatalf("subscribe: %v %v", err, st.Err())
		}
		return st
	}
	var alices []*connect.ServerStreamForClient[svcv1.Event]
	for range engine.MaxStreamsPerMember + 1 {
		alices = append(alices, open(chats[0]))
	}
	for alices[0].Receive() {
	}
	if code := connect.CodeOf(alices[0].Err()); code != connect.CodeResourceExhausted {
		t.Fatalf("the oldest of alice's streams ended with %v", alices[0].Err())
	}
	bobs := open(chats[1])
	token, _ := o.Issuer.Mint("bob", "", time.Hour)
	server, _ := o.client(t, token)
	if _, err := server.LeaveCommunity(ctx, connect.NewRequest(&svcv1.LeaveCommunityRequest{})); err != nil {
		t.Fatal(err)
	}
	for bobs.Receive() {
	}
	o.log.waitLine(t, `msg="stream closed"`, "ended=stream_cap")
	o.log.waitLine(t, `msg="stream closed"`, "ended=member_left")

	o.waitMetrics(t,
		`hearth_subscribe_streams_ended_total{reason="stream_cap"} 1`,
		`hearth_subscribe_streams_ended_total{reason="member_left"} 1`,
		`hearth_subscribe_streams_ended_total{reason="error"} 0`,
	)
}

func grep(text, pattern string) string {
	re := regexp.MustCompile(pattern)
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestHealthAndReflectionNeedNoToken: /healthz, the gRPC health service and gRPC reflection
// answer without a token; health fails once the server cannot serve.
func TestHealthAndReflectionNeedNoToken(t *testing.T) {
	t.Parallel()
	o := startOps(t, "")
	ctx := context.Background()
	health := grpchealth.NewClient(webtest.HTTPClient(), o.URL, connect.WithGRPC())
	for _, service := range []string{"", svcv1connect.ChatServiceName, svcv1connect.BotServiceName} {
		res, err := health.Check(ctx, &grpchealth.CheckRequest{Service: service})
		if err != nil || res.Status != grpchealth.StatusServing {
			t.Fatalf("health of %q: %v %v", service, res, err)
		}
	}
	if _, err := health.Check(ctx, &grpchealth.CheckRequest{Service: "svc.v1.NoSuchService"}); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("health of an unknown service: %v", err)
	}

	stream := grpcreflect.NewClient(webtest.HTTPClient(), o.URL, connect.WithGRPC()).NewStream(ctx)
	defer stream.Close()
	names, err := stream.ListServices()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(names))
	for i, n := range names {
		got[i] = string(n)
	}
	slices.Sort(got)
	if want := []string{"svc.v1.BotService", "svc.v1.ChatService", "svc.v1.NotificationService", "svc.v1.ServerService", "svc.v1.VoiceService"}; !slices.Equal(got, want) {
		t.Fatalf("reflection lists %v, want %v", got, want)
	}
	files, err := stream.FileContainingSymbol("svc.v1.ChatService")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range files {
		for _, s := range f.GetService() {
			for _, m := range s.GetMethod() {
				found = found || (s.GetName() == "ChatService" && m.GetName() == "Subscribe" && m.GetServerStreaming())
			}
		}
	}
	if !found {
		t.Fatal("reflection does not describe ChatService.Subscribe")
	}

	resp, err := http.Get(o.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("/healthz: %d %q", resp.StatusCode, body)
	}
	o.Close()
	resp, err = http.Get(o.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "shutting down") {
		t.Fatalf("/healthz of a closed server: %d %q", resp.StatusCode, body)
	}
	res, err := health.Check(ctx, &grpchealth.CheckRequest{})
	if err != nil || res.Status != grpchealth.StatusNotServing {
		t.Fatalf("gRPC health of a closed server: %v %v", res, err)
	}
}
