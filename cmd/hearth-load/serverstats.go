package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serverSample is the server's memory and goroutines at one moment of the run; zero where the
// tool had no way to see them (neither -metrics-url nor -pid).
type serverSample struct {
	RSSBytes   int64  `json:"rss_bytes,omitempty"`
	Goroutines int64  `json:"goroutines,omitempty"`
	HeapBytes  int64  `json:"heap_inuse_bytes,omitempty"`
	Err        string `json:"error,omitempty"`
}

// watcher takes server samples from the server's /metrics and, when given, /proc/<pid>.
type watcher struct {
	metricsURL string
	pid        int
	client     *http.Client
}

func (w watcher) enabled() bool { return w.metricsURL != "" || w.pid > 0 }

func (w watcher) sample(ctx context.Context) serverSample {
	var s serverSample
	var errs []string
	if w.metricsURL != "" {
		vals, err := w.scrape(ctx)
		if err != nil {
			errs = append(errs, err.Error())
		}
		s.RSSBytes = int64(vals["process_resident_memory_bytes"])
		s.Goroutines = int64(vals["go_goroutines"])
		s.HeapBytes = int64(vals["go_memstats_heap_inuse_bytes"])
	}
	if w.pid > 0 {
		rss, err := procRSS(w.pid)
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			s.RSSBytes = rss
		}
	}
	s.Err = strings.Join(errs, "; ")
	return s
}

func (w watcher) scrape(ctx context.Context) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.metricsURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: %s", resp.Status)
	}
	return parseMetrics(resp.Body, "process_resident_memory_bytes", "go_goroutines", "go_memstats_heap_inuse_bytes")
}

// parseMetrics reads the unlabelled samples of the named metrics from the Prometheus text
// format.
func parseMetrics(r io.Reader, names ...string) (map[string]float64, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok || !want[name] {
			continue
		}
		// A sample may end with a timestamp: the value is the first field.
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: %s: %v", name, err)
		}
		out[name] = v
	}
	return out, sc.Err()
}

// procRSS reads VmRSS from /proc/<pid>/status.
func procRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseVmRSS(f)
}

func parseVmRSS(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) != 2 || f[1] != "kB" {
				return 0, fmt.Errorf("unexpected VmRSS line %q", sc.Text())
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmRSS in /proc status")
}

// cpuSeconds is the server's CPU time so far (user and system), from /proc/<pid>/stat when the
// tool has the pid, else from the metrics' process_cpu_seconds_total; ok false when neither.
func (w watcher) cpuSeconds(ctx context.Context) (float64, bool) {
	if w.pid > 0 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", w.pid))
		if err == nil {
			if s, err := parseProcStatCPU(string(b)); err == nil {
				return s, true
			}
		}
	}
	if w.metricsURL != "" {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.metricsURL, nil)
		if err != nil {
			return 0, false
		}
		resp, err := w.client.Do(req)
		if err != nil {
			return 0, false
		}
		defer resp.Body.Close()
		vals, err := parseMetrics(resp.Body, "process_cpu_seconds_total")
		if v, ok := vals["process_cpu_seconds_total"]; err == nil && ok {
			return v, true
		}
	}
	return 0, false
}

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on every Linux
// architecture Go runs on.
const clockTicks = 100

// parseProcStatCPU reads utime + stime from a /proc/<pid>/stat line. The command name (field
// 2) is in parentheses and may hold spaces, so fields are counted from the last ')'.
func parseProcStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc stat %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	// After the name: state (3), ... utime (14), stime (15): indexes 11 and 12.
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc stat %q", stat)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc stat %q", stat)
	}
	return float64(u+s) / clockTicks, nil
}

// ownCPUSeconds is the tool's own CPU time so far (user and system).
func ownCPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
