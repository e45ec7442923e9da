// Command hearth is the Hearth community chat server.
//
//	hearth [serve] [flags]     run the server (the default)
//	hearth token [flags]       print a login token from the local issuer
//	hearth login-link [flags]  print a URL that signs a person in to the browser client
//	hearth reset-link [flags]  print a password reset link for an account
//	hearth backup [flags]      take a backup of the running server
//	hearth restore [flags] SRC fill an empty data directory from a backup
//	hearth import discord|slack [flags] PATH  import another service's export into the running server
//	hearth healthcheck         exit 0 when the running server answers
//	hearth version             print the version
//
// Every flag can also be set with HEARTH_<NAME> in the environment (-base-url reads
// HEARTH_BASE_URL). `hearth <command> -h` lists a command's flags.
//
// Hearth is free software under the Apache License, Version 2.0 (the LICENSE file at the root
// of the repository): anyone may run, share and change it, under that license's terms.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a command and returns the exit code (exitCode).
func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		err = serve(args, stdout, stderr)
	case "token":
		err = token(args, stdout, stderr)
	case "login-link":
		err = loginLink(args, stdout, stderr)
	case "reset-link":
		err = resetLinkCommand(args, stdout, stderr)
	case "backup":
		err = backupCommand(args, stdout, stderr)
	case "restore":
		err = restoreCommand(args, stdout, stderr)
	case "import":
		err = importCommand(args, stdout, stderr)
	case "healthcheck":
		err = healthcheck(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version)
	case "help":
		err = serve([]string{"-h"}, stdout, stderr)
	default:
		err = usageError{fmt.Errorf("unknown command %q: `hearth -h` lists the commands", cmd)}
	}
	return exitCode(err, stderr)
}

// exitCode prints a command's error and gives its exit code: 0 for none, 2 for bad flags or
// configuration, an exitError's own code (exitEngineStopped), and 1 for any other.
func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	var xe exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "hearth:", ue.err)
		return 2
	case errors.As(err, &xe):
		fmt.Fprintln(stderr, "hearth:", xe.err)
		return xe.code
	default:
		fmt.Fprintln(stderr, "hearth:", err)
		return 1
	}
}

// usageError is a mistake in flags or configuration: one line, exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
