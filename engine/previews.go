package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"hearth/engine/outbound"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Link previews. GetLinkPreviews answers from a cache in the database, and fetches the
// links it has no fresh answer for, outside the writer: the page through the outbound
// client under the preview policy, its tags read in the sandbox, its image fetched the same
// way, sniffed in the sandbox and stored in the bucket under previews/ (the server serves it;
// a client never loads it from the page's site). Each URL is fetched at most once a day:
// a preview is cached for a day, a failure (of any kind: refused, slow, not HTML, no tags)
// for an hour. Concurrent requests for one URL share one fetch. The cache and its images
// are removed when they expire, by the jobs loop.

const (
	previewTTL     = 24 * time.Hour
	previewFailTTL = time.Hour
	// previewBurst new fetches at once, then one a second: 60 a minute per member
	// (DECISIONS.md). Only links without a fresh cached answer count.
	previewBurst = 60
	// previewFetchTimeout bounds each request of a preview, the page's and the image's
	// (5 s each).
	previewFetchTimeout = 5 * time.Second
	// previewRedirects is how many redirects a preview request follows, each checked again.
	previewRedirects = 5
	// previewFetches bounds the previews being fetched at once, all members together; more
	// wait for a turn. previewParses bounds the pages read in the sandbox at once: a hostile
	// page can keep a guest busy for its whole time limit.
	previewFetches = 8
	previewParses  = 1
)

var previewRate = rate.Every(time.Second)

// previewer is the engine's fetching side of link previews.
type previewer struct {
	client *outbound.Client
	fetch  chan struct{} // a token per fetch in progress
	parse  chan struct{} // a token per page in the sandbox

	mu       sync.Mutex
	closed   bool
	inflight map[store.URLHash]*previewCall
	running  sync.WaitGroup
}

// previewCall is one fetch, which every request for its URL waits for.
type previewCall struct {
	done    chan struct{}
	rec     *storepb.PreviewRecord // set before done is closed
	err     error
	waiters int // callers waiting for it; guarded by previewer.mu
}

func newPreviewer(opts Options) *previewer {
	return &previewer{
		client: outbound.New(outbound.Options{
			Policy:       opts.PreviewPolicy,
			Timeout:      opts.PreviewTimeout,
			MaxRedirects: previewRedirects,
			MaxBody:      previewImageBytes,
			UserAgent:    outbound.UserAgent(opts.Version),
		}),
		fetch:    make(chan struct{}, previewFetches),
		parse:    make(chan struct{}, previewParses),
		inflight: map[store.URLHash]*previewCall{},
	}
}

// close stops new fetches and waits for those in progress, which the engine's context,
// canceled first, cuts short.
func (p *previewer) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.running.Wait()
}

// GetLinkPreviews returns the previews of a message's links (API.md): the first 5 distinct
// http(s) links of its text, in order, those without a preview left out. Nothing is fetched
// for a caller who cannot see the message.
func (e *Engine) GetLinkPreviews(ctx context.Context, c Caller, req *svcv1.GetLinkPreviewsRequest) (*svcv1.GetLinkPreviewsResponse, error) {
	if e.opts.Bucket == nil || e.opts.Sandbox == nil {
		return nil, &Error{Code: CodeUnavailable, Msg: "this server makes no link previews"}
	}
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	id := req.GetMessageId()
	if id == "" {
		return nil, invalid("message_id is required")
	}
	if err := checkBytes("message_id", id, uploadIDMax); err != nil {
		return nil, err
	}
	var m *svcv1.Message
	err := e.db.View(func(r *store.Reader) error {
		var err error
		m, err = liveMessage(r, id, e.readCutoff())
		return err
	})
	if isNotFound(err) {
		return nil, notFound("message %s does not exist", id)
	}
	if err != nil {
		return nil, err
	}
	if !d.sees(c.ID, d.Channel(m.GetChannelId())) {
		return nil, denied("you cannot see this message")
	}
	links := findLinks(m.GetText())
	out := &svcv1.GetLinkPreviewsResponse{}
	if len(links) == 0 {
		return out, nil
	}
	recs, missing, err := e.cachedPreviews(links)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		if wait := e.limits.allowN("preview:"+c.ID, previewRate, previewBurst, len(missing)); wait > 0 {
			return nil, rateLimited("fetching link previews", wait)
		}
		var wg sync.WaitGroup
		errs := make([]error, len(links))
		for _, i := range missing {
			wg.Go(func() { recs[i], errs[i] = e.preview(ctx, links[i]) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	for i, rec := range recs {
		if !rec.GetOk() {
			continue
		}
		lp := &svcv1.LinkPreview{
			Url:         links[i].written,
			Title:       rec.GetTitle(),
			Description: rec.GetDescription(),
			SiteName:    rec.GetSiteName(),
		}
		if img := rec.GetImageId(); img != "" {
			lp.ImageUrl = previewImagePath(img)
		}
		out.Previews = append(out.Previews, lp)
	}
	return out, nil
}

// cachedPreviews reads the fresh cached answers for links; missing lists the indexes of the
// links that have none.
func (e *Engine) cachedPreviews(links []link) (recs []*storepb.PreviewRecord, missing []int, err error) {
	recs = make([]*storepb.PreviewRecord, len(links))
	now := e.now().UnixMilli()
	err = e.db.View(func(r *store.Reader) error {
		for i, l := range links {
			rec, err := r.Preview(l.key)
			if err != nil && !isNotFound(err) {
				return err
			}
			if rec != nil && now < rec.GetExpiresAtMs() {
				recs[i] = rec
			} else {
				missing = append(missing, i)
			}
		}
		return nil
	})
	return recs, missing, err
}

// preview fetches a link's preview, or waits for the fetch of it in progress. The fetch
// runs on the engine's context, not the caller's: a caller that leaves does not cut short a
// fetch others wait for, and its result is cached all the same.
func (e *Engine) preview(ctx context.Context, l link) (*storepb.PreviewRecord, error) {
	p := e.previews
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	call := p.inflight[l.key]
	if call == nil {
		call = &previewCall{done: make(chan struct{})}
		p.inflight[l.key] = call
		p.running.Add(1)
		go func() {
			defer p.running.Done()
			call.rec, call.err = e.fetchPreview(l)
			// Removed only once the answer is in the database: whoever finds no fetch in
			// progress from now on finds the answer there.
			p.mu.Lock()
			delete(p.inflight, l.key)
			p.mu.Unlock()
			close(call.done)
		}()
	}
	call.waiters++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		call.waiters--
		p.mu.Unlock()
	}()
	select {
	case <-call.done:
		return call.rec, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// PreviewWaiters is how many requests wait for link preview fetches in progress: one fetch
// per URL, however many wait for it.
func (e *Engine) PreviewWaiters() int {
	p := e.previews
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.inflight {
		n += c.waiters
	}
	return n
}
