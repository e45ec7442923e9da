// Package notify sends Web Push notifications (RFC 8030, payloads encrypted per RFC 8291,
// VAPID per RFC 8292, all three through github.com/SherClockHolmes/webpush-go) to members with
// no tab open: EXTENSIONS.md 7.
//
// It is an adapter over the engine, like engine/plugins: it follows the event log with an
// engine.Follower, after commit and never inside the writer, and asks the engine who each new
// message may notify (Engine.MessageNotices: visibility when it was sent, blocks, mutes and
// mentions are the engine's rules). On top it applies each member's preferences, which it
// keeps in memory from the notification_prefs events of the same log (so each message is
// judged with the preferences of its moment), and their presence (Engine.Away) when the
// message comes through. Reports reach it through the engine's report hook.
//
// Pushes wait in a bounded queue for a few workers, so that a slow push service never holds
// up the log, let alone the send path; what does not fit is dropped and counted. A push the
// service answers 429 or 5xx (or that cannot reach it) is tried again after a backoff, at most
// 3 times within 10 minutes, with no more pushes waiting for a retry than the queue holds; a
// 404 or 410 removes the subscription, and each try reads the subscription again, so that a
// push never reaches a device removed, or subscribed by another member, since it was made.
// Every request goes
// through the outbound client with the push policy, so an endpoint that resolves to a private
// address is refused unless -push-allow-private.
//
// With a mailer it also sends the email digests (digest.go, digestmail.go): what mentioned a
// member or reached them in a DM and is still unread 15 minutes later, at most one email an
// hour.
//
// Files: notify.go (the service), vapid.go (the key pair and topics), follow.go (the log
// and the decisions), send.go (the queue, the workers and the retries), payload.go,
// digest.go and digestmail.go.
package notify

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"hearth/engine"
	"hearth/engine/clock"
	"hearth/engine/mail"
	"hearth/engine/outbound"
)

// Options configure a Service. Zero values take the defaults noted.
type Options struct {
	// Dir is the data directory, where the VAPID key pair is kept (required).
	Dir string
	// WebURL is the web client's address, which notifications link into (default
	// {base_url}/app).
	WebURL string
	// Policy decides which push services may be reached: the engine's PushPolicy.
	Policy outbound.Policy
	// Version names the server in the User-Agent.
	Version string
	// Clock runs the retries' timers (default the wall clock).
	Clock clock.Clock
	Log   *slog.Logger
	// Observer, when set, counts pushes sent, failed and dropped (for metrics).
	Observer Observer
	// QueueSize bounds the pushes waiting for a worker (default 1,024), and apart from them
	// those waiting for a retry; Workers is how many send at once (default 4).
	QueueSize int
	Workers   int
	// Retries are the waits before each new try of a push the service answered 429 or 5xx
	// (default 10 s, 1 min, 5 min: 3 tries within 10 minutes). A Retry-After longer than a
	// wait is honoured while the tries stay within 10 minutes of the first.
	Retries []time.Duration
	// Timeout bounds one request to a push service (default 10 s).
	Timeout time.Duration

	// Mailer and Address turn the email digests on (both nil: none are kept or sent). Address
	// is a login's verified email address ("" when it has none).
	Mailer  *mail.Mailer
	Address func(ctx context.Context, issuer, subject string) (string, error)
	// Digest is when digests go (default: 15 minutes unread, at most one email an hour per
	// member, at most 200 messages waiting per member).
	Digest engine.DigestPolicy
	// DigestTick is how often due digests are looked for (default a minute).
	DigestTick time.Duration
}

// Observer hears what became of each push.
type Observer interface {
	// PushSent: the push service accepted a push.
	PushSent()
	// PushFailed: a push that will not be tried again, and why: "gone" (404 or 410: the
	// subscription was removed; or it was removed, or its endpoint moved to another member,
	// while the push waited), "rejected" (another 4xx), "refused" (the address policy),
	// "retries" (429, 5xx or no answer, every try used), "error" (it could not be made).
	PushFailed(reason string)
	// PushDropped: a push that did not fit in the queue, or among those waiting for a retry.
	PushDropped()
	// DigestEmail: a digest's email the mail server took ("sent") or did not ("failed").
	DigestEmail(result string)
}

// retryWindow is how long after its first try a push may still be tried.
const retryWindow = 10 * time.Minute

// ttl is the TTL of every push: a day, after which a notification is old news.
const ttl = 86400

// Service is the notifier of one engine.
type Service struct {
	eng    *engine.Engine
	opts   Options
	log    *slog.Logger
	clock  clock.Clock
	keys   keys
	client *outbound.Client
	sub    string
	webURL string
	queue  chan *job

	// prefs is every member's preferences as of the follower's place in the log (the
	// follower's goroutine alone uses it).
	prefs map[string]prefsEntry
	// digests are the email digests; nil without a mailer.
	digests *digests

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// timers are the retries waiting; closed stops new ones.
	mu     sync.Mutex
	timers map[*job]clock.Timer
	closed bool
}

// New loads or makes the VAPID key pair and starts following the log from now on.
func New(eng *engine.Engine, opts Options) (*Service, error) {
	if opts.Dir == "" {
		return nil, errors.New("notify: the data directory is required")
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 1024
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.Retries == nil {
		opts.Retries = []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	k, err := loadOrCreateKeys(opts.Dir)
	if err != nil {
		return nil, err
	}
	base := eng.ServerInfo().GetBaseUrl()
	if opts.WebURL == "" {
		opts.WebURL = base + "/app"
	}
	s := &Service{
		eng: eng, opts: opts, log: opts.Log, clock: opts.Clock, keys: k,
		client: outbound.New(outbound.Options{
			Policy:       opts.Policy,
			Timeout:      opts.Timeout,
			MaxRedirects: -1,
			MaxBody:      64 << 10,
			UserAgent:    outbound.UserAgent(opts.Version),
			AllowPost:    true,
		}),
		sub:    subscriber(base),
		webURL: strings.TrimSuffix(opts.WebURL, "/"),
		queue:  make(chan *job, opts.QueueSize),
		timers: map[*job]clock.Timer{},
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	f, err := s.startFollowing()
	if err != nil {
		return nil, err
	}
	for range opts.Workers {
		s.wg.Add(1)
		go s.work()
	}
	if opts.Mailer != nil && opts.Address != nil {
		s.startDigests()
	}
	s.wg.Add(1)
	go s.follow(f)
	return s, nil
}

// subscriber is the contact a push service may reach the server's operator at (VAPID's sub
// claim): the server's URL when it is https, else an address at its host.
func subscriber(base string) string {
	if strings.HasPrefix(base, "https:") {
		return base
	}
	host := "localhost"
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	// webpush-go writes "mailto:" before anything that is not an https URL.
	return "hearth@" + host
}

// PublicKey is the VAPID public key: base64url of the uncompressed P-256 point.
func (s *Service) PublicKey() string { return s.keys.public }

// Close stops following the log and sending; pushes waiting are dropped.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	for j, t := range s.timers {
		t.Stop()
		delete(s.timers, j)
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

func (s *Service) failed(reason string) {
	if s.opts.Observer != nil {
		s.opts.Observer.PushFailed(reason)
	}
}

func (s *Service) sent() {
	if s.opts.Observer != nil {
		s.opts.Observer.PushSent()
	}
}

func (s *Service) digestEmail(result string) {
	if s.opts.Observer != nil {
		s.opts.Observer.DigestEmail(result)
	}
}

func (s *Service) dropped() {
	if s.opts.Observer != nil {
		s.opts.Observer.PushDropped()
	}
}
