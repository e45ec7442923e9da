package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
)

// releaseStartPages gives back the pages of the executable that only the start used, as a
// kernel frees its init sections once it has booted.
//
// Go runs every package's initialiser before main: close to 400 in this binary, spread
// through its 23 MB of code and 26 MB of read-only data and function tables. The kernel maps
// each page they touch together with the 64 KB around it (fault-around), so a server that
// has just started holds some 24 MB of its executable's pages that it does not touch again:
// it idles at 38 MB RSS without this call and at 15-21 MB with it (docs/performance.md,
// "Round three on a new machine").
//
// Those are clean pages of the file. MADV_DONTNEED unmaps them from this process and leaves
// them in the page cache, where the kernel may reclaim them; a page the server does use again
// is mapped back on its next touch, a minor fault that reads nothing from disk while the file
// is cached. Only mappings of the executable that are not writable and hold no private copy
// of a page (smaps' Anonymous) are released: dropping a private copy would lose what was
// written to it, such as a position-independent build's relocated read-only data.
//
// It returns how much of the executable was resident before.
func releaseStartPages() (int64, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	spans, resident, err := startPages(f, reflect.ValueOf(releaseStartPages).Pointer())
	f.Close()
	if err != nil {
		return 0, err
	}
	for _, s := range spans {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, s.lo, s.hi-s.lo, syscall.MADV_DONTNEED); errno != 0 {
			return resident, fmt.Errorf("madvise %#x-%#x: %w", s.lo, s.hi, errno)
		}
	}
	return resident, nil
}

// span is a mapping's address range.
type span struct{ lo, hi uintptr }

// mapping is what startPages reads of one mapping in smaps.
type mapping struct {
	span
	perms     string
	file      string // device and inode: "fd:01 1234"
	rss       int64
	anonymous int64
}

// startPages reads /proc/self/smaps and returns the mappings releaseStartPages may release,
// and how many bytes of them are resident: the mappings of the file that holds the code at
// pc (the executable: a mapping is known by its device and inode as the kernel writes them,
// which a stat of the file's path may not give under overlay file systems), read-only or read
// and execute, private, with no page of their own (Anonymous: 0 kB).
func startPages(smaps io.Reader, pc uintptr) ([]span, int64, error) {
	var maps []mapping
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := addressRange(fields[0]); ok {
			// lo-hi perms offset dev inode [path]
			m := mapping{span: span{lo, hi}, anonymous: -1}
			if len(fields) >= 5 && fields[4] != "0" {
				m.perms, m.file = fields[1], fields[3]+" "+fields[4]
			}
			maps = append(maps, m)
			continue
		}
		if len(maps) == 0 || len(fields) < 2 {
			continue
		}
		switch m := &maps[len(maps)-1]; fields[0] {
		case "Rss:":
			m.rss = kilobytes(fields[1])
		case "Anonymous:":
			m.anonymous = kilobytes(fields[1])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	exe := ""
	for _, m := range maps {
		if m.lo <= pc && pc < m.hi {
			exe = m.file
		}
	}
	var (
		spans    []span
		resident int64
	)
	for _, m := range maps {
		if exe != "" && m.file == exe && (m.perms == "r--p" || m.perms == "r-xp") && m.anonymous == 0 {
			spans = append(spans, m.span)
			resident += max(m.rss, 0)
		}
	}
	return spans, resident, nil
}

// addressRange parses smaps' "lo-hi" field of a mapping's first line.
func addressRange(s string) (lo, hi uintptr, ok bool) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(a, 16, 64)
	h, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil || h <= l {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}

// kilobytes parses a smaps size ("1234" of "1234 kB") into bytes; an unreadable size is
// taken as -1, which keeps a mapping whose Anonymous cannot be read from being released.
func kilobytes(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n << 10
}
