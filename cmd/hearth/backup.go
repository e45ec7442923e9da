package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"hearth/web"
)

// backupCommand asks the running server for a backup: written by the server to its backup
// destination (-backup-to), or, with -o, streamed here and written to a file or stdout.
func backupCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "backup [-data DIR] [-o FILE|-]")
	data := fs.String("data", "./data", "the running server's data directory (holds admin.sock)")
	out := fs.String("o", "", "write the backup to this file (- for stdout) instead of the server's backup destination")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("backup: unexpected %q; the file goes with -o", fs.Arg(0))}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client := newAdminClient(*data)
	if *out == "" {
		var res web.BackupResult
		if err := client.call(ctx, http.MethodPost, web.AdminBackupPath, &res); err != nil {
			return fmt.Errorf("backup: %v", err)
		}
		fmt.Fprintf(stdout, "Backup written to %s (%s: the database up to seq %d and %d files)\n", res.Location, size(res.Bytes), res.Seq, res.Files)
		if !res.HasFiles {
			fmt.Fprintf(stdout, "The uploaded files are not in it: they stay in the bucket %s, which needs backing up on its own.\n", res.Bucket)
		}
		if len(res.Removed) > 0 {
			fmt.Fprintf(stdout, "Removed %d older backups (-backup-keep).\n", len(res.Removed))
		}
		return nil
	}
	return streamBackup(ctx, client, *out, stdout)
}

// streamBackup writes the backup the server streams to path, or to stdout for "-". A file is
// written beside its name and renamed into place once whole, so it is never half a backup.
func streamBackup(ctx context.Context, client *adminClient, path string, stdout io.Writer) error {
	resp, err := client.do(ctx, http.MethodGet, web.AdminBackupPath)
	if err != nil {
		return fmt.Errorf("backup: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("backup: %s", readError(resp))
	}
	var w io.Writer = stdout
	var tmp *os.File
	if path != "-" {
		tmp, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
		if err != nil {
			return fmt.Errorf("backup: %v", err)
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		w = tmp
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return fmt.Errorf("backup: cut short after %s: %v", size(n), err)
	}
	if result := resp.Trailer.Get(web.BackupResultTrailer); result != "ok" {
		if result == "" {
			result = "the server did not finish it"
		}
		return fmt.Errorf("backup: failed after %s: %s", size(n), result)
	}
	if tmp == nil {
		return nil
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("backup: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("backup: %v", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("backup: %v", err)
	}
	fmt.Fprintf(stdout, "Backup written to %s (%s)\n", path, size(n))
	return nil
}

// size is a length for people.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
