package engine

import (
	"archive/zip"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"hearth/blob"
	"hearth/engine/sandbox"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Custom emoji: the list (GET /emoji), one image (GET /emoji/{id}), the export (GET
// /emoji.zip) and DeleteEmoji. Uploads are in emojiupload.go. An emoji is a row (its name,
// id and sniffed type) and the object emoji/<id> in the bucket; messages and reactions write it
// `:name:`, which clients resolve from the list.

// Emoji limits (API.md). A kilobyte is 1,000 bytes, a megabyte 1,000,000, as for uploads.
const (
	// EmojiMaxBytes is the largest image an emoji may be.
	EmojiMaxBytes = 256_000
	// EmojiMaxSide is the largest width and height of an emoji, in pixels.
	EmojiMaxSide = 512
	// emojiMaxPixels bounds the pixels of all an emoji's frames together: as many as sixteen
	// frames of 512x512. Decoding them in the sandbox takes about 0.4 s on a busy small
	// machine, well within its 2 s deadline (sandbox.BenchmarkDecodeFullBudget).
	emojiMaxPixels = 16 * EmojiMaxSide * EmojiMaxSide
	// MaxEmojiRequestBytes bounds one POST /emoji request.
	MaxEmojiRequestBytes = 64_000_000
	// emojiNameMax is the longest emoji name.
	emojiNameMax = 62
)

// ErrEmojiRequestTooLarge is the error of a POST /emoji body over MaxEmojiRequestBytes.
var ErrEmojiRequestTooLarge = &Error{Code: CodeTooLarge, Msg: "the request is larger than 64 MB (64,000,000 bytes)"}

// emojiDecodeLimits bound the sandbox's decoding of an emoji.
var emojiDecodeLimits = sandbox.DecodeLimits{MaxSide: EmojiMaxSide, MaxPixels: emojiMaxPixels}

// emojiTypes are the image types an emoji may be, with the extension the export gives each.
var emojiTypes = map[string]string{
	"image/png":  ".png",
	"image/gif":  ".gif",
	"image/webp": ".webp",
}

// EmojiName makes an emoji name from a file name, as API.md says: the base name (after the last
// / or \) without its extension, lowercased, every character other than a-z, 0-9, hyphen and
// underscore becoming an underscore. The name is returned even when it is refused (empty, or
// longer than 62 characters), so that the answer can show it.
func EmojiName(file string) (string, error) {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		file = file[i+1:]
	}
	file = strings.TrimSuffix(file, path.Ext(file))
	var b strings.Builder
	for _, r := range strings.ToLower(file) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	switch {
	case name == "":
		return "", invalid("its file name gives no emoji name (it is empty without its extension)")
	case len(name) > emojiNameMax:
		return name, invalid("its name is %d characters long; the limit is %d", len(name), emojiNameMax)
	}
	return name, nil
}

// checkEmojiName refuses a name no emoji can have (API.md: 1 to 62 characters of a-z, 0-9,
// hyphen and underscore), so that a call naming one is told what is wrong with it rather than
// that no emoji has it.
func checkEmojiName(field, name string) error {
	if name == "" {
		return invalid("%s is required", field)
	}
	if n := utf8.RuneCountInString(name); n > emojiNameMax {
		return invalid("%s is %s characters; the limit is %d", field, thousands(n), emojiNameMax)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return invalid("%s must be made of a-z, 0-9, hyphen and underscore; got %q", field, name)
		}
	}
	return nil
}

// emojiURL is where an emoji is served, relative to the base URL. It never changes.
func emojiURL(id string) string { return "/emoji/" + id }

// EmojiList is the custom emoji as of one version.
type EmojiList struct {
	// Version changes with every change to the emoji (it is the seq of the change's event; 0
	// before the first), and only then: it is GET /emoji's ETag.
	Version int64
	// Emoji, sorted by name. Nil when Version is the version the caller already has.
	Emoji []*svcv1.CustomEmoji
}

// ListEmoji lists the custom emoji, or, when they are still at version known, only says so.
func (e *Engine) ListEmoji(c Caller, known int64) (*EmojiList, error) {
	if _, err := e.snap.Load().caller(c); err != nil {
		return nil, err
	}
	list := &EmojiList{}
	err := e.db.View(func(r *store.Reader) error {
		v, err := r.EmojiVersion()
		if err != nil || v == known {
			list.Version = v
			return err
		}
		list.Version = v
		list.Emoji = []*svcv1.CustomEmoji{}
		return r.EmojiNames(func(name, id string) error {
			list.Emoji = append(list.Emoji, &svcv1.CustomEmoji{Name: name, Url: emojiURL(id)})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return list, nil
}

// emojiMaxAge is how long an emoji's image may be cached: its URL never changes its bytes (a
// deleted emoji's id is never given to another).
const emojiMaxAge = 365 * 24 * time.Hour

// OpenEmoji finds an emoji by id for GET /emoji/{id}, which anyone may load: not_found for an
// id that never was an emoji's and for one whose emoji was deleted (ids are never reused).
func (e *Engine) OpenEmoji(id string) (*PublicImage, error) {
	if e.opts.Bucket == nil {
		return nil, notFound("this server keeps no emoji")
	}
	if len(id) > 64 {
		return nil, notFound("no emoji has this id")
	}
	var rec *storepb.EmojiRecord
	err := e.db.View(func(r *store.Reader) error {
		var err error
		rec, err = r.Emoji(id)
		return err
	})
	if isNotFound(err) {
		return nil, notFound("no emoji has this id")
	}
	if err != nil {
		return nil, err
	}
	return &PublicImage{
		ID:          rec.GetId(),
		ContentType: rec.GetContentType(),
		Size:        rec.GetSize(),
		ModTime:     time.UnixMilli(rec.GetCreatedAtMs()),
		MaxAge:      emojiMaxAge,
		key:         blob.EmojiKey(rec.GetId()),
		gone:        "this emoji was deleted",
		bucket:      e.opts.Bucket,
	}, nil
}

// PublicImage is an image anyone with its URL may load, ready to be served: a custom emoji
// (GET /emoji/{id}) or a link preview's image (GET /previews/{id}). Its URL never changes its
// bytes.
type PublicImage struct {
	ID          string
	ContentType string
	Size        int64
	ModTime     time.Time
	// MaxAge is how long it may be cached from now.
	MaxAge time.Duration

	key    string
	gone   string // not_found's message when its object is missing
	bucket *blob.Bucket
}

// Open opens the image's bytes for reading and seeking; ctx must last as long as the reads.
func (img *PublicImage) Open(ctx context.Context) (io.ReadSeekCloser, error) {
	o, err := img.bucket.Open(ctx, img.key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, notFound("%s", img.gone)
	}
	return o, err
}

// DeleteEmoji deletes a custom emoji: its rows in the change, its object after the commit.
func (e *Engine) DeleteEmoji(ctx context.Context, c Caller, req *svcv1.DeleteEmojiRequest) (*svcv1.DeleteEmojiResponse, error) {
	name := req.GetName()
	if err := checkEmojiName("name", name); err != nil {
		return nil, err
	}
	id, err := submit(e, func(tx *Tx) (string, error) {
		if _, err := tx.Snap().requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "deleting an emoji"); err != nil {
			return "", err
		}
		id, err := tx.read().EmojiIDByName(name)
		if isNotFound(err) {
			return "", notFound("there is no emoji called %q", name)
		}
		if err != nil {
			return "", err
		}
		rec, err := tx.read().Emoji(id)
		if err != nil {
			return "", err
		}
		if err := tx.mutate().DeleteEmoji(rec); err != nil {
			return "", err
		}
		if err := emojiChanged(tx); err != nil {
			return "", err
		}
		return id, auditEmoji(tx, c, svcv1.AuditAction_AUDIT_ACTION_EMOJI_DELETED, []string{name})
	})
	if err != nil {
		return nil, err
	}
	e.deleteEmojiObjects([]string{id})
	return &svcv1.DeleteEmojiResponse{}, nil
}

// emojiChanged sends emoji_changed to every member and makes its seq the emoji's version.
func emojiChanged(tx *Tx) error {
	seq, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_EmojiChanged{EmojiChanged: true}})
	if err != nil {
		return err
	}
	return tx.mutate().SetEmojiVersion(seq)
}

// deleteEmojiObjects deletes the objects of emoji whose rows are gone (or were never written).
func (e *Engine) deleteEmojiObjects(ids []string) {
	e.deleteObjectsUnder(blob.EmojiKey, "an emoji's image", ids)
}

// ExportEmoji writes every custom emoji to w as a zip archive of `name.ext` files, sorted by
// name, which POST /emoji takes back as it is. The emoji are those of one moment; one deleted
// while the archive is written is left out. Entries are stored uncompressed (images are
// compressed already), with sizes and CRC in their local headers, so that streaming unzippers
// read them too. Memory stays at one image, whatever the count.
func (e *Engine) ExportEmoji(ctx context.Context, c Caller, w io.Writer) error {
	if _, err := e.snap.Load().caller(c); err != nil {
		return err
	}
	if e.opts.Bucket == nil {
		return notFound("this server keeps no emoji")
	}
	var recs []*storepb.EmojiRecord
	err := e.db.View(func(r *store.Reader) error {
		return r.EmojiNames(func(_, id string) error {
			rec, err := r.Emoji(id)
			if err != nil {
				return err
			}
			recs = append(recs, rec)
			return nil
		})
	})
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	bufp := heads.Get().(*[]byte)
	defer heads.Put(bufp)
	for _, rec := range recs {
		data, err := e.readEmoji(ctx, rec.GetId(), *bufp)
		if errors.Is(err, blob.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		hw, err := zw.CreateRaw(&zip.FileHeader{
			Name:               rec.GetName() + emojiTypes[rec.GetContentType()],
			Method:             zip.Store,
			Modified:           time.UnixMilli(rec.GetCreatedAtMs()).UTC(),
			CRC32:              crc32.ChecksumIEEE(data),
			CompressedSize64:   uint64(len(data)),
			UncompressedSize64: uint64(len(data)),
		})
		if err != nil {
			return err
		}
		if _, err := hw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// readEmoji reads an emoji's image into buf (an emoji fits: it is at most EmojiMaxBytes).
func (e *Engine) readEmoji(ctx context.Context, id string, buf []byte) ([]byte, error) {
	o, err := e.opts.Bucket.Open(ctx, blob.EmojiKey(id))
	if err != nil {
		return nil, err
	}
	defer o.Close()
	n, err := io.ReadFull(o, buf)
	switch {
	case err == nil:
		return nil, errors.New("an emoji's image is larger than the read buffer")
	case err != io.EOF && err != io.ErrUnexpectedEOF:
		return nil, err
	}
	return buf[:n], nil
}
