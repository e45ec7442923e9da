package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"hearth/web"
)

// healthcheck exits 0 when the running server answers /healthz on its main port. It asks the
// server over the admin socket where that port is and whether it serves TLS, so it follows
// -addr, HEARTH_ADDR and -tls-cert however they were given: the container's HEALTHCHECK.
func healthcheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "healthcheck [-data DIR] [-timeout D]")
	data := fs.String("data", "./data", "the running server's data directory (holds admin.sock)")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answers")
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var st web.AdminStatus
	if err := newAdminClient(*data).call(ctx, http.MethodGet, web.AdminStatusPath, &st); err != nil {
		return fmt.Errorf("unhealthy: %v", err)
	}
	if !st.Healthy {
		return fmt.Errorf("unhealthy: %s", st.Problem)
	}
	if st.Addr == "" {
		return errors.New("unhealthy: the server is not listening yet")
	}
	target, err := probeURL(st.Addr, st.TLS)
	if err != nil {
		return fmt.Errorf("unhealthy: %v", err)
	}
	// The certificate names the public host, not loopback: this probe checks that the port
	// answers, which it can do without trusting it.
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, Proxy: nil}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: %s answered %s: %s", target, resp.Status, body)
	}
	fmt.Fprintf(stdout, "ok: %s (version %s, seq %d)\n", target, st.Version, st.Seq)
	return nil
}

// probeURL is the /healthz URL of a listener's address: a wildcard address is probed on
// loopback.
func probeURL(addr string, tls bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("the server listens on %q: %v", addr, err)
	}
	// Go's listener on a wildcard address takes IPv4 too, and a container may have no IPv6.
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/healthz", nil
}
