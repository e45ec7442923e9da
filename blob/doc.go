// Package blob stores file bytes in a bucket and signs the URLs that hand them out.
//
// A bucket is named by a gocloud URL: file:// (the default, <data>/files), s3://, gs://,
// azblob:// or mem://. Objects live under three prefixes, one per kind of file:
// FileKey (uploads), EmojiKey and PreviewKey. Objects are written once under a fresh id
// and never rewritten, which is what lets Object read lazily in ranges.
//
// # Streaming
//
// Put streams: it never holds a whole object in memory (file buckets copy through a 1 MiB
// buffer; S3 holds at most a few 5 MiB parts). A reader that fails aborts the write, so a
// failed upload leaves no object and the previous one, if any, untouched. Object reads
// lazily: Open costs one attribute lookup and the bytes are fetched by range only when
// read, so http.ServeContent can answer HEAD, Range and conditional requests without
// fetching what it does not send.
//
// # File buckets
//
// A file:// bucket writes each object to a temporary file next to its final path and
// renames it into place (never through os.TempDir, which may be another file system).
// A write that fails removes its temporary file at once; a process killed mid-write leaves
// it, listed as "<key>.<hex>.tmp", and SweepPartial, which the server runs at start before it
// takes requests, removes it. Folders are created 0700: uploads are private to the community.
//
// # Signed file URLs
//
// Signer makes and checks the /files/{id}/{name} URLs of API.md: the signature covers the
// file id and the expiry only, so the {name} segment is a display name, never a lookup
// key; SafeName says which names come out unchanged.
//
// # Redirects
//
// SignedGetURL gives the bucket's own short-lived URL for the -files-redirect mode. See
// its comment for which headers such a URL can carry.
package blob
