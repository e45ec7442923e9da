package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"hearth/cmd/hearth/importer"
)

// importCommand is `hearth import discord|slack`: it reads another service's export and sends
// it to the running server over <data>/admin.sock, with a progress bar on stderr and a summary
// on stdout. Running it again adds only what is missing.
func importCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "discord" && args[0] != "slack") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprintln(stderr, "Usage: hearth import discord [-data DIR] [-media DIR] PATH...\n       hearth import slack [-data DIR] EXPORT.zip")
			return flag.ErrHelp
		}
		return usageError{errors.New("import: say what to import: `hearth import discord -data DIR PATH...` or `hearth import slack -data DIR EXPORT.zip`")}
	}
	kind := args[0]
	fs := flag.NewFlagSet("import "+kind, flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "./data", "the running server's data directory (holds admin.sock)")
	var media *string
	if kind == "discord" {
		fs.Usage = commandUsage(fs, "import discord [-data DIR] [-media DIR] PATH...   (DiscordChatExporter JSON files, or folders of them)")
		media = fs.String("media", "", "a folder of the export's media outside the export's own folder (DiscordChatExporter's --media-dir)")
	} else {
		fs.Usage = commandUsage(fs, "import slack [-data DIR] EXPORT.zip   (Slack's workspace export)")
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	switch {
	case fs.NArg() == 0:
		return usageError{fmt.Errorf("import %s: name the export to import", kind)}
	case kind == "slack" && fs.NArg() > 1:
		return usageError{fmt.Errorf("import slack: one export at a time; got %d", fs.NArg())}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client := importer.NewClient(*data)
	var sum *importer.Summary
	var err error
	if kind == "discord" {
		sum, err = importer.ImportDiscord(ctx, client, fs.Args(), importer.DiscordOptions{MediaDir: *media}, stderr)
	} else {
		sum, err = importer.ImportSlack(ctx, client, fs.Arg(0), stderr)
	}
	if sum != nil {
		sum.Print(stdout)
	}
	if err != nil {
		if sum != nil && sum.Added > 0 {
			return fmt.Errorf("import %s: %v (what was imported stays; run the same command again to finish)", kind, err)
		}
		return fmt.Errorf("import %s: %v", kind, err)
	}
	return nil
}
