package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"hearth/blob"
	"hearth/engine/backup"
)

// restoreCommand fills an empty data directory from a backup: a file, stdin ("-"), an object
// in a bucket (s3://BUCKET/backups/NAME?...) or an http(s) URL.
func restoreCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "restore [-data DIR] FILE|URL|-")
	data := fs.String("data", "./data", "the data directory to fill: missing or empty (it must not hold a database)")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	// The source may come before the flags too: hearth restore backup.tar.gz -data DIR.
	rest := fs.Args()
	if len(rest) > 1 {
		src := rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return usageError{err}
		}
		rest = append([]string{src}, fs.Args()...)
	}
	if len(rest) != 1 {
		return usageError{errors.New("restore: name one backup: hearth restore -data DIR FILE|URL (- reads stdin)")}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	src, err := openBackup(ctx, rest[0], os.Stdin)
	if err != nil {
		return fmt.Errorf("restore: %v", err)
	}
	defer src.Close()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	start := time.Now()
	res, err := backup.Restore(ctx, src, *data, log)
	if stalled := (errDownloadStalled{}); errors.As(err, &stalled) {
		// Said as it is: the backup may be fine, its server stopped sending it.
		return fmt.Errorf("restore: %v", stalled)
	}
	if err != nil {
		return fmt.Errorf("restore: %v", err)
	}
	m := res.Manifest
	fmt.Fprintf(stdout, "Restored into %s the backup of %s taken by Hearth %s: the database up to seq %d (%s) and %d files (%s), in %s.\n",
		*data, m.Created.Format(time.RFC3339), m.Version, res.Seq, size(res.DBBytes), res.Files, size(res.FileBytes), time.Since(start).Round(time.Millisecond))
	if !m.Files {
		fmt.Fprintf(stdout, "The uploaded files are not in this backup: they are in the bucket %s. Start the server with -bucket naming it (and its credentials).\n", m.Bucket)
	}
	fmt.Fprintf(stdout, "Start the server with -data %s and the same -base-url as before, so that tokens and file URLs issued before still work.\n", *data)
	return nil
}

// openBackup opens the backup named by src.
func openBackup(ctx context.Context, src string, stdin io.ReadCloser) (io.ReadCloser, error) {
	if src == "-" {
		return io.NopCloser(stdin), nil
	}
	u, err := url.Parse(src)
	if err != nil || !strings.Contains(src, "://") {
		return os.Open(src)
	}
	switch u.Scheme {
	case "file":
		return os.Open(u.Path)
	case "http", "https":
		return restoreDownload.get(ctx, src)
	}
	rc, _, err := blob.OpenObjectURL(ctx, src)
	return rc, err
}
