// Package diskspace keeps the server away from a full disk. Badger writes its value log and
// its memtables' logs through memory maps of sparse files: a page written when the file system
// has no block left for it is not an error the write returns but a SIGBUS that kills the
// process. So the writes must stop while there is still room, not when the disk says no. A
// Guard reads the free space of the file system under a folder (statfs, a few microseconds)
// before each batch of writes, and calls the disk full below a margin: 64 MiB or 1% of the
// file system, whichever is larger (or what the operator set instead). The margin is larger than anything
// one batch, one upload (25 MB) or Badger's flush of a memtable writes, so a disk that was above
// it when a write began is not at its end when the write is done.
package diskspace

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DefaultMinFree is the least free space a disk must keep before it counts as full.
const DefaultMinFree = 64 << 20

// minFreeShare is the other floor: 1/minFreeShare of the file system (1%).
const minFreeShare = 100

// logEvery is how often a disk that stays full is logged again.
const logEvery = time.Minute

// Space is a file system's size and free space, in bytes. Free is what an unprivileged
// process may still write (statfs's f_bavail): the blocks reserved for root do not count.
type Space struct {
	Free, Total uint64
}

// ErrFull is the error of a write refused because the disk is full.
var ErrFull = errors.New("the server's disk is full")

// Options configure a Guard.
type Options struct {
	// MinFree, when set, is the least free space in bytes before the disk counts as full, in
	// place of the default rule (DefaultMinFree or 1% of the file system, whichever is larger).
	MinFree uint64
	// Statfs reads a file system's space (default the system's statfs); for tests.
	Statfs func(dir string) (Space, error)
	// Log receives the line a minute a full disk is worth (default slog.Default()).
	Log *slog.Logger
	// Now is the clock of those lines (default time.Now).
	Now func() time.Time
}

// Guard watches the file system under one folder.
type Guard struct {
	dir     string
	minFree uint64
	statfs  func(string) (Space, error)
	log     *slog.Logger
	now     func() time.Time

	mu sync.Mutex
	// full is what the latest Check found; logged when the latest line was written (zero
	// when none is due: the disk was not full at the latest Check); refused counts the
	// refusals since that line.
	full    bool
	logged  time.Time
	refused int
	failed  time.Time
}

// New watches the file system that holds dir.
func New(dir string, opts Options) *Guard {
	if opts.Statfs == nil {
		opts.Statfs = statfs
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Guard{dir: dir, minFree: opts.MinFree, statfs: opts.Statfs, log: opts.Log, now: opts.Now}
}

// Dir is the folder the guard watches.
func (g *Guard) Dir() string { return g.dir }

// Threshold is the free space below which a file system of total bytes counts as full.
func (g *Guard) Threshold(total uint64) uint64 {
	if g.minFree > 0 {
		return g.minFree
	}
	return max(DefaultMinFree, total/minFreeShare)
}

// Space reads the file system's space now.
func (g *Guard) Space() (Space, error) { return g.statfs(g.dir) }

// Check reads the free space and returns a *FullError (which is ErrFull) when it is below the
// threshold, nil otherwise. While the disk stays full it logs one line a minute, with how many
// writes it refused since the last one, and one line when space is back. A file system that
// cannot be read is not called full (writes go on as they would without a guard), and is
// logged once a minute.
func (g *Guard) Check() error {
	sp, err := g.statfs(g.dir)
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		if g.failed.IsZero() || now.Sub(g.failed) >= logEvery {
			g.failed = now
			g.log.Warn("cannot read the free space of the data disk", "dir", g.dir, "err", err)
		}
		return nil
	}
	need := g.Threshold(sp.Total)
	if sp.Free >= need {
		if g.full {
			g.full = false
			g.log.Info("the data disk has room again: taking writes", "dir", g.dir, "free_bytes", sp.Free, "threshold_bytes", need, "refused", g.refused)
			g.refused = 0
			g.logged = time.Time{}
		}
		return nil
	}
	g.full = true
	g.refused++
	if g.logged.IsZero() || now.Sub(g.logged) >= logEvery {
		g.log.Error("the data disk is full: refusing writes until space is freed", "dir", g.dir, "free_bytes", sp.Free, "threshold_bytes", need, "refused", g.refused)
		g.logged = now
		g.refused = 0
	}
	return &FullError{Free: sp.Free, Threshold: need}
}

// Full reports whether the disk is full now, with the space read, without logging or counting
// a refusal: for health checks and status pages.
func (g *Guard) Full() (bool, Space, error) {
	sp, err := g.statfs(g.dir)
	if err != nil {
		return false, sp, err
	}
	return sp.Free < g.Threshold(sp.Total), sp, nil
}

// FullError says how full the disk is. errors.Is(err, ErrFull) holds for it.
type FullError struct {
	Free, Threshold uint64
}

func (e *FullError) Error() string {
	return fmt.Sprintf("%s: %s free, the server keeps at least %s", ErrFull, Bytes(e.Free), Bytes(e.Threshold))
}

func (e *FullError) Is(target error) bool { return target == ErrFull }

// Bytes says a size for a person: "63.9 MiB".
func Bytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}
