package diskspace

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"
)

func TestThresholdIsTheLargerOf64MiBAndOnePercent(t *testing.T) {
	g := New(t.TempDir(), Options{})
	for _, tc := range []struct{ total, want uint64 }{
		{1 << 30, 64 << 20},                 // 1 GiB: 1% is 10 MiB, 64 MiB counts
		{100 << 30, (100 << 30) / 100},      // 100 GiB: 1% is 1 GiB
		{6400 << 20, 64 << 20},              // exactly where they meet
		{40 << 20, 64 << 20},                // a disk smaller than the margin is always full
		{0, 64 << 20},                       // a file system that says nothing
		{1 << 40, (1 << 40) / minFreeShare}, // 1 TiB
	} {
		if got := g.Threshold(tc.total); got != tc.want {
			t.Errorf("Threshold(%d) = %d, want %d", tc.total, got, tc.want)
		}
	}
	if got := New(t.TempDir(), Options{MinFree: 8 << 20}).Threshold(100 << 30); got != 8<<20 {
		t.Errorf("with MinFree 8 MiB the threshold is %d", got)
	}
}

// fakeDisk is a file system whose free space the test sets.
type fakeDisk struct {
	sp  Space
	err error
}

func (d *fakeDisk) statfs(string) (Space, error) { return d.sp, d.err }

func TestCheckRefusesBelowTheThresholdAndLogsOnceAMinute(t *testing.T) {
	var logs bytes.Buffer
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	disk := &fakeDisk{sp: Space{Free: 100 << 20, Total: 1 << 30}}
	g := New("/data", Options{
		Statfs: disk.statfs,
		Log:    slog.New(slog.NewTextHandler(&logs, nil)),
		Now:    func() time.Time { return now },
	})
	if err := g.Check(); err != nil {
		t.Fatalf("100 MiB free of 1 GiB: %v", err)
	}
	disk.sp.Free = 64<<20 - 1
	err := g.Check()
	var fe *FullError
	if !errors.Is(err, ErrFull) || !errors.As(err, &fe) || fe.Free != 64<<20-1 || fe.Threshold != 64<<20 {
		t.Fatalf("one byte under 64 MiB: %v", err)
	}
	if want := "the server's disk is full: 64.0 MiB free, the server keeps at least 64.0 MiB"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	for range 5 {
		now = now.Add(10 * time.Second)
		g.Check()
	}
	if n := strings.Count(logs.String(), "the data disk is full"); n != 1 {
		t.Fatalf("%d lines within a minute, want 1:\n%s", n, logs.String())
	}
	now = now.Add(15 * time.Second) // 65 s after the first line
	g.Check()
	if n := strings.Count(logs.String(), "the data disk is full"); n != 2 {
		t.Fatalf("%d lines after a minute, want 2:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "refused=6") {
		t.Errorf("the second line does not count the 6 refusals since the first:\n%s", logs.String())
	}
	if full, sp, err := g.Full(); !full || sp.Free != 64<<20-1 || err != nil {
		t.Errorf("Full() = %v, %v, %v", full, sp, err)
	}
	disk.sp.Free = 64 << 20
	if err := g.Check(); err != nil {
		t.Fatalf("back at 64 MiB: %v", err)
	}
	if !strings.Contains(logs.String(), "the data disk has room again") {
		t.Errorf("no line when space came back:\n%s", logs.String())
	}
	if full, _, _ := g.Full(); full {
		t.Error("Full() after space came back")
	}
	// Full again: a line at once, not a minute after the previous one.
	disk.sp.Free = 1 << 20
	g.Check()
	if n := strings.Count(logs.String(), "the data disk is full"); n != 3 {
		t.Fatalf("%d lines after filling again, want 3:\n%s", n, logs.String())
	}
}

func TestCheckLetsWritesThroughWhenTheDiskCannotBeRead(t *testing.T) {
	var logs bytes.Buffer
	disk := &fakeDisk{err: errors.New("no such file system")}
	g := New("/data", Options{Statfs: disk.statfs, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	for range 3 {
		if err := g.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), "cannot read the free space"); n != 1 {
		t.Errorf("%d lines, want 1:\n%s", n, logs.String())
	}
}

func TestStatfsReadsTheRealDisk(t *testing.T) {
	sp, err := New(os.TempDir(), Options{}).Space()
	if err != nil {
		t.Skipf("this system has no statfs here: %v", err)
	}
	if sp.Total == 0 || sp.Free > sp.Total {
		t.Errorf("implausible space %+v", sp)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 64 << 20: "64.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
