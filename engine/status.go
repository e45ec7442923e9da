package engine

import (
	"context"
	"sync"
	"time"

	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// The admins' status screen (GetServerStatus): the version, the members and who was active,
// messages a day, storage, the latest backup and the disk. Everything it reads is kept as
// things happen, so that answering costs point reads and one pass over the members:
//   - who was active: the last UTC day each member sent a message or had a stream open, in
//     memory (ops.last) and in the store (store.PutActiveDay), written at most once a day per
//     member: with the message that made them active, or, for a stream, by the minute's jobs;
//   - messages a day: a counter per UTC day, moved in the transaction of each message;
//   - the bucket's bytes: totals by kind (store.Usage), moved by every row of an object put
//     or deleted, counted once from the rows on a database older than them.

// statusDaysDefault and statusDaysMax bound GetServerStatusRequest.days.
const (
	statusDaysDefault = 30
	statusDaysMax     = 90
)

// operations is the engine's part of the status: who was active when, and since when the
// engine runs. The zero value is ready; load fills last from the store on first use.
type operations struct {
	started time.Time

	loadOnce sync.Once
	loadErr  error
	mu       sync.Mutex
	// last is each member's last active day as the engine knows it; stored what the store
	// holds (a member whose last is newer is written by flushActivity).
	last, stored map[string]int32
	// backups tells the latest backup (ReportBackups).
	backups func() (LastBackup, bool)
}

// LastBackup is the latest backup, as the backup service knows it.
type LastBackup struct {
	At       time.Time
	Err      error
	Location string
	Bytes    int64
}

// ReportBackups gives the status the latest backup: fn returns it, or false when there is
// none to tell of.
func (e *Engine) ReportBackups(fn func() (LastBackup, bool)) {
	e.ops.mu.Lock()
	e.ops.backups = fn
	e.ops.mu.Unlock()
}

// dayOf is t's UTC day: days since 1970-01-01.
func dayOf(t time.Time) int32 { return int32(t.UTC().Unix() / 86400) }

// dayName is a day as YYYY-MM-DD.
func dayName(day int32) string { return time.Unix(int64(day)*86400, 0).UTC().Format(time.DateOnly) }

// loadActivity reads the members' last active days once.
func (e *Engine) loadActivity() error {
	o := &e.ops
	o.loadOnce.Do(func() {
		last := map[string]int32{}
		o.loadErr = e.db.View(func(r *store.Reader) error {
			return r.ActiveDays(func(member string, day int32) { last[member] = day })
		})
		stored := make(map[string]int32, len(last))
		for id, d := range last {
			stored[id] = d
		}
		o.mu.Lock()
		o.last, o.stored = last, stored
		o.mu.Unlock()
	})
	return o.loadErr
}

// seen notes a member active on day (in memory; flushActivity stores it).
func (e *Engine) seen(member string, day int32) {
	if e.loadActivity() != nil {
		return
	}
	e.ops.mu.Lock()
	if e.ops.last[member] < day {
		e.ops.last[member] = day
	}
	e.ops.mu.Unlock()
}

// streamOpened is presence's word that a member opened a stream.
func (e *Engine) streamOpened(member string) { e.seen(member, dayOf(e.now())) }

// countSent counts a message sent in the change's transaction: its day's counter, and its
// author's active day when the store does not have it yet.
func (tx *Tx) countSent(e *Engine, author string) error {
	day := dayOf(tx.now)
	if err := tx.mutate().AddMessagesOnDay(day, 1); err != nil {
		return err
	}
	if err := e.loadActivity(); err != nil {
		return err
	}
	e.ops.mu.Lock()
	stored := e.ops.stored[author] >= day
	e.ops.mu.Unlock()
	if stored {
		return nil
	}
	if err := tx.mutate().PutActiveDay(author, day); err != nil {
		return err
	}
	tx.afterCommit(func() {
		e.seen(author, day)
		e.ops.mu.Lock()
		e.ops.stored[author] = max(e.ops.stored[author], day)
		e.ops.mu.Unlock()
	})
	return nil
}

// flushActivity stores the active days only known in memory: members with a stream open now
// are active today, and so are those who opened one since the last flush. The minute's jobs
// call it, and Close; a full disk leaves it for a later minute.
func (e *Engine) flushActivity() {
	if e.loadActivity() != nil {
		return
	}
	today := dayOf(e.now())
	for _, id := range e.presence.streaming() {
		e.seen(id, today)
	}
	e.ops.mu.Lock()
	due := map[string]int32{}
	for id, d := range e.ops.last {
		if d > e.ops.stored[id] {
			due[id] = d
		}
	}
	e.ops.mu.Unlock()
	if len(due) == 0 {
		return
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		for id, d := range due {
			if err := tx.mutate().PutActiveDay(id, d); err != nil {
				return struct{}{}, err
			}
		}
		tx.afterCommit(func() {
			e.ops.mu.Lock()
			for id, d := range due {
				e.ops.stored[id] = max(e.ops.stored[id], d)
			}
			e.ops.mu.Unlock()
		})
		return struct{}{}, nil
	})
	if err != nil && CodeOf(err) != CodeUnavailable && err != ErrDiskFull {
		e.log.Error("storing who was active", "err", err)
	}
}

// streaming lists the members with a stream open.
func (p *presence) streaming() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for id, s := range p.members {
		if s.streams > 0 {
			out = append(out, id)
		}
	}
	return out
}

// GetServerStatus is the admins' status screen.
func (e *Engine) GetServerStatus(ctx context.Context, c Caller, req *svcv1.GetServerStatusRequest) (*svcv1.GetServerStatusResponse, error) {
	snap := e.snap.Load()
	if _, err := snap.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "the server's status"); err != nil {
		return nil, err
	}
	days := req.GetDays()
	if days == 0 {
		days = statusDaysDefault
	}
	if days < 1 || days > statusDaysMax {
		return nil, invalid("days is %d; it must be 1 to %d", days, statusDaysMax)
	}
	if err := e.loadActivity(); err != nil {
		return nil, err
	}
	now := e.now()
	today := dayOf(now)
	out := &svcv1.GetServerStatusResponse{
		AtMs:          now.UnixMilli(),
		StartedAtMs:   e.ops.started.UnixMilli(),
		ServerVersion: e.opts.Version,
		ServerTrack:   TrackOf(e.opts.Version),
	}
	if e.opts.Updates != nil {
		out.UpdateAvailable = e.opts.Updates.Newer(out.ServerVersion, out.ServerTrack)
	}

	streaming := map[string]bool{}
	for _, id := range e.presence.streaming() {
		streaming[id] = true
	}
	e.ops.mu.Lock()
	for _, m := range snap.activeMembers() {
		id := m.GetMember().GetId()
		if !joined(m) {
			continue // an import's placeholder: nobody who is here
		}
		if m.GetMember().GetKind() == svcv1.MemberKind_MEMBER_KIND_BOT {
			out.Bots++
			continue
		}
		out.Members++
		last := e.ops.last[id]
		if streaming[id] {
			last = today
		}
		if last == today {
			out.ActiveToday++
		}
		if last > today-7 {
			out.ActiveWeek++
		}
	}
	e.ops.mu.Unlock()

	counts := map[int32]int64{}
	usage, counted := store.Usage{}, false
	err := e.db.View(func(r *store.Reader) error {
		if err := r.MessagesByDay(today-days+1, today, func(day int32, n int64) { counts[day] = n }); err != nil {
			return err
		}
		var err error
		usage, counted, err = r.Usage()
		return err
	})
	if err != nil {
		return nil, err
	}
	for d := today - days + 1; d <= today; d++ {
		out.MessagesPerDay = append(out.MessagesPerDay, &svcv1.DayCount{Day: dayName(d), Messages: counts[d]})
	}
	if !counted {
		if usage, err = e.countUsage(); err != nil {
			return nil, err
		}
	}
	dbBytes, err := e.db.DiskUsage()
	if err != nil {
		lsm, vlog := e.db.Size()
		dbBytes = lsm + vlog
	}
	out.Storage = &svcv1.StorageStatus{
		DatabaseBytes: dbBytes,
		FilesBytes:    usage.FileBytes, Files: usage.Files,
		EmojiBytes: usage.EmojiBytes, Emoji: usage.Emoji,
		PreviewBytes: usage.PreviewBytes, Previews: usage.Previews,
	}

	e.ops.mu.Lock()
	backups := e.ops.backups
	e.ops.mu.Unlock()
	if backups != nil {
		if b, ok := backups(); ok {
			out.LastBackup = &svcv1.BackupStatus{AtMs: b.At.UnixMilli(), Ok: b.Err == nil, Location: b.Location, Bytes: b.Bytes}
			if b.Err != nil {
				out.LastBackup.Error = b.Err.Error()
			}
		}
	}
	out.Disk = &svcv1.DiskStatus{}
	if sp, threshold, ok := e.DiskSpace(); ok {
		out.Disk = &svcv1.DiskStatus{FreeBytes: int64(sp.Free), TotalBytes: int64(sp.Total), FullThresholdBytes: int64(threshold), Full: sp.Free < threshold}
	}
	return out, nil
}

// countUsage counts the bucket's objects from their rows, once per database (store.Usage
// keeps the totals from then on). On a full disk, where the count cannot be stored, it is
// read and not kept.
func (e *Engine) countUsage() (store.Usage, error) {
	u, err := submit(e, func(tx *Tx) (store.Usage, error) { return tx.mutate().CountUsage() })
	if err == nil {
		return u, nil
	}
	err = e.db.View(func(r *store.Reader) error {
		var err error
		u, err = r.ScanUsage()
		return err
	})
	return u, err
}
