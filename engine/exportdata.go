package engine

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protojson"

	"hearth/blob"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// ExportMyData: a member's own data as a zip — their profile, the messages they wrote, and the
// files of those messages and of their picture — made in the background, stored in the bucket
// under exports/<id> (by the rule of upload rows: the object before the row says it is ready,
// the row deleted before the object), and served through a link signed for 24 hours. The jobs
// loop deletes it then, and starts again the exports a stop cut short.

const (
	// exportTTL is how long an export's link works; the zip is deleted after it.
	exportTTL = 24 * time.Hour
	// exportsPerDay is how many exports a member may ask for in exportTTL.
	exportsPerDay = 3
	// exportsAtOnce bounds the exports being made at once, server-wide: each reads every
	// channel's log and streams files.
	exportsAtOnce = 2
)

// exportJobs are the exports being made.
type exportJobs struct {
	mu      sync.Mutex
	running map[string]bool
	wg      sync.WaitGroup
	slots   chan struct{}
}

// ExportMyData starts a zip of the caller's data and returns its signed link.
func (e *Engine) ExportMyData(ctx context.Context, c Caller, _ *svcv1.ExportMyDataRequest) (*svcv1.ExportMyDataResponse, error) {
	if e.opts.Bucket == nil || e.opts.Signer == nil {
		return nil, &Error{Code: CodeUnavailable, Msg: "this server keeps no files, so it makes no exports"}
	}
	rec, err := submit(e, func(tx *Tx) (*storepb.ExportRecord, error) {
		me, err := tx.Snap().caller(c)
		if err != nil {
			return nil, err
		}
		var mine []*storepb.ExportRecord
		err = tx.read().Exports(func(x *storepb.ExportRecord) error {
			if x.GetMemberId() == c.ID && x.GetCreatedAtMs() > tx.NowMs()-exportTTL.Milliseconds() {
				mine = append(mine, x)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		oldest := tx.NowMs()
		for _, x := range mine {
			if x.GetState() == storepb.ExportState_EXPORT_STATE_MAKING {
				// Asked again (a page reloaded, another device): the link of the one being made.
				return x, nil
			}
			oldest = min(oldest, x.GetCreatedAtMs())
		}
		if len(mine) >= exportsPerDay {
			wait := time.Duration(oldest+exportTTL.Milliseconds()-tx.NowMs()) * time.Millisecond
			return nil, rateLimited("exporting your data (3 a day)", wait)
		}
		rec := &storepb.ExportRecord{
			Id:          uuid.Must(uuid.NewV7()).String(),
			MemberId:    me.GetMember().GetId(),
			State:       storepb.ExportState_EXPORT_STATE_MAKING,
			CreatedAtMs: tx.NowMs(),
			ExpiresAtMs: tx.Now().Add(exportTTL).UnixMilli(),
		}
		return rec, tx.mutate().PutExport(rec)
	})
	if err != nil {
		return nil, err
	}
	e.startExport(rec)
	name := "hearth-data-" + e.snap.Load().Member(rec.GetMemberId()).GetMember().GetUsername() + ".zip"
	return &svcv1.ExportMyDataResponse{Url: e.opts.Signer.ExportURL(rec.GetId(), name, time.UnixMilli(rec.GetExpiresAtMs()))}, nil
}

// startExport makes an export in the background, unless it is being made already.
func (e *Engine) startExport(rec *storepb.ExportRecord) {
	j := &e.exports
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.running == nil {
		j.running = map[string]bool{}
		j.slots = make(chan struct{}, exportsAtOnce)
	}
	if j.running[rec.GetId()] || e.closed.Load() {
		return
	}
	j.running[rec.GetId()] = true
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		defer func() {
			j.mu.Lock()
			delete(j.running, rec.GetId())
			j.mu.Unlock()
		}()
		select {
		case j.slots <- struct{}{}:
		case <-e.ctx.Done():
			return
		}
		defer func() { <-j.slots }()
		e.makeExport(rec)
	}()
}

// makeExport writes the zip to the bucket and records how that went.
func (e *Engine) makeExport(rec *storepb.ExportRecord) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(e.writeExport(e.ctx, pw, rec.GetMemberId())) }()
	size, err := e.opts.Bucket.Put(e.ctx, blob.ExportKey(rec.GetId()), pr, "application/zip")
	pr.CloseWithError(err)
	if e.ctx.Err() != nil {
		return // stopping: the next start makes it again
	}
	failed := err != nil
	if failed {
		e.log.Error("making a data export", "member", rec.GetMemberId(), "err", err)
	}
	_, serr := submit(e, func(tx *Tx) (struct{}, error) {
		cur, err := tx.read().Export(rec.GetId())
		if isNotFound(err) {
			return struct{}{}, nil
		}
		if err != nil {
			return struct{}{}, err
		}
		cur.Size = size
		cur.State = storepb.ExportState_EXPORT_STATE_READY
		if failed {
			cur.State, cur.Error = storepb.ExportState_EXPORT_STATE_FAILED, "the export could not be made; ask again later"
		}
		return struct{}{}, tx.mutate().PutExport(cur)
	})
	if serr != nil {
		e.log.Error("recording a data export", "err", serr)
	}
}

// exportedMessage is one message of messages.json.
type exportedMessage struct {
	ID           string             `json:"id"`
	ChannelID    string             `json:"channel_id"`
	Channel      string             `json:"channel"`
	ThreadRootID string             `json:"thread_root_id,omitempty"`
	Text         string             `json:"text"`
	CreatedAt    string             `json:"created_at"`
	CreatedAtMs  int64              `json:"created_at_ms"`
	EditedAtMs   int64              `json:"edited_at_ms,omitempty"`
	Attachments  []exportedFile     `json:"attachments,omitempty"`
	Reactions    []exportedReaction `json:"reactions,omitempty"`
}

type exportedFile struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	// Path is the file's place in the zip.
	Path string `json:"path"`
}

type exportedReaction struct {
	Emoji string `json:"emoji"`
	Count int    `json:"count"`
}

// writeExport writes a member's zip to w: profile.json, messages.json (oldest first in each
// channel, channels in sidebar order) and files/<id>/<name>.
func (e *Engine) writeExport(ctx context.Context, w io.Writer, memberID string) error {
	d := e.snap.Load()
	zw := zip.NewWriter(w)
	me := d.Member(memberID).GetMember()
	profile, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(me)
	if err != nil {
		return err
	}
	if err := zipFile(zw, "profile.json", profile); err != nil {
		return err
	}
	var files []exportedFile
	var ids []string
	if id, name, ok := parseFileRef(me.GetAvatarUrl(), ""); ok {
		f := exportedFile{Name: name, Path: path.Join("files", id, name)}
		files, ids = append(files, f), append(ids, id)
	}
	mw, err := zw.Create("messages.json")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(mw, "[\n"); err != nil {
		return err
	}
	enc := json.NewEncoder(mw)
	enc.SetIndent("", "  ")
	n, cutoff, seq := 0, e.readCutoff(), d.Seq()
	for _, rec := range d.Channels() {
		ch := rec.GetChannel()
		where := channelTitle(d, ch)
		err := e.db.View(func(r *store.Reader) error {
			return r.Entries(ch.GetId(), 0, seq, func(_ int64, en *storepb.MessageEntry) error {
				if en.GetAuthorId() != memberID || en.GetDeletedSeq() != 0 || store.Expired(en, cutoff) {
					return nil
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				m, err := r.Message(en.GetMessageId())
				if err != nil {
					return err
				}
				out := exportedMessage{
					ID: m.GetId(), ChannelID: ch.GetId(), Channel: where, ThreadRootID: m.GetThreadRootId(), Text: m.GetText(),
					CreatedAt:   time.UnixMilli(m.GetCreatedAtMs()).UTC().Format(time.RFC3339Nano),
					CreatedAtMs: m.GetCreatedAtMs(), EditedAtMs: m.GetEditedAtMs(),
				}
				for _, a := range m.GetAttachments() {
					f := exportedFile{Name: a.GetName(), ContentType: a.GetContentType(), Size: a.GetSize(), Path: path.Join("files", a.GetId(), blob.SafeName(a.GetName()))}
					out.Attachments = append(out.Attachments, f)
					files, ids = append(files, f), append(ids, a.GetId())
				}
				for _, re := range m.GetReactions() {
					out.Reactions = append(out.Reactions, exportedReaction{Emoji: re.GetEmoji(), Count: len(re.GetMemberIds())})
				}
				if n > 0 {
					if _, err := io.WriteString(mw, ","); err != nil {
						return err
					}
				}
				n++
				return enc.Encode(out)
			})
		})
		if err != nil {
			return err
		}
	}
	if _, err := io.WriteString(mw, "]\n"); err != nil {
		return err
	}
	for i, f := range files {
		if err := e.zipObject(ctx, zw, f.Path, ids[i]); err != nil {
			return err
		}
	}
	return zw.Close()
}

// channelTitle names a channel for people: #name, or the DM's other members.
func channelTitle(d *Snapshot, ch *svcv1.Channel) string {
	if ch.GetKind() != svcv1.ChannelKind_CHANNEL_KIND_DM {
		return "#" + ch.GetName()
	}
	var names []string
	for _, id := range ch.GetMemberIds() {
		names = append(names, "@"+d.Member(id).GetMember().GetUsername())
	}
	return "DM " + strings.Join(names, ", ")
}

func zipFile(zw *zip.Writer, name string, data []byte) error {
	w, err := zw.Create(name)
	if err == nil {
		_, err = w.Write(data)
	}
	return err
}

// zipObject copies an uploaded file into the zip; one deleted meanwhile is left out.
func (e *Engine) zipObject(ctx context.Context, zw *zip.Writer, name, id string) error {
	o, err := e.opts.Bucket.Open(ctx, blob.FileKey(id))
	if errors.Is(err, blob.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	defer o.Close()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, o)
	return err
}

// ExportFile is a data export whose signed link checked out.
type ExportFile struct {
	Name    string
	Size    int64
	ModTime time.Time
	bucket  *blob.Bucket
	id      string
}

// OpenExport checks an export link (GET /exports/{id}/{name}?exp=&sig=) and finds its zip: a
// wrong or expired link is permission_denied, a zip being made unavailable (with a retry
// after a few seconds), a failed or deleted one not_found.
func (e *Engine) OpenExport(ctx context.Context, id, name, exp, sig string) (*ExportFile, error) {
	if e.opts.Signer == nil || e.opts.Bucket == nil {
		return nil, notFound("this server keeps no files")
	}
	if err := e.opts.Signer.CheckExport(id, exp, sig, e.now()); err != nil {
		if errors.Is(err, blob.ErrURLExpired) {
			return nil, denied("this export link has expired (a link works 24 hours); ask for a new export")
		}
		return nil, denied("this export link is not valid")
	}
	var rec *storepb.ExportRecord
	err := e.db.View(func(r *store.Reader) error {
		var err error
		rec, err = r.Export(id)
		return err
	})
	if isNotFound(err) {
		return nil, notFound("this export was deleted")
	}
	if err != nil {
		return nil, err
	}
	switch rec.GetState() {
	case storepb.ExportState_EXPORT_STATE_MAKING:
		return nil, &Error{Code: CodeUnavailable, Msg: "the export is being made; try again in a few seconds", RetryAfter: 5 * time.Second}
	case storepb.ExportState_EXPORT_STATE_FAILED:
		return nil, notFound("%s", rec.GetError())
	}
	return &ExportFile{Name: blob.SafeName(name), Size: rec.GetSize(), ModTime: time.UnixMilli(rec.GetCreatedAtMs()), bucket: e.opts.Bucket, id: id}, nil
}

// Open opens the zip's bytes for reading and seeking.
func (f *ExportFile) Open(ctx context.Context) (io.ReadSeekCloser, error) {
	o, err := f.bucket.Open(ctx, blob.ExportKey(f.id))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, notFound("this export was deleted")
	}
	return o, err
}

// ExpireExports deletes the exports past their day and starts again those a stop cut short;
// the jobs loop runs it every minute.
func (e *Engine) ExpireExports() error {
	if e.opts.Bucket == nil {
		return nil
	}
	var gone []string
	var restart []*storepb.ExportRecord
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		gone, restart = gone[:0], restart[:0]
		var old []string
		err := tx.read().Exports(func(x *storepb.ExportRecord) error {
			switch {
			case x.GetExpiresAtMs() <= tx.NowMs():
				old = append(old, x.GetId())
			case x.GetState() == storepb.ExportState_EXPORT_STATE_MAKING:
				restart = append(restart, x)
			}
			return nil
		})
		if err != nil {
			return struct{}{}, err
		}
		for _, id := range old {
			if err := tx.mutate().DeleteExport(id); err != nil {
				return struct{}{}, err
			}
		}
		gone = old
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	e.deleteObjectsUnder(blob.ExportKey, "a data export", gone)
	for _, rec := range restart {
		e.startExport(rec)
	}
	return nil
}

// waitExports waits for the exports being made (they end with the engine's context).
func (e *Engine) waitExports() { e.exports.wg.Wait() }
