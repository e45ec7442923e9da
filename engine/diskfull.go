package engine

import (
	"hearth/engine/diskspace"
)

// A full disk (EXTENSIONS.md, Operations): before the data disk is full, every change is
// refused with ErrDiskFull, and so are uploads before they write a byte. Reads, streams and
// sign-in keep working; Healthy says why the server is unwell; once space is freed, the next
// change goes through. The guard (engine/diskspace) reads the free space before each batch of
// the writer: Badger writes only when the writer commits (and when it compacts or collects
// what the writer's commits left, which store holds back on a full disk as well), so no
// batch begins with the disk at its end.

// ErrDiskFull refuses a change or an upload while the server's disk is full.
var ErrDiskFull = &Error{Code: CodeResourceExhausted, Msg: "the server's disk is full"}

// diskRoom returns ErrDiskFull while the data disk is full.
func (e *Engine) diskRoom() error {
	if e.opts.Disk == nil {
		return nil
	}
	if e.opts.Disk.Check() != nil {
		return ErrDiskFull
	}
	return nil
}

// diskFull reports whether the data disk is full now, without logging or counting it.
func (e *Engine) diskFull() bool {
	if e.opts.Disk == nil {
		return false
	}
	full, _, _ := e.opts.Disk.Full()
	return full
}

// diskHealth is Healthy's say: the disk is full, with how full, or nil.
func (e *Engine) diskHealth() error {
	if e.opts.Disk == nil {
		return nil
	}
	full, sp, err := e.opts.Disk.Full()
	if err != nil || !full {
		return nil
	}
	return &Error{Code: CodeResourceExhausted, Msg: (&diskspace.FullError{Free: sp.Free, Threshold: e.opts.Disk.Threshold(sp.Total)}).Error()}
}

// DiskSpace is the data disk's space and the free space below which it counts as full; ok is
// false when the server has no guard or cannot read the disk.
func (e *Engine) DiskSpace() (sp diskspace.Space, threshold uint64, ok bool) {
	if e.opts.Disk == nil {
		return sp, 0, false
	}
	sp, err := e.opts.Disk.Space()
	if err != nil {
		return sp, 0, false
	}
	return sp, e.opts.Disk.Threshold(sp.Total), true
}
