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
