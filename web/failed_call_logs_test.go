package web_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

// startLogged is a test server whose log, down to debug, is kept.
func startLogged(t *testing.T) (*webtest.Server, *syncBuffer) {
	t.Helper()
	buf := &syncBuffer{}
	s := webtest.StartConfig(t, func(c *web.Config) {
		c.Log = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(buf.String())
		}
	})
	return s, buf
}

// TestCallsFailedBeforeTheInterceptorsAreLoggedAsFailed: a call Connect refuses before any
// interceptor runs (a message over the 1 MiB limit, a body that does not decode) is one line
// at info with its procedure, its code and its message, in each of the three protocols. A
// gRPC or gRPC-Web call's HTTP status is 200, so such a call was logged at debug as a success,
// and a Connect one under its service's route with no code or message.
func TestCallsFailedBeforeTheInterceptorsAreLoggedAsFailed(t *testing.T) {
	t.Parallel()
	s, log := startLogged(t)
	alice := s.Join("alice")
	big := strings.Repeat("a", 2<<20)
	failed := []string{"level=INFO", `msg="request failed"`, "method=/svc.v1.ServerService/UpdateProfile",
		"code=resource_exhausted", "member=" + alice.Member.GetId(), "addr=127.0.0.1", "took=", `error="message size`, `is larger than configured max 1048576"`}
	for i, p := range []struct {
		name string
		opt  connect.ClientOption
	}{{"grpc", connect.WithGRPC()}, {"grpc-web", connect.WithGRPCWeb()}, {"connect", connect.WithProtoJSON()}} {
		c := s.Client(alice.Token, p.opt, connect.WithSendMaxBytes(0))
		_, err := c.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{Bio: &big}))
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("%s: a 2 MiB call: %v", p.name, err)
		}
		waitFor(t, p.name+": the failed call's line", func() bool { return len(log.lines(failed...)) == i+1 })
	}
	if ls := log.lines("UpdateProfile", "level=DEBUG"); len(ls) > 0 {
		t.Errorf("a refused call logged as a success: %q", ls)
	}

	// A body that does not decode.
	res := rawPost(t, s.URL+"/svc.v1.ChatService/SendMessage", "application/json", "{not json", alice.Token)
	if res != http.StatusBadRequest {
		t.Fatalf("a malformed body: %d", res)
	}
	log.waitLine(t, "level=INFO", `msg="request failed"`, "method=/svc.v1.ChatService/SendMessage", "status=400", "code=invalid_argument", "member="+alice.Member.GetId(), "error=")
	// An unknown procedure of a known service, with a path of 5,000 characters: named, cut short.
	if res := rawPost(t, s.URL+"/svc.v1.ChatService/"+strings.Repeat("x", 5000), "application/json", "{}", alice.Token); res != http.StatusNotFound {
		t.Fatalf("an unknown procedure: %d", res)
	}
	line := log.waitLine(t, "level=INFO", `msg="request failed"`, "method=/svc.v1.ChatService/xxx", "status=404")
	if len(line) > 600 {
		t.Errorf("an unknown procedure's line holds its whole path: %d characters", len(line))
	}
}

// TestFailedRequestsLogTheirMessage: a plain endpoint's failure is logged with the message the
// client got (the line had the status alone).
func TestFailedRequestsLogTheirMessage(t *testing.T) {
	t.Parallel()
	s, log := startLogged(t)
	alice := s.Join("alice")
	if res := postBody(t, s, "", multipartType[len("Content-Type: "):], strings.NewReader("x")); res.status != http.StatusUnauthorized {
		t.Fatalf("an upload without a token: %d %s", res.status, res.err)
	}
	log.waitLine(t, "level=INFO", `msg="request failed"`, `method="POST /upload"`, "status=401", `error="no Authorization header`)

	// The bucket's folder for files is a file now: storing an upload fails inside the server.
	files := filepath.Join(s.Dir, "files", "files")
	if err := os.RemoveAll(files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := postUpload(t, s, alice.Token, part{form: "file", file: "a.txt", body: strings.NewReader("hello")})
	if res.status != http.StatusInternalServerError || res.err != "the file could not be stored" {
		t.Fatalf("an upload the bucket cannot store: %d %q", res.status, res.err)
	}
	log.waitLine(t, "level=INFO", `msg="request failed"`, `method="POST /upload"`, "status=500", "member="+alice.Member.GetId(), `error="the file could not be stored"`)
}

// TestFailedToolCallsAreLoggedAsFailed: gRPC's own services (health, reflection) are logged as
// calls by the log's interceptor, like ours: a failed one is a line at info with its procedure,
// its code and its message, in each protocol, a stream that failed after a message went out
// too. Such calls were once logged at debug as successes (gRPC, gRPC-Web) or with no code or
// message (Connect).
func TestFailedToolCallsAreLoggedAsFailed(t *testing.T) {
	t.Parallel()
	s, log := startLogged(t)
	const health, reflection = "method=/grpc.health.v1.Health/Check", "method=/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
	longSymbol := "svc.v1." + strings.Repeat("x", 70<<10)
	for i, p := range []struct {
		name string
		opt  connect.ClientOption
	}{{"grpc", connect.WithGRPC()}, {"grpc-web", connect.WithGRPCWeb()}, {"connect", connect.WithProtoJSON()}} {
		n := i + 1
		hc := grpchealth.NewClient(webtest.HTTPClient(), s.URL, p.opt)
		if res, err := hc.Check(ctx, &grpchealth.CheckRequest{}); err != nil || res.Status != grpchealth.StatusServing {
			t.Fatalf("%s: health: %v %v", p.name, res, err)
		}
		waitFor(t, p.name+": the health check's line", func() bool {
			return len(log.lines("level=DEBUG", "msg=call", health, "code=ok", "addr=127.0.0.1")) == n
		})
		if _, err := hc.Check(ctx, &grpchealth.CheckRequest{Service: "svc.v1.Nope"}); connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("%s: health of an unknown service: %v", p.name, err)
		}
		waitFor(t, p.name+": the failed health check's line", func() bool {
			return len(log.lines("level=INFO", `msg="call failed"`, health, "code=not_found", `error="unknown service svc.v1.Nope"`, "addr=127.0.0.1")) == n
		})

		// A reflection stream that answered once, then got a request over its 64 KiB limit.
		stream := grpcreflect.NewClient(webtest.HTTPClient(), s.URL, p.opt).NewStream(ctx)
		if _, err := stream.ListServices(); err != nil {
			t.Fatalf("%s: reflection: %v", p.name, err)
		}
		_, err := stream.FileContainingSymbol(protoreflect.FullName(longSymbol))
		stream.Close()
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("%s: a reflection request of 70 KiB: %v", p.name, err)
		}
		waitFor(t, p.name+": the failed reflection stream's line", func() bool {
			return len(log.lines("level=INFO", `msg="call failed"`, reflection, "code=resource_exhausted", "is larger than configured max 65536")) == n
		})
	}
	if ls := log.lines("grpc.", "level=DEBUG", "code=ok"); len(ls) != 3 {
		t.Errorf("want the three successful health checks at debug, got %q", ls)
	}
}

// rawPost posts body with a Bearer token and returns the status.
func rawPost(t *testing.T, url, contentType, body, token string) int {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestMetricsCountToolCallsByTheirCode: gRPC's own services are counted as calls, by
// procedure and code, like ours. They were counted as routes by their HTTP status, so a
// failed health check was a 200.
func TestMetricsCountToolCallsByTheirCode(t *testing.T) {
	t.Parallel()
	o := startOps(t, "")
	hc := grpchealth.NewClient(webtest.HTTPClient(), o.URL, connect.WithGRPC())
	if _, err := hc.Check(ctx, &grpchealth.CheckRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := hc.Check(ctx, &grpchealth.CheckRequest{Service: "svc.v1.Nope"}); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("health of an unknown service: %v", err)
	}
	stream := grpcreflect.NewClient(webtest.HTTPClient(), o.URL, connect.WithGRPC()).NewStream(ctx)
	if _, err := stream.ListServices(); err != nil {
		t.Fatal(err)
	}
	stream.Close()
	o.waitMetrics(t,
		`hearth_rpc_requests_total{code="ok",procedure="/grpc.health.v1.Health/Check"} 1`,
		`hearth_rpc_requests_total{code="not_found",procedure="/grpc.health.v1.Health/Check"} 1`,
		`hearth_rpc_requests_total{code="ok",procedure="/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"} 1`,
	)
	rec := httptest.NewRecorder()
	o.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if routes := grep(rec.Body.String(), `hearth_http_requests_total\{route="/grpc`); routes != "" {
		t.Errorf("tool calls counted as routes too:\n%s", routes)
	}
}

// TestMetricsCountCallsRefusedBeforeTheInterceptors: a call Connect refuses before any
// interceptor runs (a message over the limit, a body that does not decode, a procedure no
// service has) is counted by its code, under its procedure or, for a path no service serves,
// "unknown" (a label per made-up path would grow without end). Such calls were not counted at
// all. A call the interceptors counted is not counted twice, and a preflight is no call.
func TestMetricsCountCallsRefusedBeforeTheInterceptors(t *testing.T) {
	t.Parallel()
	o := startOps(t, "")
	token, err := o.Issuer.Mint("alice", "Alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	server, _ := o.client(t, token)
	if _, err := server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a", 2<<20)
	for _, opt := range []connect.ClientOption{connect.WithGRPC(), connect.WithProtoJSON()} {
		s, _ := o.client(t, token, opt, connect.WithSendMaxBytes(0))
		if _, err := s.UpdateProfile(ctx, connect.NewRequest(&svcv1.UpdateProfileRequest{Bio: &big})); connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("a 2 MiB call: %v", err)
		}
	}
	if res := rawPost(t, o.URL+"/svc.v1.ChatService/SendMessage", "application/json", "{not json", token); res != http.StatusBadRequest {
		t.Fatalf("a malformed body: %d", res)
	}
	for i := range 3 {
		path := "/svc.v1.ChatService/Nope" + strconv.Itoa(i)
		if res := rawPost(t, o.URL+path, "application/json", "{}", token); res != http.StatusNotFound {
			t.Fatalf("an unknown procedure: %d", res)
		}
	}
	if _, err := server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{})); err != nil {
		t.Fatal(err)
	}
	// A browser's preflight of a call is no call: GetMe stays counted once.
	if res := preflight(t, o.URL, "/svc.v1.ServerService/GetMe", "https://elsewhere.example", "POST", ""); res.StatusCode != http.StatusNoContent {
		t.Fatalf("a preflight: %d", res.StatusCode)
	}
	o.waitMetrics(t,
		`hearth_rpc_requests_total{code="resource_exhausted",procedure="/svc.v1.ServerService/UpdateProfile"} 2`,
		`hearth_rpc_requests_total{code="invalid_argument",procedure="/svc.v1.ChatService/SendMessage"} 1`,
		`hearth_rpc_requests_total{code="unimplemented",procedure="unknown"} 3`,
		`hearth_rpc_requests_total{code="ok",procedure="/svc.v1.ServerService/GetMe"} 1`,
		`hearth_rpc_requests_total{code="ok",procedure="/svc.v1.ServerService/Join"} 1`,
	)
	rec := httptest.NewRecorder()
	o.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if nope := grep(rec.Body.String(), `Nope`); nope != "" {
		t.Errorf("a made-up procedure is a label:\n%s", nope)
	}
}
