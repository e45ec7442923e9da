package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// member is one login of the run with its own connection to the server, as a real client
// would have (and so that Join's limit per client address can be spread over addresses).
type member struct {
	i         int
	sub       string
	chat      svcv1connect.ChatServiceClient
	server    svcv1connect.ServerServiceClient
	transport *http.Transport
	id        string
	// token and source are what the member's own Subscribe connection (h2Stream) dials with.
	token  string
	source net.IP
}

// newMember makes member i's clients; its connections come from source (nil: any address).
func newMember(cfg *Config, i int, token string, source net.IP) *member {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if source != nil {
		d.LocalAddr = &net.TCPAddr{IP: source}
	}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}
	tr.Protocols = new(http.Protocols)
	switch {
	case cfg.HTTP1:
		tr.Protocols.SetHTTP1(true)
	case cfg.tls():
		tr.Protocols.SetHTTP2(true)
	default:
		tr.Protocols.SetUnencryptedHTTP2(true)
	}
	if cfg.tls() {
		tr.TLSClientConfig = loopbackTLS()
	}
	hc := &http.Client{Transport: tr}
	opts := []connect.ClientOption{connect.WithInterceptors(auth.WithBearer(token))}
	switch cfg.Protocol {
	case "grpc":
		opts = append(opts, connect.WithGRPC())
	case "grpcweb":
		opts = append(opts, connect.WithGRPCWeb())
	}
	if cfg.JSONCodec {
		opts = append(opts, connect.WithProtoJSON())
	}
	return &member{
		i:         i,
		sub:       subject(cfg.Prefix, i),
		chat:      svcv1connect.NewChatServiceClient(hc, cfg.URL, opts...),
		server:    svcv1connect.NewServerServiceClient(hc, cfg.URL, opts...),
		transport: tr,
		token:     token,
		source:    source,
	}
}

// loopbackTLS is the TLS of the tool's connections: the server is on this machine (checkLoopback),
// usually with a self-signed certificate, which is not checked.
func loopbackTLS() *tls.Config {
	return &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}
}

// subject is member i's login subject: the same for every run with the same prefix, so a
// second run against the same data directory finds its members again.
func subject(prefix string, i int) string { return fmt.Sprintf("%s-%05d", prefix, i) }

// channelName is the name of load channel i (1-based), already in the server's normal form.
func channelName(prefix string, i int) string { return fmt.Sprintf("%s-%d", prefix, i) }

// sourceAddr is the n-th source address after first (127.0.0.2 + n), skipping addresses that
// end in .0 or .255, so joins can be spread over as many addresses as needed.
func sourceAddr(first net.IP, n int) net.IP {
	ip4 := first.To4()
	if ip4 == nil {
		return first
	}
	v := uint32(ip4[0])<<24 | uint32(ip4[1])<<16 | uint32(ip4[2])<<8 | uint32(ip4[3])
	for step := 0; ; v++ {
		if last := v & 0xff; last == 0 || last == 255 {
			continue
		}
		if step == n {
			break
		}
		step++
	}
	return net.IPv4(byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// ensure makes m a member: GetMe finds a member of an earlier run (Join would cost a token of
// the per-address limit even then), Join makes a new one. A rate-limited Join waits as long as
// the server says and tries again, within ctx.
func (r *run) ensure(ctx context.Context, m *member) (*svcv1.Member, bool, error) {
	me, err := m.server.GetMe(ctx, connect.NewRequest(&svcv1.GetMeRequest{}))
	if err == nil {
		return me.Msg.GetMember(), false, nil
	}
	if connect.CodeOf(err) != connect.CodePermissionDenied {
		r.errs.add("join", err)
		return nil, false, fmt.Errorf("calling GetMe as %s: %w", m.sub, err)
	}
	for {
		res, err := m.server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{DisplayName: m.sub}))
		if err == nil {
			return res.Msg.GetMember(), res.Msg.GetCreated(), nil
		}
		r.errs.add("join", err)
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			return nil, false, fmt.Errorf("joining as %s: %w", m.sub, err)
		}
		if err := sleep(ctx, retryAfter(err)); err != nil {
			return nil, false, fmt.Errorf("joining as %s: still rate limited when the phase ended: %w", m.sub, err)
		}
	}
}

// retryAfter reads a resource_exhausted error's Retry-After, in whole seconds.
func retryAfter(err error) time.Duration {
	var ce *connect.Error
	if errors.As(err, &ce) {
		if s, e := strconv.Atoi(ce.Meta().Get("Retry-After")); e == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	return time.Second
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// prepare joins the first member, finishes a new community's setup as its owner, and finds or
// creates the load channels.
func (r *run) prepare(ctx context.Context) error {
	first := r.members[0]
	me, created, err := r.ensure(ctx, first)
	if err != nil {
		return err
	}
	first.id = me.GetId()
	r.count(created)
	info, err := first.server.GetServerInfo(ctx, connect.NewRequest(&svcv1.GetServerInfoRequest{}))
	if err != nil {
		return fmt.Errorf("GetServerInfo: %w", err)
	}
	isOwner := me.GetRole() == svcv1.MemberRole_MEMBER_ROLE_OWNER
	if info.Msg.GetNeedsSetup() {
		if !isOwner {
			return errors.New("the community is waiting for its owner to finish the setup; use a fresh data directory, or finish it first")
		}
		done := true
		if _, err := first.server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
			return fmt.Errorf("finish the setup: %w", err)
		}
	}
	browse, err := first.chat.BrowseChannels(ctx, connect.NewRequest(&svcv1.BrowseChannelsRequest{}))
	if err != nil {
		return fmt.Errorf("BrowseChannels: %w", err)
	}
	byName := map[string]string{}
	for _, ch := range browse.Msg.GetChannels() {
		if _, dup := byName[ch.GetName()]; !dup && len(ch.GetRoleIds()) == 0 {
			byName[ch.GetName()] = ch.GetId()
		}
	}
	for i := 1; i <= r.cfg.Channels; i++ {
		name := channelName(r.cfg.Prefix, i)
		if id, ok := byName[name]; ok {
			r.channels = append(r.channels, id)
			continue
		}
		if me.GetRole() < svcv1.MemberRole_MEMBER_ROLE_ADMIN {
			return fmt.Errorf("channel %s does not exist and %s is not an admin to create it: run against a fresh data directory, or create it", name, first.sub)
		}
		res, err := first.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{
			Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Topic: "hearth-load",
		}))
		if err != nil {
			return fmt.Errorf("create channel %s: %w", name, err)
		}
		r.channels = append(r.channels, res.Msg.GetChannel().GetId())
	}
	state, err := first.chat.GetState(ctx, connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		return fmt.Errorf("GetState: %w", err)
	}
	r.optIn = state.Msg.GetChannelMode() == svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
	if r.optIn {
		return r.joinChannels(ctx, first)
	}
	return nil
}

// joinChannels puts m in every load channel: in OPT_IN mode only joined members get a
// channel's messages.
func (r *run) joinChannels(ctx context.Context, m *member) error {
	for _, id := range r.channels {
		if _, err := m.chat.JoinChannel(ctx, connect.NewRequest(&svcv1.JoinChannelRequest{ChannelId: id})); err != nil {
			r.errs.add("join", err)
			return fmt.Errorf("JoinChannel as %s: %w", m.sub, err)
		}
	}
	return nil
}

// joinAll makes every other member a member, a few at a time.
func (r *run) joinAll(ctx context.Context) error {
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		mu    sync.Mutex
		first error
	)
	next.Store(1)
	for range r.cfg.Concurrency {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(r.members) || ctx.Err() != nil {
					return
				}
				m := r.members[i]
				me, created, err := r.ensure(ctx, m)
				if err == nil && r.optIn {
					err = r.joinChannels(ctx, m)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				m.id = me.GetId()
				r.count(created)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

func (r *run) count(created bool) {
	if created {
		r.joined.Add(1)
	} else {
		r.reused.Add(1)
	}
}
