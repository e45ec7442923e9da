package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/semver"
)

// updateFeed answers GetMe.update_available from -update-feed: a JSON object with a list of
// released versions per track, e.g.
//
//	{"stable": ["1.4.2", "1.4.1"], "beta": ["1.5.0-beta.2"], "nightly": ["nightly-2026-11-20"]}
//
// It fetches the feed when the server starts and then once a day; it never calls out without
// -update-feed.
type updateFeed struct {
	url    string
	client *http.Client
	log    *slog.Logger

	mu       sync.Mutex
	releases map[string][]string
}

const feedMaxBytes = 1 << 20

func newUpdateFeed(ctx context.Context, url string, client *http.Client, log *slog.Logger) *updateFeed {
	f := &updateFeed{url: url, client: client, log: log}
	go f.poll(ctx)
	return f
}

func (f *updateFeed) poll(ctx context.Context) {
	t := time.NewTicker(24 * time.Hour)
	defer t.Stop()
	for {
		if err := f.fetch(ctx); err != nil && ctx.Err() == nil {
			f.log.Warn("update feed", "url", f.url, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (f *updateFeed) fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", resp.Status)
	}
	var releases map[string][]string
	if err := json.NewDecoder(io.LimitReader(resp.Body, feedMaxBytes)).Decode(&releases); err != nil {
		return fmt.Errorf("the feed is not a JSON object of version lists: %v", err)
	}
	f.mu.Lock()
	f.releases = releases
	f.mu.Unlock()
	return nil
}

// Newer returns the newest release on track that is newer than current, or "".
func (f *updateFeed) Newer(current, track string) string {
	f.mu.Lock()
	list := f.releases[track]
	f.mu.Unlock()
	best := ""
	for _, v := range list {
		if newerVersion(v, current) && (best == "" || newerVersion(v, best)) {
			best = v
		}
	}
	return best
}

// newerVersion compares two versions of one track: release numbers by semantic versioning,
// nightly builds by their date; a development build ("dev") is older than any release.
func newerVersion(a, b string) bool {
	if b == "dev" {
		return a != "dev"
	}
	if strings.Contains(a, "nightly") || strings.Contains(b, "nightly") {
		return a > b
	}
	va, vb := "v"+strings.TrimPrefix(a, "v"), "v"+strings.TrimPrefix(b, "v")
	if !semver.IsValid(va) {
		return false
	}
	if !semver.IsValid(vb) {
		return true
	}
	return semver.Compare(va, vb) > 0
}
