package engine

import (
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// How uploads are used. An upload is used once: it is attached to one message, or becomes
// one settings image, and only by the member who uploaded it, while it is unused. Whatever
// uses a file lets go of it (dropFile) when it stops using it: a deleted or purged message,
// a replaced or removed image. Its object is then deleted after the commit.

// Settings images (API.md): the types clients can show everywhere, at most 8 MB, and, since
// every client draws them unasked, at most imageSideMax pixels on a side: a small file can
// claim 100,000 x 100,000 pixels and cost a browser gigabytes to decode.
const (
	imageBytesMax = 8_000_000
	imageSideMax  = 8192
)

var imageTypes = map[string]bool{
	"image/png":  true,
	"image/jpeg": true,
	"image/gif":  true,
	"image/webp": true,
	"image/avif": true,
}

// unusedUpload finds an upload the caller may use: their own, unused, not expired.
func unusedUpload(tx *Tx, c Caller, field, id string) (*storepb.UploadRecord, error) {
	u, err := tx.read().Upload(id)
	if isNotFound(err) || (err == nil && u.GetUse() == storepb.UploadUse_UPLOAD_USE_UNSPECIFIED && uploadExpired(u.GetCreatedAtMs(), tx.Now())) {
		return nil, notFound("%s: upload %s does not exist (an upload not used within a day is deleted)", field, id)
	}
	if err != nil {
		return nil, err
	}
	if u.GetOwnerId() != c.ID {
		return nil, denied("%s: upload %s is not yours; only its uploader can use it", field, id)
	}
	if u.GetUse() != storepb.UploadUse_UPLOAD_USE_UNSPECIFIED {
		return nil, precondition("%s: upload %s is already in use; an upload is used once, so upload the file again", field, id)
	}
	return u, nil
}

// imageUpload finds an upload the caller may use as a settings image.
func imageUpload(tx *Tx, c Caller, field, id string) (*storepb.UploadRecord, error) {
	u, err := unusedUpload(tx, c, field, id)
	if err != nil {
		return nil, err
	}
	if !imageTypes[u.GetContentType()] {
		return nil, invalid("%s: upload %s is %s, not a PNG, JPEG, GIF, WebP or AVIF image", field, id, u.GetContentType())
	}
	if u.GetSize() > imageBytesMax {
		return nil, invalid("%s: upload %s is %s bytes; an image is at most 8 MB (8,000,000 bytes)", field, id, thousands(int(u.GetSize())))
	}
	if u.GetWidth() == 0 || u.GetHeight() == 0 {
		return nil, invalid("%s: upload %s is not a readable image", field, id)
	}
	if u.GetWidth() > imageSideMax || u.GetHeight() > imageSideMax {
		return nil, invalid("%s: upload %s is %dx%d pixels; an image is at most %s pixels on a side", field, id, u.GetWidth(), u.GetHeight(), thousands(imageSideMax))
	}
	return u, nil
}

// useUpload marks an upload as used (by a message, channel or member id).
func (tx *Tx) useUpload(u *storepb.UploadRecord, use storepb.UploadUse, by string) error {
	u = proto.Clone(u).(*storepb.UploadRecord)
	u.Use, u.UsedBy = use, by
	return tx.mutate().PutUpload(u)
}

// replaceImage lets go of the image old (if any) and puts img (if any) to use; it returns the
// new image. Replacing an image deletes the old file: nothing else can point at it.
func (tx *Tx) replaceImage(old *svcv1.Attachment, img *storepb.UploadRecord, use storepb.UploadUse, by string) (*svcv1.Attachment, error) {
	if old.GetId() != "" {
		if err := tx.dropFile(old.GetId()); err != nil {
			return nil, err
		}
	}
	if img == nil {
		return nil, nil
	}
	if err := tx.useUpload(img, use, by); err != nil {
		return nil, err
	}
	return attachmentOf(img), nil
}

// checkUploadIDs checks a list of upload ids before anything is read: not empty, no repeats.
func checkUploadIDs(field string, ids []string) error {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id == "" {
			return invalid("%s must not contain an empty id", field)
		}
		if err := checkBytes(field, id, uploadIDMax); err != nil {
			return err
		}
		if seen[id] {
			return invalid("%s lists upload %s twice", field, id)
		}
		seen[id] = true
	}
	return nil
}

// uploadIDMax bounds an upload id in a request; real ones are 36 characters.
const uploadIDMax = 64

// attachUploads finds the uploads a new message attaches, all before anything is written, so
// that a refused one leaves no trace.
func attachUploads(tx *Tx, c Caller, ids []string) ([]*storepb.UploadRecord, error) {
	out := make([]*storepb.UploadRecord, 0, len(ids))
	for _, id := range ids {
		u, err := unusedUpload(tx, c, "attachment_ids", id)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// releaseFiles lets go of a message's files: when it is deleted, and when the purge deletes it.
func (tx *Tx) releaseFiles(m *svcv1.Message) error {
	for _, a := range m.GetAttachments() {
		if err := tx.dropFile(a.GetId()); err != nil {
			return err
		}
	}
	return nil
}

// uploadExpired reports whether an unused upload made at createdMs is past its day at now;
// the cleanup deletes it within a minute, and meanwhile it cannot be used.
func uploadExpired(createdMs int64, now time.Time) bool {
	return now.UnixMilli()-createdMs >= uploadTTL.Milliseconds()
}
