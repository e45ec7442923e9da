package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"hearth/auth"
)

// token prints a login token signed by the local issuer, for local setups and tests. It uses
// the same <data>/issuer-key as the server, so the server accepts the token.
func token(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "token -sub NAME [flags]")
	m := mintFlags(fs, "how long the token is valid")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if err := m.check("token"); err != nil {
		return err
	}
	_, tok, err := m.mint(stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// minting holds the flags of the commands that mint a token with the local issuer (token,
// login-link).
type minting struct {
	data, baseURL, sub, name *string
	ttl                      *time.Duration
	base                     string // baseURL as checked
}

func mintFlags(fs *flag.FlagSet, ttlUsage string) *minting {
	return &minting{
		data:    fs.String("data", "./data", "the server's data directory (holds issuer-key)"),
		baseURL: fs.String("base-url", "http://localhost:8080", "the server's -base-url (the token's issuer and audience)"),
		sub:     fs.String("sub", "", "the login's subject, e.g. alice (required)"),
		name:    fs.String("name", "", "the display name to put in the token"),
		ttl:     fs.Duration("ttl", 24*time.Hour, ttlUsage),
	}
}

// check checks the flags of the command cmd, once parsed.
func (m *minting) check(cmd string) error {
	if *m.sub == "" {
		return usageError{fmt.Errorf("%s: -sub is required, e.g. -sub alice", cmd)}
	}
	if *m.ttl <= 0 || *m.ttl > 366*24*time.Hour {
		return usageError{fmt.Errorf("%s: -ttl %s must be positive and at most a year", cmd, *m.ttl)}
	}
	base, err := checkBaseURL(*m.baseURL)
	if err != nil {
		return usageError{err}
	}
	m.base = base
	if err := checkWritableDir("-data", "data directory", *m.data); err != nil {
		return usageError{err}
	}
	return nil
}

// mint signs the token with <data>/issuer-key, and returns it with the base URL it is for.
// With no key there yet it makes one, which a server started on that directory then uses, and
// says so on stderr: run against the wrong -data, the token would fail on the real server.
func (m *minting) mint(stderr io.Writer) (base, token string, err error) {
	keyPath := filepath.Join(*m.data, auth.IssuerKeyFile)
	_, statErr := os.Stat(keyPath)
	iss, err := auth.LoadOrCreateIssuer(*m.data, m.base, time.Now)
	if err != nil {
		return "", "", err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "no issuer key in %s: made a new one, %s; a server started on -data %s accepts the token, a server on another directory does not\n", *m.data, keyPath, *m.data)
	}
	tok, err := iss.Mint(*m.sub, *m.name, *m.ttl)
	return m.base, tok, err
}
