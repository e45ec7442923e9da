package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"hearth/engine/voice"
	"hearth/web"
	"hearth/web/webtest"
)

// TestTheToolMeasuresAServer: a short run against a server with voice (in this process, so
// -pid is the test's own) joins its people, hears every talker and reports what it measured.
func TestTheToolMeasuresAServer(t *testing.T) {
	s := webtest.StartConfig(t, func(c *web.Config) { c.Voice = voice.Options{Addr: "127.0.0.1:0"} })
	var out, errs bytes.Buffer
	code := cli([]string{"-url", s.URL, "-data", s.Dir, "-base-url", s.URL, "-pid", strconv.Itoa(os.Getpid()),
		"-people", "3", "-talking", "2", "-warmup", "0s", "-duration", "1s"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit code %d: %s%s", code, out.String(), errs.String())
	}
	for _, want := range []string{"participants 3, talking 2, screens 0", "server CPU: ", "a participant", "of the "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
}

// TestTheToolTalksToLoopbackOnly: any other server is refused before anything is sent.
func TestTheToolTalksToLoopbackOnly(t *testing.T) {
	var out, errs bytes.Buffer
	if code := cli([]string{"-url", "http://192.0.2.1:8080", "-pid", "1"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "only loopback addresses") {
		t.Fatalf("exit code %d: %s", code, errs.String())
	}
}
