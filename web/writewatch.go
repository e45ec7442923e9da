package web

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// writeWatch bounds the writes of the Subscribe streams: a write (a batch of events, one
// flush) that has not finished writeTimeout after it began is cut off, by a write deadline in
// the past (http.ResponseController.SetWriteDeadline): over HTTP/1 the connection's blocked
// write fails, over HTTP/2 the stream is reset. One goroutine looks at the streams' writes a
// few times per timeout, while there are streams; a write itself only notes when it began and
// ended. A deadline set and cleared around each write would cost every event two messages to
// the HTTP/2 connection's goroutine and a timer, and a deadline left set would reset an idle
// stream.
type writeWatch struct {
	timeout time.Duration

	mu      sync.Mutex
	writes  map[*watchedWrites]struct{}
	running bool
}

// watchedWrites is one stream's writes.
type watchedWrites struct {
	// since is when the write in progress began (Unix nanoseconds), 0 between writes.
	since atomic.Int64
	// cut: the watch cut a write off.
	cut atomic.Bool
	// mu is held while the watch cuts a write off, and by unwatch: once unwatch returns, the
	// watch touches the response no more (its handler may return).
	mu      sync.Mutex
	rc      *http.ResponseController
	watched bool
}

// watch starts watching the writes to rc.
func (ww *writeWatch) watch(rc *http.ResponseController) *watchedWrites {
	w := &watchedWrites{rc: rc, watched: true}
	ww.mu.Lock()
	defer ww.mu.Unlock()
	if ww.writes == nil {
		ww.writes = map[*watchedWrites]struct{}{}
	}
	ww.writes[w] = struct{}{}
	if !ww.running {
		ww.running = true
		go ww.run()
	}
	return w
}

// unwatch stops watching w.
func (ww *writeWatch) unwatch(w *watchedWrites) {
	w.mu.Lock()
	w.watched = false
	w.mu.Unlock()
	ww.mu.Lock()
	delete(ww.writes, w)
	ww.mu.Unlock()
}

// begin and end bracket a write.
func (w *watchedWrites) begin() { w.since.Store(time.Now().UnixNano()) }
func (w *watchedWrites) end()   { w.since.Store(0) }

// run looks at the writes every quarter of the timeout, until there are none to watch: a write
// is cut off between one and one and a quarter timeouts after it began.
func (ww *writeWatch) run() {
	tick := time.NewTicker(max(ww.timeout/4, time.Millisecond))
	defer tick.Stop()
	var late []*watchedWrites
	for now := range tick.C {
		ww.mu.Lock()
		if len(ww.writes) == 0 {
			ww.running = false
			ww.mu.Unlock()
			return
		}
		for w := range ww.writes {
			if since := w.since.Load(); since != 0 && now.UnixNano()-since >= int64(ww.timeout) {
				late = append(late, w)
			}
		}
		ww.mu.Unlock()
		for _, w := range late {
			w.cutOff()
		}
		clear(late)
		late = late[:0]
	}
}

// cutOff fails the write in progress now.
func (w *watchedWrites) cutOff() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched && w.since.Load() != 0 {
		w.cut.Store(true)
		w.rc.SetWriteDeadline(time.Now())
	}
}
