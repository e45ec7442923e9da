package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"hearth/engine/clock"
)

// ErrRunning refuses a backup while another one runs: each holds the bucket's deletions and a
// database snapshot, and two at once would only take twice as long.
var ErrRunning = errors.New("a backup is already running")

// Service takes the running server's backups: on demand (the admin socket) and on a schedule.
type Service struct {
	src   Source
	dest  Destination
	keep  int
	clock clock.Clock
	done  func(time.Time, Result, error)
	room  func() error
	log   *slog.Logger

	// last is the outcome of the latest Run (Last); found the newest backup the destination
	// held when Latest first looked (listed says it did).
	lastMu sync.Mutex
	last   Outcome
	found  Outcome
	listed bool

	running sync.Mutex

	mu      sync.Mutex
	timer   clock.Timer
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	stopped bool
}

// Options configure a Service.
type Options struct {
	// Dest is where Run writes.
	Dest Destination
	// Keep is how many backups Run leaves in Dest, the newest; 0 keeps them all.
	Keep int
	// Clock runs the schedule (default the wall clock).
	Clock clock.Clock
	// Done, when set, hears the outcome of every Run (for metrics).
	Done func(at time.Time, res Result, err error)
	// Room, when set, says whether the destination's disk has room: a Run checks it before it
	// starts and after every roomEvery bytes, and stops with its error (the destination is
	// the data disk, whose end the database must never reach).
	Room func() error
}

// roomEvery is how many bytes a Run writes between two looks at Room.
const roomEvery = 8 << 20

// Outcome is what the latest Run did: when it ended, and its result or error. Zero when no
// Run ended since the start.
type Outcome struct {
	At     time.Time
	Result Result
	Err    error
}

// NewService makes the service; Schedule starts its timer.
func NewService(src Source, opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if src.Log == nil {
		src.Log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{src: src, dest: opts.Dest, keep: opts.Keep, clock: opts.Clock, done: opts.Done, room: opts.Room, log: src.Log, ctx: ctx, cancel: cancel}
}

// Destination is where Run writes.
func (s *Service) Destination() Destination { return s.dest }

// Result is one backup Run took.
type Result struct {
	Summary
	// Location is where it is: a path or a bucket URL without settings.
	Location string
	// Bytes is the backup's length; Removed the older backups deleted to keep Keep.
	Bytes   int64
	Removed []string
	Took    time.Duration
}

// Run takes a backup into the destination, then deletes the oldest ones beyond Keep.
func (s *Service) Run(ctx context.Context) (Result, error) {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return Result{}, err
	}
	defer end()
	res, err := s.run(ctx)
	at := s.clock.Now()
	s.lastMu.Lock()
	s.last = Outcome{At: at, Result: res, Err: err}
	s.lastMu.Unlock()
	if s.done != nil {
		s.done(at, res, err)
	}
	return res, err
}

// Latest is the latest backup: the outcome of the latest Run since the start or, before the
// first, the newest backup in the destination (listed once, then remembered); false when
// there is none to tell of.
func (s *Service) Latest(ctx context.Context) (Outcome, bool) {
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	if !s.last.At.IsZero() {
		return s.last, true
	}
	if !s.listed {
		names, err := s.dest.List(ctx)
		if err != nil {
			return Outcome{}, false
		}
		s.listed = true
		if len(names) > 0 {
			newest := names[len(names)-1]
			at, err := time.Parse("20060102T150405.000Z", strings.TrimSuffix(strings.TrimPrefix(newest, "hearth-backup-"), ".tar.gz"))
			if err == nil {
				s.found = Outcome{At: at, Result: Result{Location: strings.TrimSuffix(s.dest.String(), "/") + "/" + newest}}
			}
		}
	}
	return s.found, !s.found.At.IsZero()
}

// Last is the outcome of the latest Run since the start.
func (s *Service) Last() Outcome {
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	return s.last
}

func (s *Service) run(ctx context.Context) (Result, error) {
	start := time.Now()
	now := s.clock.Now()
	name := Name(now)
	var res Result
	if s.room != nil {
		if err := s.room(); err != nil {
			return res, fmt.Errorf("backup to %s: %w", s.dest, err)
		}
	}
	loc, err := s.dest.Save(ctx, name, func(w io.Writer) error {
		cw := &countingWriter{w: w, room: s.room}
		sum, err := Write(ctx, cw, s.src, now)
		res.Summary, res.Bytes = sum, cw.n
		return err
	})
	if err != nil {
		return res, fmt.Errorf("backup to %s: %w", s.dest, err)
	}
	res.Location, res.Took = loc, time.Since(start)
	removed, err := s.prune(ctx)
	res.Removed = removed
	if err != nil {
		return res, fmt.Errorf("backup written to %s, but removing older ones failed: %w", loc, err)
	}
	return res, nil
}

// WriteTo writes a backup to w (the admin socket's download), outside the destination.
func (s *Service) WriteTo(ctx context.Context, w io.Writer) (Summary, error) {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return Summary{}, err
	}
	defer end()
	return Write(ctx, w, s.src, s.clock.Now())
}

// ErrClosed refuses a backup once the server shuts down.
var ErrClosed = errors.New("the server is shutting down")

// begin admits one backup at a time, and none after Close, which cancels and waits for the
// one in progress: the database must not close under it.
func (s *Service) begin(ctx context.Context) (context.Context, func(), error) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil, nil, ErrClosed
	}
	if !s.running.TryLock() {
		s.mu.Unlock()
		return nil, nil, ErrRunning
	}
	s.wg.Add(1)
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
		s.running.Unlock()
		s.wg.Done()
	}, nil
}

func (s *Service) prune(ctx context.Context) ([]string, error) {
	if s.keep <= 0 {
		return nil, nil
	}
	names, err := s.dest.List(ctx)
	if err != nil || len(names) <= s.keep {
		return nil, err
	}
	var removed []string
	for _, name := range names[:len(names)-s.keep] {
		if err := s.dest.Remove(ctx, name); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}

// Schedule takes a backup every interval on the service's clock, until Close.
func (s *Service) Schedule(every time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || every <= 0 {
		return
	}
	s.timer = s.clock.AfterFunc(every, func() { s.scheduled(every) })
}

func (s *Service) scheduled(every time.Duration) {
	res, err := s.Run(s.ctx)
	switch {
	case errors.Is(err, ErrClosed):
		return
	case errors.Is(err, ErrRunning):
		s.log.Warn("scheduled backup skipped: another is running")
	case err != nil && s.ctx.Err() == nil:
		s.log.Error("scheduled backup failed", "err", err)
	case err == nil:
		s.log.Info("backup written", "to", res.Location, "seq", res.Seq, "bytes", res.Bytes, "files", res.Files, "removed", len(res.Removed), "took", res.Took.Round(time.Millisecond))
	}
	s.Schedule(every)
}

// Close stops the schedule and cancels a backup in progress, and waits for it to end.
func (s *Service) Close() {
	s.mu.Lock()
	s.stopped = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

type countingWriter struct {
	w io.Writer
	n int64
	// room, when set, is asked again every roomEvery bytes; checked is where it was last.
	room    func() error
	checked int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.room != nil && c.n-c.checked >= roomEvery {
		c.checked = c.n
		if err := c.room(); err != nil {
			return 0, err
		}
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
