// Command hearth-searchbench measures the message index on a large made-up history: the numbers
// of docs/search.md.
//
//	hearth-searchbench gen   -dir /tmp/sb -n 1000000  # the messages, in a Badger database
//	hearth-searchbench build -dir /tmp/sb              # index them (a copy of the database)
//	hearth-searchbench query -dir /tmp/sb              # query latency by kind of query
//
// gen writes DIR/messages; build copies it to DIR/badger/messages and indexes it the way a
// server indexes an old database when it first starts (Index.build), with the lists in
// DIR/badger/index so that their size is theirs alone; query opens that and runs the queries
// through Index.Find, the server's own search (candidates, then each message read and checked).
// Each prints one JSON line. The same tool measured bleve for the comparison (-engine bleve,
// in the history: see docs/search.md).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"
	"google.golang.org/protobuf/proto"

	"hearth/engine/search"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

func main() {
	// As the server's small memory profile does (cmd/hearth/gc.go).
	debug.SetMemoryLimit(384 << 20)
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hearth-searchbench gen|build|query -dir DIR [flags]")
		os.Exit(2)
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	dir := fs.String("dir", "/tmp/searchbench", "working folder")
	n := fs.Int("n", 1_000_000, "gen: messages")
	channels := fs.Int("channels", 100, "gen: channels")
	const engine = "badger"
	perClass := fs.Int("queries", 200, "query: queries of each kind")
	rounds := fs.Int("rounds", 3, "query: times each query runs")
	only := fs.String("only", "", "query: run only the kinds of query named here (comma-separated)")
	fs.Parse(os.Args[2:])
	var out any
	var err error
	switch cmd {
	case "gen":
		out, err = gen(*dir, *n, *channels)
	case "build":
		out, err = build(*dir, engine)
	case "query":
		out, err = queries(*dir, engine, *perClass, *rounds, *only)
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var contentTypes = map[string]string{".pdf": "application/pdf", ".png": "image/png", ".txt": "text/plain", ".zip": "application/zip"}

func channelID(i int) string { return fmt.Sprintf("0190f0b0-0000-7000-8000-%012d", i) }

func gen(dir string, n, channels int) (any, error) {
	db, err := store.Open(filepath.Join(dir, "messages"), store.ProfileSmall, quiet)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	c := newCorpus(1)
	// A year of history, from a year ago: the messages are evenly spread over it, so that
	// before: and after: cut it anywhere.
	start := time.Now().Add(-365 * 24 * time.Hour).UnixMilli()
	spacing := (365 * 24 * time.Hour).Milliseconds() / int64(n)
	// What the filters find besides the text (pins, replies, group mentions) comes from an RNG
	// of its own, so that the texts are those of the corpus before filters existed.
	extra := rand.New(rand.NewPCG(3, 3))
	last := map[string]*svcv1.Message{} // the newest message of each channel
	var textBytes, names int64
	const perTxn = 1000
	for i := 0; i < n; {
		b := db.NewBatch()
		for j := 0; j < perTxn && i < n; j, i = j+1, i+1 {
			seq := int64(i + 1)
			m := &svcv1.Message{
				Id:          uuid.Must(uuid.NewV7()).String(),
				ChannelId:   channelID(c.rng.IntN(channels)),
				AuthorId:    c.members[c.rng.IntN(len(c.members))],
				Text:        c.message(),
				CreatedAtMs: start + seq*spacing,
				Seq:         seq,
				CreatedSeq:  seq,
			}
			if c.rng.IntN(50) == 0 {
				ext := []string{".pdf", ".png", ".txt", ".zip"}[c.rng.IntN(4)]
				name := c.vocab[c.zipf.Uint64()%3000] + "-" + c.vocab[c.zipf.Uint64()] + ext
				m.Attachments = []*svcv1.Attachment{{Id: uuid.NewString(), Name: name, Size: 1000, ContentType: contentTypes[ext]}}
				names += int64(len(name))
			}
			e := &storepb.MessageEntry{MessageId: m.Id, AuthorId: m.AuthorId, CreatedAtMs: m.CreatedAtMs, MentionIds: search.MentionIDs(m.Text)}
			// One message in 2,000 pinned, one in 20 a reply to the channel's newest, one in
			// 500 with a counted <!everyone>.
			if extra.IntN(2000) == 0 {
				m.PinnedAtMs, m.PinnedBy = m.CreatedAtMs, c.members[0]
			}
			if prev := last[m.ChannelId]; prev != nil && extra.IntN(20) == 0 {
				m.ReplyTo = &svcv1.MessageRef{Id: prev.Id, AuthorId: prev.AuthorId, Text: prev.Text}
				if prev.AuthorId != m.AuthorId {
					e.ReplyToAuthorId = prev.AuthorId
				}
			}
			if extra.IntN(500) == 0 {
				m.MentionsEveryone, e.MentionsEveryone = true, true
			}
			last[m.ChannelId] = m
			textBytes += int64(len(m.Text))
			if err := b.AddMessage(m, e); err != nil {
				b.Discard()
				return nil, err
			}
		}
		err := b.Commit()
		b.Discard()
		if err != nil {
			return nil, err
		}
	}
	return map[string]any{"messages": n, "channels": channels, "text_bytes": textBytes, "file_name_bytes": names}, nil
}

// open opens the copy of the messages and the engine's lists.
func open(dir, engine string) (*store.DB, *store.DB, search.Backend, error) {
	db, err := store.Open(filepath.Join(dir, engine, "messages"), store.ProfileSmall, quiet)
	if err != nil {
		return nil, nil, nil, err
	}
	idb, err := store.Open(filepath.Join(dir, engine, "index"), store.ProfileSmall, quiet)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	be, err := search.OpenBadger(idb)
	if err != nil {
		idb.Close()
		db.Close()
		return nil, nil, nil, err
	}
	return db, idb, be, nil
}

func build(dir, engine string) (any, error) {
	if err := os.RemoveAll(filepath.Join(dir, engine)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, engine), 0o755); err != nil {
		return nil, err
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(dir, "messages"), filepath.Join(dir, engine, "messages")).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy: %v: %s", err, out)
	}
	// The send path's share: analyzing each text and encoding its op.
	hot, msgs, err := hotPath(dir, engine)
	if err != nil {
		return nil, err
	}
	db, idb, be, err := open(dir, engine)
	if err != nil {
		return nil, err
	}
	cpu0, wall0 := cpuTime(), time.Now()
	ix, err := search.Open(db, be, search.Options{Log: slog.Default()})
	if err != nil {
		return nil, err
	}
	for !ix.Ready() {
		time.Sleep(50 * time.Millisecond)
	}
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	if err := ix.Close(); err != nil {
		return nil, err
	}
	if idb != nil {
		idb.Close()
	}
	db.Close()
	size, err := dirBytes(filepath.Join(dir, engine, "index"))
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"engine":                  engine,
		"messages":                ix.Built(),
		"build_seconds":           wall.Seconds(),
		"build_cpu_seconds":       cpu.Seconds(),
		"build_cpu_us_per_msg":    float64(cpu.Microseconds()) / float64(ix.Built()),
		"hot_path_us_per_msg":     float64(hot.Nanoseconds()) / 1000 / float64(msgs),
		"index_bytes":             size,
		"max_rss_mb":              maxRSS(),
		"rss_anon_mb_at_the_end":  status("RssAnon:"),
		"load_average_at_the_end": loadAverage(),
	}, nil
}

// hotPath times what SendMessage adds on its own path: the terms of the text and the op.
func hotPath(dir, engine string) (time.Duration, int, error) {
	db, err := store.Open(filepath.Join(dir, engine, "messages"), store.ProfileSmall, quiet)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	var ms []*svcv1.Message
	err = db.View(func(r *store.Reader) error {
		return r.MessagesAfter("", 100_000, func(m *svcv1.Message) error {
			ms = append(ms, m)
			return nil
		})
	})
	if err != nil {
		return 0, 0, err
	}
	start := cpuTime()
	for _, m := range ms {
		if _, err := proto.Marshal(search.AddOp(m)); err != nil {
			return 0, 0, err
		}
	}
	return cpuTime() - start, len(ms), nil
}

type class struct {
	name    string
	queries []string
}

func queries(dir, engine string, perClass, rounds int, only string) (any, error) {
	db, idb, be, err := open(dir, engine)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if idb != nil {
		defer idb.Close()
	}
	ix, err := search.Open(db, be, search.Options{})
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if !ix.Ready() {
		return nil, fmt.Errorf("no index in %s: run build first", filepath.Join(dir, engine))
	}
	classes, err := queryClasses(db, perClass)
	if err != nil {
		return nil, err
	}
	classes = append(classes, filterClasses(perClass)...)
	if only != "" {
		classes = slices.DeleteFunc(classes, func(c class) bool { return !slices.Contains(strings.Split(only, ","), c.name) })
	}
	names := benchNames{}
	// Each query's own CPU time is its thread's: the query runs on this goroutine, locked to
	// its thread, so that the figure leaves out the time the busy machine made it wait.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	all := func(string) bool { return true }
	tenth := map[string]bool{}
	for i := range 10 {
		tenth[channelID(i)] = true
	}
	some := func(ch string) bool { return tenth[ch] }
	res := map[string]any{"engine": engine}
	for _, vis := range []struct {
		name string
		fn   func(string) bool
	}{{"all", all}, {"10ch", some}} {
		for _, c := range classes {
			var lat, cpus []time.Duration
			type timed struct {
				q         string
				wall, cpu time.Duration
			}
			var slow []timed
			found := 0
			cpu0 := cpuTime()
			for range rounds {
				for i, q := range c.queries {
					pq, err := search.Parse(q)
					if err == nil {
						// mentions:me as one of the members, in turn.
						err = pq.Resolve(names, memberID(i%100))
					}
					if err != nil {
						return nil, fmt.Errorf("%q: %v", q, err)
					}
					t0, c0 := time.Now(), threadCPU()
					ms, err := ix.Find(context.Background(), pq, vis.fn, 0, 20)
					lat = append(lat, time.Since(t0))
					cpus = append(cpus, threadCPU()-c0)
					slow = append(slow, timed{q, lat[len(lat)-1], cpus[len(cpus)-1]})
					if err != nil {
						return nil, err
					}
					found += len(ms)
				}
			}
			cpu := cpuTime() - cpu0
			slices.Sort(lat)
			slices.Sort(cpus)
			slices.SortFunc(slow, func(a, b timed) int { return cmp.Compare(b.cpu, a.cpu) })
			var slowest []string
			for _, t := range slow[:min(3, len(slow))] {
				slowest = append(slowest, fmt.Sprintf("%s: %.1f ms CPU, %.1f ms wall", t.q, ms(t.cpu), ms(t.wall)))
			}
			res[c.name+"/"+vis.name] = map[string]any{
				"cpu_ms_per_query": ms(cpu / time.Duration(len(lat))),
				"cpu_p50_ms":       ms(cpus[len(cpus)/2]),
				"cpu_p99_ms":       ms(cpus[len(cpus)*99/100]),
				"slowest_by_cpu":   slowest,
				"p50_ms":           ms(lat[len(lat)/2]),
				"p99_ms":           ms(lat[len(lat)*99/100]),
				"max_ms":           ms(lat[len(lat)-1]),
				"avg_results":      float64(found) / float64(len(lat)),
				"example":          c.queries[0],
			}
		}
	}
	res["rss_mb"] = rss()
	res["rss_anon_mb"] = status("RssAnon:")
	res["rss_file_mb"] = status("RssFile:")
	res["max_rss_mb"] = maxRSS()
	res["load_average_at_the_end"] = loadAverage()
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// queryClasses picks the queries: common words, rare words, prefixes, phrases out of real
// messages, and CJK words.
func queryClasses(db *store.DB, per int) ([]class, error) {
	c := newCorpus(1)
	rng := rand.New(rand.NewPCG(7, 7))
	var common, rare, prefix, phrase, cjk []string
	for range per {
		common = append(common, english[rng.IntN(40)])
		if rng.IntN(2) == 0 {
			common[len(common)-1] += " " + english[rng.IntN(120)]
		}
		rare = append(rare, c.vocab[5000+rng.IntN(50_000)])
		w := c.vocab[50+rng.IntN(3000)]
		p := w[:min(len(w), 3+rng.IntN(2))]
		if rng.IntN(2) == 0 {
			p = english[rng.IntN(60)] + " " + p
		}
		prefix = append(prefix, p)
		cjk = append(cjk, []string{japanese[rng.IntN(len(japanese))], chinese[rng.IntN(len(chinese))], korean[rng.IntN(len(korean))]}[rng.IntN(3)])
	}
	// Phrases: two or three neighbouring words of messages picked at random.
	err := db.View(func(r *store.Reader) error {
		return r.MessagesAfter("", 200_000, func(m *svcv1.Message) error {
			if len(phrase) >= per || rng.IntN(200) != 0 {
				return nil
			}
			ws := strings.Fields(m.GetText())
			if len(ws) < 4 {
				return nil
			}
			i := rng.IntN(len(ws) - 3)
			k := 2 + rng.IntN(2)
			if q := strings.Join(ws[i:i+k], " "); search.Terms(q, nil) != nil {
				phrase = append(phrase, `"`+q+`"`)
			}
			return nil
		})
	})
	return []class{{"common", common}, {"rare", rare}, {"prefix", prefix}, {"phrase", phrase}, {"cjk", cjk}}, err
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPU is the CPU time of the calling thread, to the nanosecond (getrusage counts in
// scheduler ticks, 4 ms here).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

func maxRSS() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024
}

func rss() float64 { return status("VmRSS:") }

// status reads a memory figure of /proc/self/status, in MB.
func status(field string) float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field) {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(l[len(field):]), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// dirBytes adds up the sizes of the files under dir, leaving out Badger's memtable logs and
// discard stats, which are allocated at a fixed size up front and hold no index data.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() && !strings.HasSuffix(p, ".mem") && filepath.Base(p) != "DISCARD" {
			n += fi.Size()
		}
		return nil
	})
	return n, err
}
