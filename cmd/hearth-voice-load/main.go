// Command hearth-voice-load puts a running Hearth's voice under load and says what it cost.
//
// -people members join one voice channel, each with its own PeerConnection (engine/voice's
// voicetest client: the same signalling as the browser client), and the first -talking of
// them send synthetic Opus the whole time: an 80-byte packet every 20 ms, with the audio level,
// as a browser sends speech at about 32 kbit/s; the others send nothing (a microphone off). The
// first -screens share a screen (VP8-sized frames, about 120 kbit/s). After -warmup, for -duration, it measures the server's process
// (-pid): its CPU time, from /proc/<pid>/stat, as a share of one core, and its resident
// memory, from /proc/<pid>/status, against what it was before anyone joined; and the packets
// the participants received against what they should have (each talker is heard by all the
// others). See docs/performance.md for the numbers.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/pion/webrtc/v4"

	"hearth/auth"
	"hearth/engine/voice/voicetest"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

const usage = `hearth-voice-load puts a running Hearth's voice under load and reports what it cost.

  hearth-voice-load -url http://127.0.0.1:8080 -data ./data -base-url http://localhost:8080 \
      -pid $(pgrep -n hearth) -people 25 -talking 25 -duration 60s

It mints login tokens with the server's issuer key (-data, -base-url as the server's), joins the
members <prefix>-00 ... from the loopback addresses 127.0.0.2, 127.0.0.3, ... (one each: Join is
10 a minute per address), and has them join the voice channel <prefix> (made by the first
member, who must be the owner or an admin). Only loopback servers are accepted. Linux only
(/proc). Every phase is bounded in time.

Flags:
`

type config struct {
	url, data, baseURL, prefix string
	people, talking, screens   int
	pid                        int
	warmup, duration           time.Duration
}

func main() { os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr)) }

func cli(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hearth-voice-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	var c config
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080", "the server's address (loopback only)")
	fs.StringVar(&c.data, "data", "./data", "the server's data directory (for its issuer key)")
	fs.StringVar(&c.baseURL, "base-url", "http://localhost:8080", "the server's -base-url")
	fs.StringVar(&c.prefix, "prefix", "voice-load", "names of the members and the channel")
	fs.IntVar(&c.people, "people", 25, "participants (at most 25 a channel)")
	fs.IntVar(&c.talking, "talking", -1, "how many of them send speech the whole time (default all)")
	fs.IntVar(&c.screens, "screens", 0, "how many of them share a screen")
	fs.IntVar(&c.pid, "pid", 0, "the server's process id, to measure it")
	fs.DurationVar(&c.warmup, "warmup", 5*time.Second, "time to settle before measuring")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "how long to measure")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if c.talking < 0 {
		c.talking = c.people
	}
	if err := c.check(); err != nil {
		fmt.Fprintln(stderr, "hearth-voice-load:", err)
		return 2
	}
	if err := load(c, stdout); err != nil {
		fmt.Fprintln(stderr, "hearth-voice-load:", err)
		return 1
	}
	return 0
}

func (c config) check() error {
	u, err := url.Parse(c.url)
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("-url %q must be an http URL", c.url)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-url %q: only loopback addresses", c.url)
	}
	switch {
	case c.people < 2 || c.people > 25:
		return fmt.Errorf("-people %d must be 2 to 25", c.people)
	case c.talking > c.people || c.screens > c.people || c.screens < 0:
		return errors.New("-talking and -screens must be 0 to -people")
	case c.pid <= 0:
		return errors.New("-pid is required: the server's process id")
	case c.duration < time.Second || c.duration > time.Hour || c.warmup < 0 || c.warmup > 10*time.Minute:
		return errors.New("-duration must be 1s to 1h, -warmup 0 to 10m")
	}
	if _, err := os.Stat(filepath.Join(c.data, "issuer-key")); err != nil {
		return fmt.Errorf("-data %s: no issuer-key there (start the server with this -data first)", c.data)
	}
	return nil
}

// member is one participant's clients, on its own source address.
type member struct {
	id     string
	server svcv1connect.ServerServiceClient
	chat   svcv1connect.ChatServiceClient
	voice  svcv1connect.VoiceServiceClient
}

func newMember(c config, token string, source net.IP) *member {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: source}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	hc := &http.Client{Transport: tr}
	opts := connect.WithInterceptors(auth.WithBearer(token))
	return &member{
		server: svcv1connect.NewServerServiceClient(hc, c.url, opts),
		chat:   svcv1connect.NewChatServiceClient(hc, c.url, opts),
		voice:  svcv1connect.NewVoiceServiceClient(hc, c.url, opts),
	}
}

func load(c config, out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute+c.warmup+c.duration)
	defer cancel()
	iss, err := auth.LoadOrCreateIssuer(c.data, strings.TrimSuffix(c.baseURL, "/"), time.Now)
	if err != nil {
		return err
	}
	before, err := rss(c.pid)
	if err != nil {
		return err
	}
	var members []*member
	for i := range c.people {
		sub := fmt.Sprintf("%s-%02d", c.prefix, i)
		tok, err := iss.Mint(sub, sub, 2*time.Hour)
		if err != nil {
			return err
		}
		m := newMember(c, tok, net.IPv4(127, 0, 0, byte(2+i)))
		if err := m.ensure(ctx, sub); err != nil {
			return err
		}
		members = append(members, m)
	}
	channel, err := voiceChannel(ctx, members[0], c.prefix)
	if err != nil {
		return err
	}
	var peers []*voicetest.Peer
	defer func() {
		for _, p := range peers {
			p.Leave()
			p.Close()
		}
	}()
	errs := make(chan error, 16)
	for i, m := range members {
		p, err := voicetest.Join(m.voice, m.id, channel, voicetest.Options{Silent: i >= c.talking, OnError: func(err error) {
			select {
			case errs <- err:
			default:
			}
		}})
		if err != nil {
			return fmt.Errorf("%s joining voice: %w", m.id, err)
		}
		peers = append(peers, p)
	}
	// Everyone hears every talker before the clock starts.
	deadline := time.Now().Add(60 * time.Second)
	for !allHear(peers, c.talking) {
		select {
		case err := <-errs:
			return err
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("not everyone heard every talker within 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range peers[:c.screens] {
		p.Sharing.Store(true)
		share := true
		if _, err := p.SetState(&svcv1.SetVoiceStateRequest{SharingScreen: &share}); err != nil {
			return err
		}
	}
	time.Sleep(c.warmup)
	cpu0, err := cpuTime(c.pid)
	if err != nil {
		return err
	}
	got0, sent0 := totals(peers)
	start := time.Now()
	time.Sleep(c.duration)
	cpu1, err := cpuTime(c.pid)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	got1, sent1 := totals(peers)
	during, err := rss(c.pid)
	if err != nil {
		return err
	}
	sent := float64(sent1-sent0) / elapsed.Seconds()
	got := float64(got1-got0) / elapsed.Seconds()
	// Each talker's packets go to every other participant (screens add their own).
	want := sent * float64(c.people-1)
	audioShare := got / want
	if c.screens > 0 {
		audioShare = -1
	}
	fmt.Fprintf(out, "participants %d, talking %d, screens %d, measured %s after %s\n", c.people, c.talking, c.screens, elapsed.Round(time.Millisecond), c.warmup)
	fmt.Fprintf(out, "server CPU: %.1f%% of one core (%.2f s in %.1f s)\n", 100*(cpu1-cpu0).Seconds()/elapsed.Seconds(), (cpu1 - cpu0).Seconds(), elapsed.Seconds())
	fmt.Fprintf(out, "server memory (RSS): %.1f MB before, %.1f MB with everyone in: %.2f MB a participant\n", mb(before), mb(during), mb(during-before)/float64(c.people))
	fmt.Fprintf(out, "packets: sent %.0f/s, received %.0f/s", sent, got)
	if audioShare >= 0 {
		fmt.Fprintf(out, " (%.1f%% of the %.0f/s the talkers' packets should make)", 100*audioShare, want)
	}
	fmt.Fprintln(out)
	select {
	case err := <-errs:
		return err
	default:
	}
	if audioShare >= 0 && audioShare < 0.95 {
		return fmt.Errorf("only %.1f%% of the audio arrived", 100*audioShare)
	}
	return nil
}

// ensure finds the member of an earlier run (GetMe) or joins it, waiting out a rate limit.
func (m *member) ensure(ctx context.Context, sub string) error {
	if me, err := m.server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{})); err == nil {
		m.id = me.Msg.GetMember().GetId()
		return nil
	}
	res, err := m.server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{DisplayName: sub}))
	if err != nil {
		return fmt.Errorf("joining as %s: %w", sub, err)
	}
	m.id = res.Msg.GetMember().GetId()
	if res.Msg.GetMember().GetRole() == svcv1.MemberRole_MEMBER_ROLE_OWNER {
		done := true
		if _, err := m.server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
			return fmt.Errorf("finishing the setup: %w", err)
		}
	}
	return nil
}

// voiceChannel finds the voice channel named name, or has m create it.
func voiceChannel(ctx context.Context, m *member, name string) (string, error) {
	st, err := m.chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		return "", err
	}
	for _, ch := range st.Msg.GetChannels() {
		if ch.GetKind() == svcv1.ChannelKind_CHANNEL_KIND_VOICE && ch.GetName() == name {
			return ch.GetId(), nil
		}
	}
	res, err := m.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_VOICE}))
	if err != nil {
		return "", fmt.Errorf("creating the voice channel %s (the first member must be an admin): %w", name, err)
	}
	return res.Msg.GetChannel().GetId(), nil
}

// allHear reports whether every peer receives audio from every talker but itself.
func allHear(peers []*voicetest.Peer, talking int) bool {
	for _, p := range peers {
		for _, t := range peers[:talking] {
			if t != p && p.Packets(t.Member, webrtc.RTPCodecTypeAudio) <= 0 {
				return false
			}
		}
	}
	return true
}

func totals(peers []*voicetest.Peer) (got, sent int64) {
	for _, p := range peers {
		got += p.Received()
		sent += p.Sent.Load()
	}
	return got, sent
}

// cpuTime is a process's CPU time (user and system) from /proc/<pid>/stat, in clock ticks of
// 10 ms (Linux's USER_HZ).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count fields after its closing parenthesis.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// rss is a process's resident memory, from /proc/<pid>/status, in bytes.
func rss(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
