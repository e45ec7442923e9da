package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"

	"hearth/blob"
	"hearth/engine/sandbox"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	"hearth/engine/zipread"
	svcv1 "hearth/proto/svc/v1"
)

// POST /emoji: any number of files, each an image or a zip of images, in one request.
//
// Each image is judged as it arrives (its size while it is read, its name, whether the name is
// taken, then its type and pixel size in the sandbox) and, if it passes, stored in the bucket
// at once, so memory holds one image at a time. The rows are committed only once the whole
// request has arrived: a body cut short, malformed or over 64 MB adds nothing (the stored
// objects are deleted), and the answer lists every image with what became of it. A zip is
// spooled to a temporary file, since its central directory is at its end, and walked by
// zipread; the file is unlinked as soon as it is created, so nothing is left behind whatever
// happens.

const (
	// emojiRequestMax bounds the images (results) of one request: the answer lists each.
	emojiRequestMax = 10_000
	// emojiZipMaxFiles bounds the files of one zip (folders and skipped entries aside).
	emojiZipMaxFiles = 10_000
	// emojiCommitMax bounds the emoji one change commits, so that its transaction stays well
	// within what Badger takes at once in the small memory profile.
	emojiCommitMax = 1_000
	// resultFileMax bounds a file name echoed in a result.
	resultFileMax = 256
)

var emojiZipLimits = zipread.Limits{MaxFiles: emojiZipMaxFiles, MaxSize: EmojiMaxBytes}

// EmojiUpload is one POST /emoji request under way. It is not safe for concurrent use.
type EmojiUpload struct {
	e   *Engine
	c   Caller
	ctx context.Context

	// server is an import's upload: the operator's, through the admin socket, not a member's.
	server bool

	results []*svcv1.EmojiUploadResult
	// pending are the emoji stored in the bucket whose rows are not committed yet.
	pending []pendingEmoji
	// names are the names this request adds.
	names map[string]bool
	done  bool

	// Images are stored in the background while the next ones are judged, at most
	// storesMax at once, each from a copy in a buffer of its own.
	stores   sync.WaitGroup
	slots    chan *[]byte
	storeMu  sync.Mutex
	storeErr error
}

// storesMax bounds the images of one request being stored at once.
const storesMax = 4

type pendingEmoji struct {
	rec    *storepb.EmojiRecord
	result *svcv1.EmojiUploadResult
}

// BeginEmojiUpload starts a POST /emoji request: the caller must be a moderator or higher, and
// each request counts toward the upload rate limit it shares with POST /upload. Call Abort when
// done, whatever happened (it does nothing after Finish).
func (e *Engine) BeginEmojiUpload(ctx context.Context, c Caller) (*EmojiUpload, error) {
	if e.opts.Bucket == nil || e.opts.Sandbox == nil {
		return nil, &Error{Code: CodeUnavailable, Msg: "this server takes no emoji uploads"}
	}
	if _, err := e.snap.Load().requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "adding emoji"); err != nil {
		return nil, err
	}
	if wait := e.limits.allow("upload:"+c.ID, uploadRate, uploadBurst); wait > 0 {
		return nil, rateLimited("uploading files and emoji", wait)
	}
	if err := e.diskRoom(); err != nil {
		return nil, err
	}
	return e.newEmojiUpload(ctx, c), nil
}

func (e *Engine) newEmojiUpload(ctx context.Context, c Caller) *EmojiUpload {
	u := &EmojiUpload{e: e, c: c, ctx: ctx, names: map[string]bool{}, slots: make(chan *[]byte, storesMax)}
	for range storesMax {
		u.slots <- nil
	}
	return u
}

// AddFile reads one file of the request: a zip archive when its name ends in .zip (it must
// then be one), an image otherwise (whatever its name says, its type is sniffed from its
// bytes). What is wrong with an image becomes its result; an error means the request as a
// whole failed: body's read error (an *Error from body is returned as it is), more images than
// a request takes, the bucket or the sandbox failing.
func (u *EmojiUpload) AddFile(name string, body io.Reader) error {
	if u.done {
		return errors.New("emoji upload already finished")
	}
	if strings.HasSuffix(strings.ToLower(name), ".zip") {
		return u.addArchive(name, body)
	}
	bufp := heads.Get().(*[]byte)
	defer heads.Put(bufp)
	src := &limitedReader{r: body, max: EmojiMaxBytes}
	n, _ := io.ReadFull(src, (*bufp)[:EmojiMaxBytes+1])
	switch {
	case errors.Is(src.err, ErrFileTooLarge):
		return u.reject(name, fmt.Errorf("it is larger than 256 KB (%s bytes)", thousands(EmojiMaxBytes)))
	case src.err != nil:
		return readFailure(u.ctx, src.err)
	}
	return u.addImage(name, (*bufp)[:n])
}

// addArchive spools a zip to a temporary file and adds its images.
func (u *EmojiUpload) addArchive(name string, body io.Reader) error {
	f, err := u.e.spoolFile()
	if err != nil {
		u.e.log.Error("creating a spool file for an emoji archive", "err", err)
		return &Error{Code: CodeInternal, Msg: "the archive could not be stored for reading"}
	}
	defer f.close()
	src := &limitedReader{r: body, max: MaxEmojiRequestBytes}
	bufp := heads.Get().(*[]byte)
	size, err := io.CopyBuffer(struct{ io.Writer }{f.File}, struct{ io.Reader }{src}, *bufp)
	heads.Put(bufp)
	switch {
	case errors.Is(src.err, ErrFileTooLarge):
		return ErrEmojiRequestTooLarge
	case src.err != nil:
		return readFailure(u.ctx, src.err)
	case err != nil:
		u.e.log.Error("spooling an emoji archive", "err", err)
		return &Error{Code: CodeInternal, Msg: "the archive could not be stored for reading"}
	}
	err = zipread.Walk(f, size, emojiZipLimits, func(entry string, data []byte, err error) error {
		if err != nil {
			return u.reject(entry, entryError(err))
		}
		return u.addImage(entry, data)
	})
	switch {
	case errors.Is(err, zipread.ErrNotZip):
		return u.result(name, "", rejectedStatus, "it is not a zip archive (or its central directory is damaged)")
	case errors.Is(err, zipread.ErrTooManyFiles):
		return u.result(name, "", rejectedStatus, fmt.Sprintf("the archive has more than %s files", thousands(emojiZipMaxFiles)))
	}
	return err
}

// entryError says why zipread refused an entry, with this server's limit where one applies.
func entryError(err error) error {
	if errors.Is(err, zipread.ErrTooLarge) {
		return fmt.Errorf("it is larger than 256 KB (%s bytes) uncompressed", thousands(EmojiMaxBytes))
	}
	return err
}

// addImage judges one image and, if it passes, stores it in the bucket.
func (u *EmojiUpload) addImage(file string, data []byte) error {
	name, err := EmojiName(file)
	if err != nil {
		return u.reject(file, err)
	}
	if u.names[name] {
		return u.result(file, name, svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_EXISTS, "")
	}
	taken, err := u.e.emojiNameTaken(name)
	if err != nil {
		return err
	}
	if taken {
		return u.result(file, name, svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_EXISTS, "")
	}
	if len(data) == 0 {
		return u.reject(file, errors.New("it is empty (0 bytes), not a PNG, GIF or WebP image"))
	}
	info, err := u.e.opts.Sandbox.Inspect(u.ctx, data)
	if errors.Is(err, sandbox.ErrUnreadable) {
		return u.reject(file, errors.New("it could not be read as an image"))
	}
	if err != nil {
		return u.sandboxFailure("inspecting an emoji", err)
	}
	if emojiTypes[info.ContentType] == "" {
		return u.reject(file, fmt.Errorf("it is %s, not a PNG, GIF or WebP image", info.ContentType))
	}
	if info.Width == 0 || info.Height == 0 {
		return u.reject(file, errors.New("its image header could not be read"))
	}
	if info.Width > EmojiMaxSide || info.Height > EmojiMaxSide {
		return u.reject(file, fmt.Errorf("it is %dx%d pixels; the limit is %dx%d", info.Width, info.Height, EmojiMaxSide, EmojiMaxSide))
	}
	// The header is fine; the image must also decode, every frame of it, or it would be stored
	// and then show broken wherever it is used.
	dec, err := u.e.opts.Sandbox.Decode(u.ctx, data, emojiDecodeLimits)
	if errors.Is(err, sandbox.ErrUnreadable) {
		return u.reject(file, errors.New("it could not be decoded as an image"))
	}
	if err != nil {
		return u.sandboxFailure("decoding an emoji", err)
	}
	if dec.Problem != "" {
		return u.reject(file, fmt.Errorf("it does not decode: %s", dec.Problem))
	}
	if dec.ContentType != info.ContentType {
		u.e.log.Error("the sandbox sniffed an emoji two ways", "inspect", info.ContentType, "decode", dec.ContentType)
		return u.reject(file, errors.New("it could not be decoded as an image"))
	}
	if err := u.room(); err != nil {
		return err
	}
	id := uuid.Must(uuid.NewV7()).String()
	if err := u.store(id, data, info.ContentType); err != nil {
		return err
	}
	res := &svcv1.EmojiUploadResult{File: displayFile(file), Name: name, Status: svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_ADDED}
	u.results = append(u.results, res)
	u.names[name] = true
	u.pending = append(u.pending, pendingEmoji{result: res, rec: &storepb.EmojiRecord{
		Id:          id,
		Name:        name,
		ContentType: info.ContentType,
		Size:        int64(len(data)),
		Width:       info.Width,
		Height:      info.Height,
		CreatedBy:   u.c.ID,
	}})
	return nil
}

// sandboxFailure is the request's error when the sandbox failed other than on the image:
// the request ended, the server is closing, or the sandbox broke.
func (u *EmojiUpload) sandboxFailure(doing string, err error) error {
	switch {
	case u.ctx.Err() != nil:
		return u.ctx.Err()
	case errors.Is(err, sandbox.ErrClosed):
		return ErrClosed
	}
	u.e.log.Error(doing, "err", err)
	return &Error{Code: CodeInternal, Msg: "the images could not be inspected"}
}

// store puts an image in the bucket in the background: it returns once the image is copied,
// or with the error of an earlier store, which fails the request.
func (u *EmojiUpload) store(id string, data []byte, contentType string) error {
	if err := u.storeFailure(); err != nil {
		return err
	}
	bufp := <-u.slots
	if bufp == nil {
		bufp = heads.Get().(*[]byte)
	}
	buf := append((*bufp)[:0], data...)
	u.stores.Add(1)
	go func() {
		defer u.stores.Done()
		_, err := u.e.opts.Bucket.Put(u.ctx, blob.EmojiKey(id), bytes.NewReader(buf), contentType)
		u.slots <- bufp
		if err == nil {
			return
		}
		u.storeMu.Lock()
		defer u.storeMu.Unlock()
		if u.storeErr != nil {
			return
		}
		if u.ctx.Err() != nil {
			u.storeErr = u.ctx.Err()
			return
		}
		u.e.log.Error("storing an emoji", "err", err)
		u.storeErr = &Error{Code: CodeInternal, Msg: "the emoji could not be stored"}
	}()
	return nil
}

func (u *EmojiUpload) storeFailure() error {
	u.storeMu.Lock()
	defer u.storeMu.Unlock()
	return u.storeErr
}

// settle waits for the stores under way and gives their buffers back.
func (u *EmojiUpload) settle() error {
	u.stores.Wait()
	for range storesMax {
		if bufp := <-u.slots; bufp != nil {
			heads.Put(bufp)
		}
	}
	return u.storeFailure()
}

const rejectedStatus = svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_REJECTED

// reject answers an image with why it was refused, and the name its file would have given.
func (u *EmojiUpload) reject(file string, why error) error {
	msg := why.Error()
	var ee *Error
	if errors.As(why, &ee) {
		msg = ee.Msg
	}
	name, _ := EmojiName(file)
	return u.result(file, name, rejectedStatus, msg)
}

func (u *EmojiUpload) result(file, name string, status svcv1.EmojiUploadStatus, msg string) error {
	if err := u.room(); err != nil {
		return err
	}
	u.results = append(u.results, &svcv1.EmojiUploadResult{File: displayFile(file), Name: name, Status: status, Error: msg})
	return nil
}

// room fails the request once it has as many results as one may have.
func (u *EmojiUpload) room() error {
	if len(u.results) >= emojiRequestMax {
		return invalid("a request may hold at most %s images; send the rest in another request", thousands(emojiRequestMax))
	}
	return nil
}

// displayFile is a file name as a result shows it: valid UTF-8, at most resultFileMax bytes.
func displayFile(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= resultFileMax {
		return s
	}
	cut := resultFileMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Finish commits the request's emoji, emoji_changed going to every member with each change that
// added some (one change per 1,000 emoji: one event for any request up to that), and returns
// the results in the order the images came. A name taken meanwhile by another request turns
// EXISTS here and its object is deleted.
func (u *EmojiUpload) Finish() (*svcv1.UploadEmojiResponse, error) {
	if u.done {
		return nil, errors.New("emoji upload already finished")
	}
	u.done = true
	if err := u.settle(); err != nil {
		u.abort()
		return nil, err
	}
	for len(u.pending) > 0 {
		chunk := u.pending[:min(len(u.pending), emojiCommitMax)]
		lost, err := submit(u.e, func(tx *Tx) ([]int, error) {
			if !u.server {
				if _, err := tx.Snap().requireRank(u.c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "adding emoji"); err != nil {
					return nil, err
				}
			}
			var lost []int
			var added []string
			for i, p := range chunk {
				_, err := tx.read().EmojiIDByName(p.rec.GetName())
				if err == nil {
					lost = append(lost, i)
					continue
				}
				if !isNotFound(err) {
					return nil, err
				}
				p.rec.CreatedAtMs = tx.NowMs()
				if err := tx.mutate().PutEmoji(p.rec); err != nil {
					return nil, err
				}
				added = append(added, p.rec.GetName())
			}
			if len(lost) == len(chunk) {
				return lost, nil
			}
			if err := emojiChanged(tx); err != nil {
				return nil, err
			}
			return lost, auditEmoji(tx, u.c, svcv1.AuditAction_AUDIT_ACTION_EMOJI_ADDED, added)
		})
		if err != nil {
			if errors.Is(err, errOutcomeUnknown) {
				// The chunk's rows may be stored: its images stay for the sweep to judge.
				u.pending = u.pending[len(chunk):]
			}
			u.abort()
			return nil, err
		}
		var drop []string
		for _, i := range lost {
			chunk[i].result.Status = svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_EXISTS
			drop = append(drop, chunk[i].rec.GetId())
		}
		u.e.deleteEmojiObjects(drop)
		u.pending = u.pending[len(chunk):]
	}
	return &svcv1.UploadEmojiResponse{Results: u.results}, nil
}

// Abort deletes the objects of the emoji not committed. It does nothing after Finish.
func (u *EmojiUpload) Abort() {
	if u.done {
		return
	}
	u.done = true
	u.settle()
	u.abort()
}

// abort deletes the objects of the emoji not committed, once no store is under way.
func (u *EmojiUpload) abort() {
	ids := make([]string, len(u.pending))
	for i, p := range u.pending {
		ids[i] = p.rec.GetId()
	}
	u.pending = nil
	u.e.deleteEmojiObjects(ids)
}

// emojiNameTaken reports whether an emoji has the name now. The writer checks again before it
// commits; this spares storing images that would only be skipped.
func (e *Engine) emojiNameTaken(name string) (bool, error) {
	err := e.db.View(func(r *store.Reader) error {
		_, err := r.EmojiIDByName(name)
		return err
	})
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// spool is a temporary file that is already unlinked where the system allows it, so that it
// vanishes with its last descriptor even if the process dies; elsewhere close removes it.
type spool struct {
	*os.File
	unlinked bool
}

// spoolPattern names the spool files, so that a start can remove any left behind.
const spoolPattern = "emoji-*.zip"

func (e *Engine) spoolFile() (*spool, error) {
	dir := e.opts.SpoolDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, spoolPattern)
	if err != nil {
		return nil, err
	}
	return &spool{File: f, unlinked: os.Remove(f.Name()) == nil}, nil
}

func (s *spool) close() {
	s.File.Close()
	if !s.unlinked {
		os.Remove(s.Name())
	}
}

// removeSpools removes the spool files a previous run may have left (only where a file cannot
// be unlinked while open).
func (e *Engine) removeSpools() {
	if e.opts.SpoolDir == "" {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(e.opts.SpoolDir, spoolPattern))
	for _, m := range matches {
		os.Remove(m)
	}
}
