package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	log   *slog.Logger

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
	return &Service{src: src, dest: opts.Dest, keep: opts.Keep, clock: opts.Clock, done: opts.Done, log: src.Log, ctx: ctx, cancel: cancel}
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
	if s.done != nil {
		s.done(s.clock.Now(), res, err)
	}
	return res, err
}

func (s *Service) run(ctx context.Context) (Result, error) {
	start := time.Now()
	now := s.clock.Now()
	name := Name(now)
	var res Result
	loc, err := s.dest.Save(ctx, name, func(w io.Writer) error {
		cw := &countingWriter{w: w}
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
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
