package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// Config is one run of the load.
type Config struct {
	// URL is the server's address, e.g. http://127.0.0.1:8080.
	URL string
	// Mint makes a login token for a subject, accepted by the server.
	Mint func(sub string) (string, error)
	// Prefix names the run's logins (<prefix>-00000...) and channels (<prefix>-1...).
	Prefix string
	// Subscribers open a stream each; Senders send; members are max(Subscribers, Senders),
	// and the first Senders of them send.
	Subscribers, Senders, Channels int
	// Rate is the total messages a second (0: each sender at SenderRate); SenderRate caps one
	// sender (0: unpaced, back to back).
	Rate, SenderRate float64
	// MaxMessages bounds the messages of the run, whatever the rate.
	MaxMessages int
	Duration    time.Duration
	// TextBytes pads each message's text to this size.
	TextBytes int
	// Protocol is connect, grpc or grpcweb; HTTP1 uses HTTP/1.1 instead of HTTP/2 (cleartext,
	// or by ALPN over TLS); JSONCodec sends JSON instead of protobuf.
	Protocol  string
	HTTP1     bool
	JSONCodec bool
	// TLS is set for an https URL (the roots the server's certificate must chain to), nil for
	// http.
	TLS *tls.Config
	// StreamClient reads the streams: "h2", the tool's own reader (h2Stream), for the Connect
	// protocol's binary codec over HTTP/2 (h2c or TLS); "connect", the Connect client, for any
	// protocol; "ws", GET /events (the browser's stream) with a WebSocket client, in the codec
	// of JSONCodec.
	StreamClient string
	// SourceIP, when set, is the first of the loopback addresses the members connect from:
	// JoinsPerAddr members per address, so that Join's limit per address holds.
	SourceIP     net.IP
	JoinsPerAddr int
	// Concurrency is how many joins or stream openings are in flight at once.
	Concurrency int
	// PhaseTimeout bounds joining and opening streams; SendTimeout one SendMessage; Settle is
	// the pause between opening the streams and sending; Drain bounds the wait for deliveries
	// after the last send.
	PhaseTimeout, SendTimeout, Settle, Drain time.Duration
	// Watch samples the server's memory and goroutines.
	Watch watcher
	// Progress receives a line a second; nil for none.
	Progress io.Writer
	// CPUProfile, when set, is the file the tool writes its own CPU profile to (the command
	// does, around Run): what the tool spends is CPU the server it shares the machine with
	// does not get.
	CPUProfile string
}

func (c *Config) members() int { return max(c.Subscribers, c.Senders, 1) }

// capacity is how many messages the run may send: what the schedule allows, plus a margin for
// rounding, bounded by MaxMessages.
func (c *Config) capacity() int {
	if c.Senders == 0 || c.Duration <= 0 {
		return 0
	}
	rate := c.Rate
	if rate <= 0 {
		rate = c.SenderRate * float64(c.Senders)
	}
	if rate <= 0 {
		return c.MaxMessages
	}
	n := int(math.Ceil(rate*c.Duration.Seconds())) + c.Senders
	return min(n, c.MaxMessages)
}

// run is the state of one run.
type run struct {
	cfg      Config
	id       string
	members  []*member
	channels []string
	optIn    bool
	ledger   *ledger
	streams  streams
	errs     errorCounts
	phase    atomic.Value // string, for the progress line

	joined, reused               atomic.Int64
	sent, acked, failed, skipped atomic.Int64
	deliveries                   atomic.Int64
	sendLat, deliveryLat         hist
	peakAcked, peakDeliveries    atomic.Int64
}

// Run runs the load against the server and returns what it saw. An error means a phase could
// not finish; the summary then holds what was measured so far.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	r := &run{cfg: cfg, id: runID()}
	r.phase.Store("start")
	r.streams.ctx, r.streams.cancel = context.WithCancel(context.Background())
	sum := newSummary(r)
	defer r.closeConnections()
	stopProgress := r.progress()
	defer stopProgress()

	sum.Server.Start = r.sample(ctx)
	if err := r.makeMembers(); err != nil {
		return sum, err
	}
	r.ledger = newLedger(cfg.capacity(), cfg.Subscribers)

	r.phase.Store("join")
	t0 := time.Now()
	pctx, cancel := context.WithTimeout(ctx, cfg.PhaseTimeout)
	err := r.prepare(pctx)
	if err == nil {
		err = r.joinAll(pctx)
	}
	var afterSeq int64
	if err == nil {
		afterSeq, err = r.currentSeq(pctx)
	}
	cancel()
	sum.Setup.JoinSeconds = time.Since(t0).Seconds()
	sum.fillMembers(r)
	if err != nil {
		return sum.finish(r), fmt.Errorf("joining: %w", err)
	}

	r.phase.Store("open")
	t0 = time.Now()
	pctx, cancel = context.WithTimeout(ctx, cfg.PhaseTimeout)
	err = r.openStreams(pctx, afterSeq)
	cancel()
	sum.Setup.OpenSeconds = time.Since(t0).Seconds()
	if err != nil {
		r.closeStreams(10 * time.Second)
		return sum.finish(r), fmt.Errorf("opening streams: %w", err)
	}
	// The tool collects its setup's garbage now, as a benchmark does before it measures: its
	// next collection is then due only after it allocated as much as it holds (~100 MB with
	// 1,000 members), which the standard run's sends (~1 MB/s; reading allocates nothing) do
	// not reach. Otherwise a collection came in the middle of the run, wherever setup had left
	// the collector's schedule, and its tens of milliseconds on the cores the server shares
	// were counted as the server's latency.
	runtime.GC()
	if err := sleep(ctx, cfg.Settle); err != nil {
		r.closeStreams(10 * time.Second)
		return sum.finish(r), err
	}
	sum.Server.Open = r.sample(ctx)

	if cfg.Senders > 0 && cfg.Duration > 0 {
		r.phase.Store("send")
		cpu := r.startCPU(ctx)
		start := time.Now().Add(50 * time.Millisecond)
		r.send(ctx, start, start.Add(cfg.Duration))
		// Rates are over the schedule, or longer when the last answers came after its end.
		sum.Send.Seconds = max(cfg.Duration, time.Since(start)).Seconds()

		r.phase.Store("drain")
		t0 = time.Now()
		r.drain(ctx)
		sum.Send.DrainSeconds = time.Since(t0).Seconds()
		sum.CPU = cpu.stop(ctx, r)
	}
	sum.Server.End = r.sample(ctx)

	r.phase.Store("close")
	if !r.closeStreams(10 * time.Second) {
		return sum.finish(r), errors.New("the stream readers did not stop within 10 s")
	}
	return sum.finish(r), ctx.Err()
}

// makeMembers mints the tokens and makes the clients.
func (r *run) makeMembers() error {
	n := r.cfg.members()
	r.members = make([]*member, n)
	for i := range n {
		tok, err := r.cfg.Mint(subject(r.cfg.Prefix, i))
		if err != nil {
			return fmt.Errorf("mint a token: %w", err)
		}
		var src net.IP
		if r.cfg.SourceIP != nil {
			src = sourceAddr(r.cfg.SourceIP, i/r.cfg.JoinsPerAddr)
		}
		r.members[i] = newMember(&r.cfg, i, tok, src)
	}
	return nil
}

// currentSeq is where the streams start: after everything the setup wrote.
func (r *run) currentSeq(ctx context.Context) (int64, error) {
	st, err := r.members[0].chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		return 0, fmt.Errorf("GetState: %w", err)
	}
	return st.Msg.GetSeq(), nil
}

// drain waits until every subscriber has every acknowledged message, or Drain has passed.
func (r *run) drain(ctx context.Context) {
	deadline := time.Now().Add(r.cfg.Drain)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if r.ledger.complete(r.acked.Load()) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *run) sample(ctx context.Context) serverSample {
	if !r.cfg.Watch.enabled() {
		return serverSample{}
	}
	return r.cfg.Watch.sample(ctx)
}

// cpuMark is the CPU times at the start of sending.
type cpuMark struct {
	server   float64
	serverOK bool
	tool     float64
	at       time.Time
}

func (r *run) startCPU(ctx context.Context) cpuMark {
	m := cpuMark{tool: ownCPUSeconds(), at: time.Now()}
	m.server, m.serverOK = r.cfg.Watch.cpuSeconds(ctx)
	return m
}

// stop is the CPU the server and the tool used from the mark to the end of the drain, and the
// server's per delivery, as ircload counts it (send and drain).
func (m cpuMark) stop(ctx context.Context, r *run) cpuUse {
	u := cpuUse{Seconds: time.Since(m.at).Seconds(), ToolSeconds: ownCPUSeconds() - m.tool}
	if now, ok := r.cfg.Watch.cpuSeconds(ctx); ok && m.serverOK {
		u.ServerSeconds = now - m.server
		if n := r.deliveries.Load(); n > 0 {
			u.ServerMicrosPerDelivery = u.ServerSeconds / float64(n) * 1e6
		}
	}
	return u
}

func (r *run) closeConnections() {
	for _, m := range r.members {
		if m != nil {
			m.transport.CloseIdleConnections()
		}
	}
}

func runID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// errorCounts counts errors by phase and Connect code.
type errorCounts struct {
	mu sync.Mutex
	m  map[string]map[string]int64
}

func (e *errorCounts) add(phase string, err error) {
	code := connect.CodeOf(err).String()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m = map[string]map[string]int64{}
	}
	if e.m[phase] == nil {
		e.m[phase] = map[string]int64{}
	}
	e.m[phase][code]++
}

func (e *errorCounts) snapshot() map[string]map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]map[string]int64{}
	for p, codes := range e.m {
		out[p] = map[string]int64{}
		for c, n := range codes {
			out[p][c] = n
		}
	}
	return out
}

func (e *errorCounts) total() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	var n int64
	for _, codes := range e.m {
		for _, c := range codes {
			n += c
		}
	}
	return n
}
