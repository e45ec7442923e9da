package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
)

// checkTimeout bounds the start check: a bucket that takes longer to answer three small
// requests is not one to serve from.
const checkTimeout = 30 * time.Second

// Check proves at start that the bucket takes writes, reads and deletes with the credentials
// it was given: it writes a small object under healthcheck/, reads it back and deletes it.
// Several servers may share a bucket, so the key is random. The error is one line, naming
// the bucket (never its credentials) and the step that failed.
func (b *Bucket) Check(ctx context.Context) error {
	return b.CheckAs(ctx, "file", "-bucket")
}

// CheckAs is Check for a bucket with another role: the error calls it "the <role> bucket"
// and names flag, the option that gave it.
func (b *Bucket) CheckAs(ctx context.Context, role, flag string) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	var id [8]byte
	rand.Read(id[:])
	key := "healthcheck/" + hex.EncodeToString(id[:])
	want := []byte("hearth bucket check " + key)
	fail := func(step string, err error) error {
		return fmt.Errorf("the %s bucket %s failed its start check (%s %s): %s; check %s and its credentials", role, b.where, step, key, oneLine(err), flag)
	}
	if _, err := b.Put(ctx, key, bytes.NewReader(want), "text/plain"); err != nil {
		return fail("write", err)
	}
	got, err := b.readAll(ctx, key, int64(len(want)))
	if err == nil && !bytes.Equal(got, want) {
		err = fmt.Errorf("read back %d bytes that differ from the %d written", len(got), len(want))
	}
	if err != nil {
		b.Delete(ctx, key)
		return fail("read", err)
	}
	// A held deletion would leave it until the hold ends; nothing holds at start.
	if err := b.Delete(ctx, key); err != nil {
		return fail("delete", err)
	}
	return nil
}

// readAll reads a small object whole, refusing one larger than limit.
func (b *Bucket) readAll(ctx context.Context, key string, limit int64) ([]byte, error) {
	r, err := b.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, wrap("read", key, err)
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, limit+1))
}

// oneLine keeps a driver's error on one line (some wrap response bodies with newlines).
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
