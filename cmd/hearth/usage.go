package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// commands are the subcommands `hearth -h` lists, in its order.
var commands = []struct{ name, what string }{
	{"serve", "run the server (the default when no command is given)"},
	{"token", "print a login token from the local issuer"},
	{"login-link", "print a URL that signs a person in to the browser client"},
	{"reset-link", "print a link that sets a new password for an account (the owner's too)"},
	{"backup", "take a backup of the running server (asks it over <data>/admin.sock)"},
	{"restore", "fill an empty data directory from a backup: hearth restore -data DIR FILE|URL|-"},
	{"import", "import a Discord (DiscordChatExporter JSON) or Slack export into the running server: hearth import discord|slack -data DIR PATH..."},
	{"healthcheck", "exit 0 when the running server answers on its port (for container health checks)"},
	{"version", "print the version"},
}

// printUsage is `hearth -h`: the commands, then the server's flags.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: hearth [command] [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.what)
	}
	fmt.Fprintf(w, "\n`hearth COMMAND -h` lists a command's flags. Every flag can also be set as HEARTH_<NAME>\nin the environment (-base-url is HEARTH_BASE_URL); the command line wins.\n\nFlags of serve:\n")
	fs.PrintDefaults()
}

// commandUsage is `hearth COMMAND -h`.
func commandUsage(fs *flag.FlagSet, synopsis string) func() {
	return func() {
		fmt.Fprintf(fs.Output(), "Usage: hearth %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
}

// selfCommand is how an operator runs this binary again, for the hints it prints: `go run
// ./cmd/hearth` when `go run` built it (into a go-build temporary folder), else as it was
// started (`hearth` found on the PATH, `./hearth`, `/usr/local/bin/hearth`).
func selfCommand() string {
	exe, _ := os.Executable()
	return commandFor(os.Args[0], exe)
}

func commandFor(arg0, exe string) string {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return "go run ./cmd/hearth"
		}
	}
	if arg0 == "" {
		return "hearth"
	}
	if strings.ContainsAny(arg0, ` '"`) {
		return "'" + strings.ReplaceAll(arg0, "'", `'\''`) + "'"
	}
	return arg0
}
