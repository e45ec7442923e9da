package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// downloadTimes bound a backup's download over http(s) (hearth restore URL). A backup may be
// large and a link slow, so the whole download has no deadline and no size bound; what may not
// happen is a server that stops answering holding the restore forever: connecting, the TLS
// handshake and the response's headers each have a deadline, and the body must keep moving
// (some bytes in every stall window).
type downloadTimes struct {
	connect, handshake, header, stall time.Duration
}

var restoreDownload = downloadTimes{
	connect:   30 * time.Second,
	handshake: 30 * time.Second,
	header:    time.Minute,
	stall:     2 * time.Minute,
}

// errDownloadStalled is how a body that stopped moving ends.
type errDownloadStalled struct {
	url   string // redacted
	after time.Duration
}

func (e errDownloadStalled) Error() string {
	return fmt.Sprintf("%s stalled: nothing arrived for %s", e.url, e.after)
}

// get opens src (an http or https URL) for reading, under t's deadlines.
func (t downloadTimes) get(ctx context.Context, src string) (io.ReadCloser, error) {
	u, err := url.Parse(src)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: t.connect, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   t.handshake,
		ResponseHeaderTimeout: t.header,
		ForceAttemptHTTP2:     true,
	}
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		tr.CloseIdleConnections()
		// The URL's password, if any, stays out of the message.
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = u.Redacted()
		}
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("GET %s: %s", u.Redacted(), resp.Status)
	}
	b := &movingBody{body: resp.Body, url: u.Redacted(), stall: t.stall, cancel: cancel, tr: tr}
	b.watch = time.AfterFunc(t.stall, b.stalled)
	return b, nil
}

// movingBody is a download's body that fails when nothing arrives for stall: its watch runs
// while a read waits on the server, and when it fires the request is cancelled,
// which also ends a read blocked on the silent server.
type movingBody struct {
	body   io.ReadCloser
	url    string
	stall  time.Duration
	cancel context.CancelFunc
	tr     *http.Transport
	watch  *time.Timer

	mu    sync.Mutex
	timed bool // the watch fired
}

func (b *movingBody) stalled() {
	b.mu.Lock()
	b.timed = true
	b.mu.Unlock()
	b.cancel()
}

// Read gives the server b.stall to send something. The watch runs only while Read waits on
// it: the time the restore spends writing what it read is not the server's.
func (b *movingBody) Read(p []byte) (int, error) {
	b.watch.Reset(b.stall)
	n, err := b.body.Read(p)
	b.watch.Stop()
	b.mu.Lock()
	timed := b.timed
	b.mu.Unlock()
	if timed {
		return n, errDownloadStalled{b.url, b.stall}
	}
	return n, err
}

func (b *movingBody) Close() error {
	b.watch.Stop()
	err := b.body.Close()
	b.cancel()
	b.tr.CloseIdleConnections()
	return err
}
