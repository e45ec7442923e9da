package main

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// A smaps as the kernel writes it, cut to the fields startPages reads: the executable
// (inode 1234, its code holding pc 0x401234) has code, read-only data with no private page,
// read-only data with one (as a position-independent build's relocated data is), and its
// writable data; libc's code has another inode.
const smapsSample = `00400000-01aad000 r-xp 00000000 fd:01 1234                               /srv/hearth
Size:              23220 kB
Rss:               14896 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
01aad000-03426000 r--p 016ad000 fd:01 1234                               /srv/hearth
Size:              26084 kB
Rss:               14692 kB
Anonymous:             0 kB
VmFlags: rd mr mw me
03426000-03430000 r--p 03026000 fd:01 1234                               /srv/hearth (deleted)
Size:                 40 kB
Rss:                  40 kB
Anonymous:             4 kB
VmFlags: rd mr mw me
03430000-03cf2000 rw-p 03030000 fd:01 1234                               /srv/hearth
Size:               8968 kB
Rss:                 880 kB
Anonymous:           120 kB
VmFlags: rd wr mr mw me ac
7f5da281b000-7f5da2971000 r-xp 00026000 fd:01 99                         /usr/lib/x86_64-linux-gnu/libc.so.6
Size:               1368 kB
Rss:                 916 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
7fff57bd9000-7fff57bfa000 rw-p 00000000 00:00 0                          [stack]
Size:                132 kB
Rss:                  20 kB
Anonymous:            20 kB
VmFlags: rd wr mr mw me gd ac
`

func TestStartPagesAreTheExecutablesCleanReadOnlyMappings(t *testing.T) {
	spans, resident, err := startPages(strings.NewReader(smapsSample), 0x00401234)
	if err != nil {
		t.Fatal(err)
	}
	want := []span{{0x00400000, 0x01aad000}, {0x01aad000, 0x03426000}}
	if len(spans) != len(want) || spans[0] != want[0] || spans[1] != want[1] {
		t.Fatalf("spans = %#v, want %#v", spans, want)
	}
	if resident != (14896+14692)<<10 {
		t.Errorf("resident = %d, want %d", resident, (14896+14692)<<10)
	}
	// Code outside any file's mapping (none holds pc) releases nothing.
	if spans, _, _ := startPages(strings.NewReader(smapsSample), 0x7fff57bd9100); len(spans) != 0 {
		t.Errorf("pc in the stack: spans = %#v, want none", spans)
	}
}

// The test binary is this package linked with everything the server links: once its start's
// pages are released, most of what was resident of it is no longer, and it goes on running
// (the code it runs next is mapped back as it runs).
func TestReleaseStartPagesGivesBackTheExecutablesPages(t *testing.T) {
	before := executableResident(t)
	released, err := releaseStartPages()
	if err != nil {
		t.Fatal(err)
	}
	after := executableResident(t)
	t.Logf("resident of the executable: %d KB before, %d KB after (%d KB released)", before>>10, after>>10, released>>10)
	if released < before/2 {
		t.Errorf("released %d of %d bytes resident", released, before)
	}
	if after >= before/2 {
		t.Errorf("resident after: %d bytes, before: %d", after, before)
	}
}

// executableResident is how much of the test binary's clean read-only mappings is resident.
func executableResident(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, resident, err := startPages(f, reflect.ValueOf(executableResident).Pointer())
	if err != nil {
		t.Fatal(err)
	}
	return resident
}
