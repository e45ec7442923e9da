package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"hearth/auth"
)

// token prints a login token signed by the local issuer, for local setups and tests. It uses
// the same <data>/issuer-key as the server, so the server accepts the token.
func token(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "token -sub NAME [flags]")
	data := fs.String("data", "./data", "the server's data directory (holds issuer-key)")
	baseURL := fs.String("base-url", "http://localhost:8080", "the server's -base-url (the token's issuer and audience)")
	sub := fs.String("sub", "", "the login's subject, e.g. alice (required)")
	name := fs.String("name", "", "the display name to put in the token")
	ttl := fs.Duration("ttl", 24*time.Hour, "how long the token is valid")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if *sub == "" {
		return usageError{errors.New("token: -sub is required, e.g. -sub alice")}
	}
	if *ttl <= 0 || *ttl > 366*24*time.Hour {
		return usageError{fmt.Errorf("token: -ttl %s must be positive and at most a year", *ttl)}
	}
	base, err := checkBaseURL(*baseURL)
	if err != nil {
		return usageError{err}
	}
	if err := checkWritableDir(*data); err != nil {
		return usageError{err}
	}
	iss, err := auth.LoadOrCreateIssuer(*data, base, time.Now)
	if err != nil {
		return err
	}
	tok, err := iss.Mint(*sub, *name, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}
