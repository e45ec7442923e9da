// Package engine is the community itself: members, channels, messages, read states, roles,
// moderation, invites, events and presence. It knows nothing of HTTP or of the wire: the web
// package authenticates callers and maps the engine's errors to Connect codes.
//
// Reads run on the published Snapshot (the small state, in memory) and on Badger read
// transactions. Every change goes through the one writer (writer.go), which commits many
// changes with one sync and hands their events to the hub (hub.go). A Follower (follower.go)
// reads the event log from a seq on, replay then live, for the Subscribe streams and for the
// adapters that consume the log (plugins, the search index); adapters call engine methods as a
// Caller like web does, never code inside the writer.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"hearth/blob"
	"hearth/engine/clock"
	"hearth/engine/diskspace"
	"hearth/engine/fanout"
	"hearth/engine/outbound"
	"hearth/engine/sandbox"
	"hearth/engine/search"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Options configure an Engine. Zero values take the defaults noted.
type Options struct {
	// BaseURL is the server's canonical URL (GetServerInfo.base_url, the JWT audience).
	BaseURL string
	// TrustedIssuers are listed in GetServerInfo.
	TrustedIssuers []string
	// Owner, when set, is the login that becomes the owner on Join (instead of the first
	// person to join).
	Owner *Login
	// Name is the community's name when the database is new (default "Hearth").
	Name string
	// Version is the server's version (GetMe.server_version; default "dev").
	Version string
	// Updates, when set, tells GetMe about newer versions.
	Updates UpdateChecker
	// BotRate and BotBurst limit how fast each bot sends (default 20/s, burst 40).
	BotRate  float64
	BotBurst int
	// ReplayDays and ReplayEvents: the event log keeps at least this many days and at least
	// this many events (default 7 and 100,000).
	ReplayDays   int
	ReplayEvents int
	// RingSize is how many of the newest events the hub keeps for the followers; a follower
	// that falls further behind (a stream while it replays, a plugin) gets resync (default
	// 8192). A live stream's own bound is its queue (StreamQueue).
	RingSize int
	// Heartbeat is how often a stream gets a heartbeat (default 25 s).
	Heartbeat time.Duration
	// StreamQueue is how many frames may wait in a stream's queue for its client before it is
	// ended as a slow consumer (default fanout.MaxQueued).
	StreamQueue int
	// PresenceGrace is how long a member stays ONLINE after their last stream closes
	// (default 30 s).
	PresenceGrace time.Duration
	// ThreadsScan bounds the channel log entries one ListMyThreads reads (default 20,000).
	ThreadsScan int
	// Bucket keeps the bytes of uploaded files, Signer signs their URLs and Sandbox sniffs
	// them (a *sandbox.Sandbox, or a *sandbox.Lazy that starts on the first upload). Without
	// all three, uploads answer unavailable.
	Bucket  *blob.Bucket
	Signer  *blob.Signer
	Sandbox Inspector
	// SpoolDir is where POST /emoji spools zip archives while it reads them (default the
	// system's temporary folder). The files are unlinked as soon as they are created.
	SpoolDir string
	// OrphanAge is how old an object without an upload row must be before the cleanup deletes
	// it (default 24 h). It is compared with the bucket's own times, on the wall clock.
	OrphanAge time.Duration
	// PreviewPolicy decides which servers link previews may fetch from: outbound.Public
	// (the zero value) unless -preview-allow-private. Previews also need Bucket and Sandbox.
	PreviewPolicy outbound.Policy
	// PushPolicy decides which push services AddPushSubscription accepts endpoints of (and
	// the notifier may send to): outbound.Public (https on port 443 or 80 at a public address)
	// unless -push-allow-private.
	PushPolicy outbound.Policy
	// PreviewTimeout bounds each request of a link preview, the page's and the image's
	// (default 5 s).
	PreviewTimeout time.Duration
	// ManualJobs leaves the background jobs (log pruning, the retention purge, unused uploads,
	// expired link previews, orphan sweeps) to explicit calls: for tests that check the state before a job runs while
	// they move a manual Clock.
	ManualJobs bool
	// Clock is the time the engine runs on, its timers included (default the wall clock).
	Clock clock.Clock
	// Log receives the engine's log lines (default slog.Default()).
	Log *slog.Logger
	// Observer, when set, hears about every commit of the writer (for metrics).
	Observer Observer
	// Commit, when set, commits the writer's batches in place of Batch.Commit: for tests that
	// make a commit fail as a failing disk does (the engine then stops, see Stopped).
	Commit func(*store.Batch) error
	// Disk, when set, watches the data disk: while it is full, changes and uploads are refused
	// with ErrDiskFull and Healthy says so (diskfull.go).
	Disk *diskspace.Guard
}

// Inspector reads untrusted bytes in the sandbox: an upload's content type and image size
// from its head, a link preview from a page, a whole image (a custom emoji's) to know it
// renders.
type Inspector interface {
	Inspect(ctx context.Context, head []byte) (sandbox.Info, error)
	Preview(ctx context.Context, p sandbox.Page) (sandbox.Preview, error)
	Decode(ctx context.Context, img []byte, lim sandbox.DecodeLimits) (sandbox.Decoded, error)
}

// Login is a person's identity: the pair (issuer, subject).
type Login struct {
	Issuer, Subject string
}

// UpdateChecker answers GetMe.update_available.
type UpdateChecker interface {
	// Newer returns a newer version than current on the same track, or "".
	Newer(current, track string) string
}

// Engine is one open community.
type Engine struct {
	opts Options
	db   *store.DB
	log  *slog.Logger
	// clock runs the timers; now is clock.Now.
	clock clock.Clock
	now   func() time.Time

	snap       atomic.Pointer[Snapshot]
	pub        *publisher
	deliverers *fanout.Deliverers[Delivery]
	index      *search.Index
	lists      *search.Badger
	seq        int64     // the writer's: seq of the newest committed event
	lastNow    time.Time // the writer's: the time of its latest batch
	presence   *presence
	limits     *limiter
	previews   *previewer
	purge      *purger
	exports    exportJobs
	// logStart is the seq of the oldest event kept in the log (0 while it is empty).
	logStart atomic.Int64
	// streams counts the open Subscribe streams; open knows them by member.
	streams atomic.Int64
	open    streamSet
	// joinHook is the plugins' say in Join (SetJoinHook).
	joinHook joinHooks
	// polls is the timer of the next poll to close by itself (polls.go).
	polls pollCloser
	// messageHook is the plugins' say in messages (SetMessageHook); filters holds the word
	// filter of the moderation settings (filters.go).
	messageHook messageHooks
	filters     filters
	// ops is what the admins' status tells (status.go).
	ops operations
	// voice are the seats of the voice channels (voice.go).
	voice voiceRooms

	// ctx ends at Close, cutting short the background jobs' calls to the bucket.
	ctx    context.Context
	cancel context.CancelFunc

	queue      chan *change
	closing    chan struct{}
	writerDone chan struct{}
	jobsDone   chan struct{}
	closed     atomic.Bool
	// broken is set when a commit failed with an unknown outcome (commitfail.go): the writer
	// then refuses every change until a restart.
	broken atomic.Pointer[Error]
	// stopped is closed when broken is set, for the process to exit on (Stopped).
	stopped chan struct{}
	// commitBatch commits the writer's batches in tests that make commits fail; nil commits.
	commitBatch func(*store.Batch) error
}

// Open starts the engine on an open database. The caller closes the database after Close.
func Open(db *store.DB, opts Options) (*Engine, error) {
	if opts.Name == "" {
		opts.Name = "Hearth"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.BotRate == 0 {
		opts.BotRate = 20
	}
	if opts.BotBurst == 0 {
		opts.BotBurst = 40
	}
	if opts.ReplayDays == 0 {
		opts.ReplayDays = 7
	}
	if opts.ReplayEvents == 0 {
		opts.ReplayEvents = 100_000
	}
	if opts.RingSize == 0 {
		opts.RingSize = 8192
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 25 * time.Second
	}
	if opts.PresenceGrace == 0 {
		opts.PresenceGrace = 30 * time.Second
	}
	if opts.ThreadsScan == 0 {
		opts.ThreadsScan = myThreadsScan
	}
	if opts.OrphanAge == 0 {
		opts.OrphanAge = 24 * time.Hour
	}
	if opts.PreviewTimeout == 0 {
		opts.PreviewTimeout = previewFetchTimeout
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	e := &Engine{
		opts:       opts,
		db:         db,
		log:        opts.Log,
		clock:      opts.Clock,
		now:        opts.Clock.Now,
		queue:      make(chan *change, maxBatch),
		closing:    make(chan struct{}),
		writerDone: make(chan struct{}),
		jobsDone:   make(chan struct{}),
		stopped:    make(chan struct{}),
		// nil in the server: commit then calls Batch.Commit.
		commitBatch: opts.Commit,
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	var snap *Snapshot
	err := db.View(func(r *store.Reader) error {
		seq, err := r.LastSeq()
		if err != nil {
			return err
		}
		e.seq = seq
		// The writer's clock resumes where it stopped, even if the wall clock went back.
		err = r.Events(seq-1, seq, func(le *storepb.LoggedEvent) (bool, error) {
			e.lastNow = time.UnixMilli(le.GetEvent().GetAtMs())
			return false, nil
		})
		if err != nil {
			return err
		}
		first, err := r.FirstSeq()
		if err != nil {
			return err
		}
		e.logStart.Store(first)
		snap, err = loadSnapshot(r, seq)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load the community: %w", err)
	}
	e.snap.Store(snap)
	if err := e.openSearch(); err != nil {
		return nil, fmt.Errorf("open the message index: %w", err)
	}
	e.pub = newPublisher(opts.RingSize, e.seq, snap)
	e.deliverers = fanout.NewDeliverers(e.pub.hub)
	e.limits = newLimiter(e.now)
	e.previews = newPreviewer(opts)
	e.purge = &purger{limit: purgeBatch}
	e.presence = newPresence(opts.PresenceGrace, e.clock, func(ev *svcv1.Event) {
		e.pub.publishEphemeral(ev, toEveryone())
	})
	e.presence.onOpen = e.streamOpened
	e.ops.started = e.now()
	e.removeSpools()
	go e.runWriter()
	if opts.ManualJobs {
		close(e.jobsDone)
	} else {
		go e.runJobs()
	}
	if err := e.initSettings(); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.startPastRestore(); err != nil {
		e.Close()
		return nil, fmt.Errorf("start the log after the restore: %w", err)
	}
	// A DeleteRole cut short by a crash left member rows naming the deleted role.
	if err := e.stripDeletedRoles(); err != nil {
		e.Close()
		return nil, fmt.Errorf("take deleted roles from member rows: %w", err)
	}
	e.resumeClaims()
	e.startPolls()
	return e, nil
}

// runJobs does the background work every minute until Close: it prunes the event log, purges
// the messages past retention and deletes the uploads nobody used within a day. Readers hide
// those messages from the moment they are past it, so the purge may lag a minute (or a restart)
// without anyone seeing the difference. Every orphanEvery minutes, starting a minute after
// the start (when a crash is most likely to have left some), it sweeps the objects without a row.
func (e *Engine) runJobs() {
	defer close(e.jobsDone)
	t := e.clock.NewTicker(time.Minute)
	defer t.Stop()
	for tick := 0; ; tick++ {
		select {
		case <-e.closing:
			return
		case <-t.C():
			if e.diskFull() {
				continue // every job writes; the guard logs the full disk once a minute
			}
			if err := e.PruneLog(); err != nil && CodeOf(err) != CodeUnavailable {
				e.log.Error("pruning the event log", "err", err)
			}
			e.runPurge()
			e.runAuditPurge()
			if err := e.ExpireUploads(); err != nil && CodeOf(err) != CodeUnavailable {
				e.log.Error("deleting unused uploads", "err", err)
			}
			if err := e.ExpireExports(); err != nil && CodeOf(err) != CodeUnavailable {
				e.log.Error("deleting expired data exports", "err", err)
			}
			if tick%orphanEvery == 0 {
				e.sweepOrphans()
			}
			e.previewJobs(tick)
			e.flushActivity()
		}
	}
}

func (e *Engine) runPurge() {
	if err := e.PurgeNow(); err != nil && CodeOf(err) != CodeUnavailable {
		e.log.Error("purging messages past retention", "err", err)
	}
}

// PruneLog deletes the events beyond the kept window now; it also runs every minute.
func (e *Engine) PruneLog() error { return e.pruneLog() }

// initSettings writes the settings row of a new community.
func (e *Engine) initSettings() error {
	if e.snap.Load().Settings().GetChannelMode() != svcv1.ChannelMode_CHANNEL_MODE_UNSPECIFIED {
		return nil
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		return struct{}{}, tx.putSettings(&storepb.Settings{
			Name:        e.opts.Name,
			ChannelMode: svcv1.ChannelMode_CHANNEL_MODE_ROLES,
		})
	})
	return err
}

// CloseStreams ends every Subscribe stream; the server calls it first when shutting down so
// that the HTTP server can drain.
func (e *Engine) CloseStreams() { e.pub.hub.Close() }

// Close ends the streams, applies the changes already queued and stops the writer. Calls made
// afterwards get ErrClosed.
func (e *Engine) Close() {
	if e.closed.Swap(true) {
		return
	}
	e.pub.hub.Close()
	e.stopPolls()
	// Who was active since the minute's jobs last stored it is stored now, while the writer
	// still takes changes, rather than lost with the process (a full disk takes nothing).
	if !e.diskFull() {
		e.flushActivity()
	}
	close(e.closing)
	e.cancel()
	e.previews.close()
	<-e.jobsDone
	e.waitExports()
	<-e.writerDone
	if err := e.index.Close(); err != nil {
		e.log.Error("closing the message index", "err", err)
	}
}

// Snapshot is the community as of the newest commit.
func (e *Engine) Snapshot() *Snapshot { return e.snap.Load() }

// Seq is the seq of the newest event handlers can see.
func (e *Engine) Seq() int64 { return e.snap.Load().Seq() }

// Caller is who makes a call: an active member.
type Caller struct {
	ID string
	// Expires is when the token the caller showed expires (a person's access token, its exp);
	// zero for a token that does not (a bot's). A call is checked once, when it arrives, but a
	// Subscribe stream lasts: it ends when its token expires (see Subscribe).
	Expires time.Time
}

// MemberForLogin returns the active member of a login.
func (e *Engine) MemberForLogin(l Login) (Caller, bool) {
	m := e.snap.Load().memberByLogin(l.Issuer, l.Subject)
	if m == nil || m.GetState() != storepb.MemberState_MEMBER_STATE_ACTIVE {
		return Caller{}, false
	}
	return Caller{ID: m.GetMember().GetId()}, true
}

// ErrBanned answers every call of a banned login but GetServerInfo.
var ErrBanned = &Error{Code: CodePermissionDenied, Msg: "you are banned from this community"}

// LoginBanned reports whether a login is banned from the community.
func (e *Engine) LoginBanned(l Login) bool {
	m := e.snap.Load().memberByLogin(l.Issuer, l.Subject)
	return m != nil && m.GetState() == storepb.MemberState_MEMBER_STATE_BANNED
}

// BotForTokenHash returns the bot holding a token.
func (e *Engine) BotForTokenHash(h [32]byte) (Caller, bool) {
	m := e.snap.Load().botByTokenHash(h)
	if m == nil {
		return Caller{}, false
	}
	return Caller{ID: m.GetMember().GetId()}, true
}

// NeedsSetup reports whether the owner has not finished the setup wizard yet.
func (e *Engine) NeedsSetup() bool { return !e.snap.Load().Settings().GetSetupComplete() }

// IsOwner reports whether the caller owns the community.
func (e *Engine) IsOwner(c Caller) bool {
	return e.snap.Load().rank(c.ID) == svcv1.MemberRole_MEMBER_ROLE_OWNER
}

// caller returns the caller's member row, or permission_denied when they are no longer in the
// community (left, kicked or banned since they authenticated).
func (d *Snapshot) caller(c Caller) (*storepb.MemberRecord, error) {
	if m := d.active(c.ID); m != nil {
		return m, nil
	}
	return nil, denied("you are not a member of this community")
}

// requireRank fails unless the caller has at least the rank.
func (d *Snapshot) requireRank(c Caller, min svcv1.MemberRole, what string) (*storepb.MemberRecord, error) {
	m, err := d.caller(c)
	if err != nil {
		return nil, err
	}
	if m.GetMember().GetRole() < min {
		return nil, denied("%s needs the %s rank or higher", what, rankName(min))
	}
	return m, nil
}

func rankName(r svcv1.MemberRole) string {
	switch r {
	case svcv1.MemberRole_MEMBER_ROLE_MODERATOR:
		return "moderator"
	case svcv1.MemberRole_MEMBER_ROLE_ADMIN:
		return "admin"
	case svcv1.MemberRole_MEMBER_ROLE_OWNER:
		return "owner"
	}
	return "member"
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

func itoa(i int) string { return strconv.Itoa(i) }
