// Command wasmbuild builds a Go package for the sandbox (GOOS=wasip1 GOARCH=wasm) so that
// the same sources always give the same bytes: the built .wasm files are committed, and CI
// runs go generate and fails if they change.
//
//	go run ./internal/wasmbuild -o guest.wasm ./guest
//
// Everything that shapes the output is fixed here rather than taken from the environment:
// the flags (no paths, no VCS stamp, no build id, no symbol tables), the target, and the
// Go toolchain, pinned because each Go release compiles the runtime differently. A machine
// with another Go release gets the pinned one through the module proxy, as the go command
// does for any GOTOOLCHAIN setting.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// toolchain is the Go release the committed .wasm files are built with. Changing it
// changes their bytes: rebuild them all (go generate ./engine/sandbox) in the same commit.
const toolchain = "go1.26.8"

func main() {
	out := flag.String("o", "", "output `file`")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmbuild -o file.wasm ./package")
		os.Exit(2)
	}
	if err := build(*out, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "wasmbuild:", err)
		os.Exit(1)
	}
}

func build(out, pkg string) error {
	cmd := exec.Command("go", "build",
		"-trimpath",
		"-buildvcs=false",
		"-ldflags=-s -w -buildid=",
		"-o", out,
		pkg)
	cmd.Env = append(cleanEnv(os.Environ()), fixedEnv...)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// fixedEnv is the build's environment over the inherited one. An empty variable does not
// override the go command's user config file (go env -w), so GOENV=off ignores that file
// instead: a developer's GOFLAGS=-race or GOEXPERIMENT there cannot reach the committed
// bytes. Only the toolchain's own go.env and the variables below remain.
var fixedEnv = []string{
	"GOENV=off",
	"GOOS=wasip1",
	"GOARCH=wasm",
	"GOWASM=",
	"GOEXPERIMENT=",
	"GOFLAGS=",
	"CGO_ENABLED=0",
	"GOTOOLCHAIN=" + toolchain,
}

// cleanEnv drops the inherited settings of the variables in fixedEnv.
func cleanEnv(env []string) []string {
	var kept []string
next:
	for _, kv := range env {
		for _, f := range fixedEnv {
			if strings.HasPrefix(kv, f[:strings.IndexByte(f, '=')+1]) {
				continue next
			}
		}
		kept = append(kept, kv)
	}
	return kept
}
