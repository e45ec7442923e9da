// Command hearth-load puts a running Hearth under load and says how it held up.
//
// It joins members, opens a Subscribe stream for each subscriber, has senders send messages
// into a few channels at a total rate for a while, and then reports the send rate and latency,
// the delivery latency (from the start of a send to its arrival on each stream), whether every
// stream got every acknowledged message exactly once, the errors by Connect code, and the
// server's memory and goroutines. See -h for the flags and docs/performance.md for the numbers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"hearth/auth"
)

const help = `hearth-load puts a running Hearth under load and reports how it held up.

  hearth-load -url http://127.0.0.1:8080 -data ./data -base-url http://localhost:8080 \
      -subscribers 1000 -channels 10 -rate 50 -duration 30s -metrics-url http://127.0.0.1:9464/metrics

An http:// -url speaks cleartext HTTP/2 (h2c), or HTTP/1.1 with -http1. An https:// -url speaks
TLS, HTTP/2 by ALPN as a browser does, or HTTP/1.1 with -http1; -ca-cert names the PEM file of
the server's certificate (a self-signed one, say) when the system's roots do not vouch for it.

It mints login tokens with the server's own issuer key (-data, the server's data directory,
and -base-url, the server's -base-url: the tokens' issuer and audience), joins the members
<prefix>-00000, <prefix>-00001, ..., opens one Subscribe stream for each of the first
-subscribers members, and has the first -senders members send into the channels <prefix>-1 ..
<prefix>-N (created if missing) for -duration. Every subscriber sees every load channel, so
each message is delivered once to each subscriber. Each text carries the run id, a message
number and the send time, so arrival is checked exactly: nothing acknowledged may be lost,
nothing delivered twice, and seqs only grow on each stream.

The first member to join a fresh server becomes its owner: the tool then finishes the setup
(setup_complete) and creates the channels. Against a server that already has an owner, the
channels must exist or the first member must be an admin. A second run with the same -data and
-prefix finds its members again (GetMe) instead of joining them.

What the server allows, and how the tool lives with it:
  - a person sends at most 5 messages a second (burst 10): the senders are paced, -rate shared
    out among them; by default there are enough of them for each to send at most 4 a second.
    A sender asked to send more than that gets resource_exhausted, counted by code; with
    -rate 0 each sender goes at -sender-rate.
  - Join is limited to 10 a minute per client address: the members connect from loopback
    addresses -source-ip, -source-ip+1, ..., -joins-per-addr members each (Linux answers on all
    of 127.0.0.0/8; elsewhere add the aliases, or use -source-ip "" for a few members).
  - a stream that falls further behind than the server's ring (8,192 events) gets resync and
    ends: the tool counts it, and the messages it missed count as lost.

Every phase is bounded: joining and opening streams by -phase-timeout, each send by
-send-timeout, sending by -duration and -max-messages, the wait for the last deliveries by
-drain. Only loopback servers are accepted. The exit code is 0 when every check passed, 1 when
something was lost, duplicated or failed, 2 for bad flags.

Flags:
`

func main() {
	os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
}

func cli(args []string, stdout, stderr io.Writer) int {
	cfg, asJSON, quiet, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "hearth-load:", err)
		return 2
	}
	if !quiet {
		cfg.Progress = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			fmt.Fprintln(stderr, "hearth-load:", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "hearth-load:", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	sum, err := Run(ctx, cfg)
	if asJSON {
		sum.writeJSON(stdout)
	} else {
		sum.writeText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "hearth-load:", err)
		return 1
	}
	if !sum.OK {
		return 1
	}
	return 0
}

func parseArgs(args []string, stderr io.Writer) (Config, bool, bool, error) {
	fs := flag.NewFlagSet("hearth-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, help)
		fs.PrintDefaults()
	}
	var c Config
	var data, baseURL, sourceIP, codec, metricsURL, caCert string
	var asJSON, quiet bool
	var pid int
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8080", "the server's address (loopback only)")
	fs.StringVar(&data, "data", "./data", "the server's data directory: its issuer-key signs the tokens")
	fs.StringVar(&baseURL, "base-url", "http://localhost:8080", "the server's -base-url: the tokens' issuer and audience")
	fs.StringVar(&c.Prefix, "prefix", "load", "names the logins (<prefix>-00000...) and channels (<prefix>-1...); a-z and 0-9")
	fs.IntVar(&c.Subscribers, "subscribers", 100, "members that open a Subscribe stream")
	fs.IntVar(&c.Senders, "senders", 0, "members that send (default: enough to send at most 4 a second each)")
	fs.IntVar(&c.Channels, "channels", 10, "channels the messages go to, in turn")
	fs.Float64Var(&c.Rate, "rate", 50, "messages a second from all senders together; 0: each sender at -sender-rate")
	fs.Float64Var(&c.SenderRate, "sender-rate", 5, "most messages a second one sender sends with -rate 0 (people may send 5); 0: back to back")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "how long to send; 0 only opens the streams and measures them")
	fs.IntVar(&c.MaxMessages, "max-messages", 2_000_000, "most messages a run sends, whatever the rate")
	fs.IntVar(&c.TextBytes, "size", 0, "pad each message's text to this many bytes")
	fs.StringVar(&c.Protocol, "protocol", "connect", "connect, grpc or grpcweb")
	fs.BoolVar(&c.HTTP1, "http1", false, "use HTTP/1.1 (one connection per stream) instead of HTTP/2 (h2c for http://, by ALPN over TLS for https://)")
	fs.StringVar(&caCert, "ca-cert", "", "with an https -url: a PEM file of the certificates to trust (the server's self-signed certificate); default: the system's roots")
	var ws bool
	fs.BoolVar(&ws, "ws", false, "read the events over GET /events, the browser's WebSocket stream (wss:// with an https:// URL), instead of Subscribe")
	fs.StringVar(&codec, "codec", "proto", "proto or json")
	fs.StringVar(&c.StreamClient, "stream-client", "", "what reads the streams: h2, the tool's own lean reader (Connect, proto, HTTP/2 over h2c or TLS only; the default there), or connect, the Connect client (the default otherwise); -ws reads them with a WebSocket client")
	fs.StringVar(&sourceIP, "source-ip", "127.0.0.2", "first loopback address members connect from; \"\" for the system's choice")
	fs.IntVar(&c.JoinsPerAddr, "joins-per-addr", 10, "members per source address (the server lets 10 join a minute from one address)")
	fs.IntVar(&c.Concurrency, "concurrency", 50, "joins or stream openings in flight at once")
	fs.DurationVar(&c.PhaseTimeout, "phase-timeout", 3*time.Minute, "bound on joining, and on opening the streams")
	fs.DurationVar(&c.SendTimeout, "send-timeout", 10*time.Second, "bound on one SendMessage")
	fs.DurationVar(&c.Settle, "settle", 2*time.Second, "pause after the streams are open, before measuring the server and sending")
	fs.DurationVar(&c.Drain, "drain", 10*time.Second, "bound on the wait for deliveries after the last send")
	fs.StringVar(&metricsURL, "metrics-url", "", "the server's /metrics (hearth -metrics-addr), for its RSS and goroutines")
	fs.IntVar(&pid, "pid", 0, "the server's process id, for its RSS from /proc")
	fs.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	fs.BoolVar(&quiet, "quiet", false, "no progress line every second")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write the tool's own CPU profile over the run to this file")
	if err := fs.Parse(args); err != nil {
		return c, false, false, err
	}
	if fs.NArg() > 0 {
		return c, false, false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := checkLoopback("-url", c.URL); err != nil {
		return c, false, false, err
	}
	if metricsURL != "" {
		if err := checkLoopback("-metrics-url", metricsURL); err != nil {
			return c, false, false, err
		}
	}
	c.Watch = watcher{metricsURL: metricsURL, pid: pid, client: &http.Client{}}
	tlsConf, err := clientTLS(c.URL, caCert)
	if err != nil {
		return c, false, false, err
	}
	c.TLS = tlsConf
	if ws {
		if c.StreamClient != "" {
			return c, false, false, errors.New("-ws reads the streams with a WebSocket client: drop -stream-client")
		}
		c.StreamClient = "ws"
	}
	if err := c.fill(codec, sourceIP); err != nil {
		return c, false, false, err
	}
	mint, err := localMinter(data, baseURL, c.PhaseTimeout*2+c.Duration+c.Drain+time.Hour)
	if err != nil {
		return c, false, false, err
	}
	c.Mint = mint
	return c, asJSON, quiet, nil
}

// fill checks the flags that depend on each other and sets the derived defaults.
func (c *Config) fill(codec, sourceIP string) error {
	c.URL = strings.TrimSuffix(c.URL, "/")
	for _, r := range c.Prefix {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return fmt.Errorf("-prefix %q: use a-z and 0-9 only, so channel names stay as given", c.Prefix)
		}
	}
	if c.Prefix == "" {
		return errors.New("-prefix is empty")
	}
	if c.Subscribers < 0 || c.Senders < 0 || c.Channels < 1 || c.Concurrency < 1 || c.JoinsPerAddr < 1 {
		return errors.New("-subscribers and -senders must be 0 or more; -channels, -concurrency and -joins-per-addr at least 1")
	}
	if c.Rate < 0 || c.SenderRate < 0 || c.Duration < 0 || c.MaxMessages < 1 || c.TextBytes > 8000 {
		return errors.New("-rate, -sender-rate and -duration must not be negative, -max-messages at least 1, -size at most 8000")
	}
	if c.Senders == 0 && c.Duration > 0 {
		if c.Rate == 0 {
			return errors.New("-rate 0 sends as fast as the senders may: say how many with -senders")
		}
		c.Senders = int(math.Ceil(c.Rate / 4))
	}
	switch c.Protocol {
	case "connect", "grpcweb":
	case "grpc":
		if c.HTTP1 {
			return errors.New("-protocol grpc needs HTTP/2: drop -http1")
		}
	default:
		return fmt.Errorf("-protocol %q: use connect, grpc or grpcweb", c.Protocol)
	}
	switch codec {
	case "proto":
	case "json":
		c.JSONCodec = true
	default:
		return fmt.Errorf("-codec %q: use proto or json", codec)
	}
	lean := c.Protocol == "connect" && !c.HTTP1 && !c.JSONCodec
	switch c.StreamClient {
	case "":
		c.StreamClient = "connect"
		if lean {
			c.StreamClient = "h2"
		}
	case "h2":
		if !lean {
			return errors.New("-stream-client h2 reads the Connect protocol with -codec proto over HTTP/2: drop -http1, -protocol or -codec, or use -stream-client connect")
		}
	case "connect", "ws":
	default:
		return fmt.Errorf("-stream-client %q: use h2 or connect", c.StreamClient)
	}
	if sourceIP != "" {
		ip := net.ParseIP(sourceIP)
		if ip == nil || ip.To4() == nil || !ip.IsLoopback() {
			return fmt.Errorf("-source-ip %q must be an IPv4 loopback address such as 127.0.0.2", sourceIP)
		}
		c.SourceIP = ip
	}
	return nil
}

// checkLoopback refuses any server but one on this machine: a load tool pointed elsewhere is
// an attack on someone.
func checkLoopback(flagName, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q must be an http URL", flagName, raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s %q: hearth-load only talks to loopback addresses (127.0.0.0/8, ::1, localhost)", flagName, raw)
}

// localMinter signs tokens with the server's issuer key. The key must exist: a key made here
// would sign tokens no server accepts.
func localMinter(data, baseURL string, ttl time.Duration) (func(string) (string, error), error) {
	if _, err := os.Stat(filepath.Join(data, "issuer-key")); err != nil {
		return nil, fmt.Errorf("-data %s: no issuer-key there (start the server with this -data first): %v", data, err)
	}
	iss, err := auth.LoadOrCreateIssuer(data, strings.TrimSuffix(baseURL, "/"), time.Now)
	if err != nil {
		return nil, err
	}
	return func(sub string) (string, error) { return iss.Mint(sub, "", ttl) }, nil
}
