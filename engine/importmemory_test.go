package engine

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	svcv1 "hearth/proto/svc/v1"
)

// heapPeak samples the Go heap while an import runs: the most that was live after a
// collection (what the server holds) and the most the heap took from the system for objects
// (HeapInuse: what it held, garbage not yet collected included).
type heapPeak struct {
	stop      chan struct{}
	done      sync.WaitGroup
	live, use uint64
	// profile, when set, is written with a heap profile at each new peak of live bytes.
	profile  string
	profiled uint64
}

func watchHeap(profile string) *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), profile: profile}
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	read := func() {
		metrics.Read(samples)
		h.live = max(h.live, samples[0].Value.Uint64())
		h.use = max(h.use, samples[1].Value.Uint64()+samples[2].Value.Uint64())
		if h.profile != "" && h.live > h.profiled+h.profiled/10 {
			h.profiled = h.live
			runtime.GC() // the profile shows the heap as of the last collection
			if f, err := os.Create(h.profile); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
				read()
			}
		}
	}()
	return h
}

func (h *heapPeak) end() {
	close(h.stop)
	h.done.Wait()
}

// importGenerated imports n messages into a new channel of c, as `hearth import discord` sends
// TestImportSpeed's generated export: batches of 1,000, 50 authors, every tenth message
// edited and every fifth reacted to.
func importGenerated(t *testing.T, c *testCommunity, n int) {
	t.Helper()
	ctx := context.Background()
	var people []ImportPerson
	for u := range 50 {
		people = append(people, ImportPerson{Key: "gen/user/" + strconv.Itoa(u), Username: "user" + strconv.Itoa(u), DisplayName: "User " + strconv.Itoa(u)})
	}
	ids, err := c.e.ImportPeople(ctx, people)
	if err != nil {
		t.Fatal(err)
	}
	key := "gen/channel/" + strconv.Itoa(n)
	if _, err := c.e.ImportChannel(ctx, ImportChannel{Key: key, Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Name: "big-" + strconv.Itoa(n)}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]ImportMessage, 0, ImportBatchMax)
	for i := range n {
		at := start.Add(time.Duration(i) * time.Second).UnixMilli()
		m := ImportMessage{
			Key:         fmt.Sprintf("gen/message/%d/%d", n, i),
			AuthorID:    ids["gen/user/"+strconv.Itoa(i%50)],
			Text:        fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog %d times", i, i%97),
			CreatedAtMs: at,
		}
		if i%10 == 0 {
			m.EditedAtMs = at + 60_000
		}
		if i%5 == 0 {
			m.Reactions = []*svcv1.Reaction{{Emoji: "👍", MemberIds: []string{ids["gen/user/"+strconv.Itoa((i+1)%50)]}}}
		}
		batch = append(batch, m)
		if len(batch) == cap(batch) || i == n-1 {
			res, err := c.e.ImportMessages(ctx, key, batch)
			if err != nil {
				t.Fatal(err)
			}
			if res.Added != len(batch) {
				t.Fatalf("batch at %d: %+v", i, res)
			}
			batch = batch[:0]
		}
	}
	if err := c.e.FinishImport(ctx, key); err != nil {
		t.Fatal(err)
	}
}

// TestImportHeapProbe imports HEARTH_IMPORT_PROBE messages in the engine and reports the heap's
// peak: a tool for docs/performance.md, skipped unless the variable is set.
func TestImportHeapProbe(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HEARTH_IMPORT_PROBE"))
	if n <= 0 {
		t.Skip("set HEARTH_IMPORT_PROBE to the number of messages to import")
	}
	c := openTestCommunity(t)
	runtime.GC()
	h := watchHeap(os.Getenv("HEARTH_IMPORT_PROBE_PROFILE"))
	began := time.Now()
	importGenerated(t, c, n)
	h.end()
	du, _ := c.db.DiskUsage()
	t.Logf("%d messages in %s: heap peak live %d MB, in use %d MB; database %d MB on disk", n, time.Since(began).Round(time.Second), h.live>>20, h.use>>20, du>>20)
}

// importHeapCap bounds the live heap at its peak while an import runs in the small profile,
// the engine and the database together: what an import holds is a batch of messages, the
// index's backlog of ops (indexBacklogMax) and Badger's memtables and table buffers
// (store.smallMemTable), none of which grows with the history. Measured: 69 MB for 50,000 and
// 126-160 MB for 200,000 messages; with the small profile's earlier Badger options (compressed
// tables, doubling in size at each level) 140 MB for 50,000 and 320-410 MB for 200,000.
const importHeapCap = 224 << 20

// TestImportMemoryStaysBounded imports 50,000 messages and then 200,000 more into the same
// database and checks the live heap's peak during each: under importHeapCap both times, and not
// grown with the import's size (four times the messages, into a database five times the size).
// It takes about a minute on two cores, many under the race detector, so CI runs it on its own
// without it (.ci/run).
func TestImportMemoryStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a quarter of a million messages")
	}
	if raceDetector {
		t.Skip("imports a quarter of a million messages: run without -race (.ci/run does)")
	}
	c := openTestCommunity(t)
	var peaks []uint64
	for _, n := range []int{50_000, 200_000} {
		runtime.GC()
		h := watchHeap("")
		importGenerated(t, c, n)
		h.end()
		t.Logf("%d messages: the live heap's peak %d MB (the heap in use at most %d MB)", n, h.live>>20, h.use>>20)
		if h.live > importHeapCap {
			t.Errorf("importing %d messages took the live heap to %d MB; the bound is %d MB", n, h.live>>20, importHeapCap>>20)
		}
		peaks = append(peaks, h.live)
	}
	if peaks[1] > 3*peaks[0] {
		t.Errorf("the heap's peak grew from %d MB to %d MB with four times the messages", peaks[0]>>20, peaks[1]>>20)
	}
}
