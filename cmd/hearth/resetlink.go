package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"hearth/auth"
	"hearth/engine/store"
	"hearth/web"
)

// resetLinkCommand prints a link that sets a new password for an account of the built-in
// issuer: anyone's, the owner's included (CreatePasswordResetLink is for admins, and for lower
// ranks only). It asks the running server over <data>/admin.sock; with no server running, it
// writes the link into the database itself.
func resetLinkCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reset-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "reset-link -data DIR -username NAME [-remove-two-step]")
	data := fs.String("data", "./data", "the server's data directory")
	username := fs.String("username", "", "the account's username (required)")
	baseURL := fs.String("base-url", "http://localhost:8080", "the server's -base-url, for the link when the server is not running (a running server puts its own)")
	removeTwoStep := fs.Bool("remove-two-step", false, "the link also turns two-step sign-in off and removes the passkeys (for a person who lost them)")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("reset-link: unexpected %q; the account goes with -username", fs.Arg(0))}
	}
	if *username == "" {
		return usageError{errors.New("reset-link: -username is required, e.g. -username alice")}
	}
	base, err := checkBaseURL(*baseURL)
	if err != nil {
		return usageError{err}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	q := url.Values{"username": {*username}}
	if *removeTwoStep {
		q.Set("remove_two_step", "1")
	}
	var res web.ResetLinkResult
	err = newAdminClient(*data).call(ctx, http.MethodPost, web.AdminResetLinkPath+"?"+q.Encode(), &res)
	var down errServerDown
	switch {
	case errors.As(err, &down):
		if res, err = resetLinkOffline(ctx, *data, base, *username, *removeTwoStep); err != nil {
			return fmt.Errorf("reset-link: %v", err)
		}
	case err != nil:
		return fmt.Errorf("reset-link: %v", err)
	}
	fmt.Fprintf(stdout, "%s\n", res.URL)
	fmt.Fprintf(stderr, "A link for %s: it works once, until %s (24 hours), and signs the account out everywhere.\n",
		res.Username, time.UnixMilli(res.ExpiresAtMs).UTC().Format("2006-01-02 15:04 UTC"))
	return nil
}

// resetLinkOffline makes the link in the database of a server that is not running.
func resetLinkOffline(ctx context.Context, data, base, username string, removeTwoStep bool) (web.ResetLinkResult, error) {
	dir := filepath.Join(data, "db")
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return web.ResetLinkResult{}, fmt.Errorf("no Hearth server runs on %s and it holds no database: check -data", data)
	}
	db, err := store.Open(dir, store.ProfileSmall, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		if strings.Contains(err.Error(), "lock") {
			return web.ResetLinkResult{}, fmt.Errorf("the database in %s is in use, but its server does not answer on %s: stop it, or check -data", data, web.AdminSocketName)
		}
		return web.ResetLinkResult{}, err
	}
	defer db.Close()
	accounts := web.AccountStore(db.Accounts())
	acc, err := accounts.AccountByUsername(ctx, strings.ToLower(strings.TrimSpace(username)))
	if errors.Is(err, auth.ErrAccountNotFound) {
		return web.ResetLinkResult{}, fmt.Errorf("no account is named %q", username)
	}
	if err != nil {
		return web.ResetLinkResult{}, err
	}
	link, err := auth.NewResetLink(ctx, accounts, web.AccountSecurity(db.Accounts()), base, acc.Subject, auth.OperatorResetLink, removeTwoStep, time.Now())
	if err != nil {
		return web.ResetLinkResult{}, err
	}
	return web.ResetLinkResult{URL: link.URL, ExpiresAtMs: link.Expires.UnixMilli(), Username: link.Username}, nil
}

// errServerDown is the admin client's answer when no server listens on the socket.
type errServerDown struct{ msg string }

func (e errServerDown) Error() string { return e.msg }
