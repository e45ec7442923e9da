package main

import (
	"flag"
	"io"
	"testing"

	"hearth/engine/outbound"
)

// -preview-allow-private (or HEARTH_PREVIEW_ALLOW_PRIVATE) lifts the address and port rules
// of link previews; without it they fetch public addresses on ports 80 and 443 only.
func TestPreviewAllowPrivateFlag(t *testing.T) {
	parse := func(args []string) (Config, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var c Config
		serveFlags(fs, &c)
		return c, parseFlags(fs, args)
	}
	c, err := parse(nil)
	if err != nil || c.previewPolicy().AllowPrivate || c.previewPolicy().AnyPort {
		t.Fatalf("default: %+v, %v", c.previewPolicy(), err)
	}
	c, err = parse([]string{"-preview-allow-private"})
	if err != nil || !c.previewPolicy().AllowPrivate || !c.previewPolicy().AnyPort {
		t.Fatalf("with the flag: %+v, %v", c.previewPolicy(), err)
	}
	t.Setenv("HEARTH_PREVIEW_ALLOW_PRIVATE", "true")
	if c, err = parse(nil); err != nil || !c.previewPolicy().AllowPrivate {
		t.Fatalf("from the environment: %+v, %v", c.previewPolicy(), err)
	}
	if c, _ = parse([]string{"-preview-allow-private=false"}); c.previewPolicy().AllowPrivate {
		t.Fatal("the command line does not win over the environment")
	}
	t.Setenv("HEARTH_PREVIEW_ALLOW_PRIVATE", "maybe")
	if _, err = parse(nil); err == nil {
		t.Fatal("HEARTH_PREVIEW_ALLOW_PRIVATE=maybe was accepted")
	}
	if p := (&Config{}).previewPolicy(); len(p.Exceptions) != 0 || p.AllowPrivate != outbound.Public.AllowPrivate {
		t.Fatalf("got %+v", p)
	}
}
