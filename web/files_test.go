package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/blob"
	"hearth/engine"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// A file URL works exactly as signed: any change to its id, exp or sig, or its age, makes it
// a 403 that says nothing of the file.
func TestFileLinkForgeries(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		clock := webtest.NewClock()
		s := webtest.Start(t, webtest.WithClock(clock), bucket)
		owner := s.Join("owner")
		a := mustUpload(t, s, owner, "a.txt", []byte("a"))
		b := mustUpload(t, s, owner, "b.txt", []byte("b"))
		exp := strconv.FormatInt(urlExpiry(t, a.GetUrl()).Unix(), 10)
		sig := a.GetUrl()[strings.Index(a.GetUrl(), "sig=")+4:]
		tampered := []byte(sig)
		tampered[3] ^= 1
		if tampered[3] == '-' || tampered[3] == '_' {
			tampered[3] = 'A'
		}
		const invalid = "this file link is not valid"
		bExp, _ := strconv.ParseInt(exp, 10, 64)
		for _, tc := range []struct{ what, url, text string }{
			{"a tampered sig", withQuery(t, a.GetUrl(), "sig", string(tampered)), invalid},
			{"exp moved an hour on", withQuery(t, a.GetUrl(), "exp", strconv.FormatInt(bExp+3600, 10)), invalid},
			// An exp in the past is expired before its signature is looked at.
			{"exp moved an hour back", withQuery(t, a.GetUrl(), "exp", strconv.FormatInt(bExp-3600, 10)), "this file link has expired; fetch the message again for a fresh one"},
			{"exp moved a second back", withQuery(t, a.GetUrl(), "exp", strconv.FormatInt(bExp-1, 10)), invalid},
			{"exp with a leading zero", withQuery(t, a.GetUrl(), "exp", "0"+exp), invalid},
			{"a's signature on b", strings.Replace(a.GetUrl(), a.GetId(), b.GetId(), 1), invalid},
			{"no sig", "/files/" + a.GetId() + "/a.txt?exp=" + exp, "this file link lacks its exp and sig parameters"},
			{"nothing", "/files/" + a.GetId() + "/a.txt", "this file link lacks its exp and sig parameters"},
			{"garbage sig", withQuery(t, a.GetUrl(), "sig", "%%%"), invalid},
		} {
			if status, text := fetchError(t, s, tc.url); status != 403 || text != tc.text {
				t.Errorf("%s: %d %q, want 403 %q", tc.what, status, text, tc.text)
			}
		}
		// The name segment is display only: another name serves the same file.
		if f := fetch(t, s, http.MethodGet, strings.Replace(a.GetUrl(), "/a.txt?", "/other.exe?", 1)); f.status != 200 || string(f.body) != "a" ||
			f.header.Get("Content-Disposition") != "attachment; filename=a.txt" {
			t.Errorf("another name: %d %q %q", f.status, f.body, f.header.Get("Content-Disposition"))
		}
		// Valid until exp, not a second more.
		until := urlExpiry(t, a.GetUrl())
		clock.Advance(until.Sub(clock.Now()) - time.Second)
		if f := fetch(t, s, http.MethodGet, a.GetUrl()); f.status != 200 || f.header.Get("Cache-Control") != "private, immutable, max-age=1" {
			t.Errorf("a second before exp: %d %q", f.status, f.header.Get("Cache-Control"))
		}
		clock.Advance(time.Second)
		if status, text := fetchError(t, s, a.GetUrl()); status != 403 || text != "this file link has expired; fetch the message again for a fresh one" {
			t.Errorf("at exp: %d %q", status, text)
		}
	})
}

// An upload nobody used is deleted a day after it was made, in bounded batches, on the
// engine's clock; a used one stays.
func TestUnusedUploadsExpire(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		c := newCommunity(t, bucket, webtest.WithManualJobs())
		s, clock := c.s, c.clock
		ch := c.channel("general")
		// More than one cleanup batch (256) of unused uploads, seeded straight into the
		// database and the bucket: uploading them one by one tests nothing more.
		var unused []string
		s.Seed(func(b *store.Batch) error {
			for i := range 300 {
				id := fmt.Sprintf("seeded-%03d", i)
				if _, err := s.Bucket().Put(ctx, blob.FileKey(id), strings.NewReader("u"), ""); err != nil {
					return err
				}
				unused = append(unused, id)
				err := b.PutUpload(&storepb.UploadRecord{Id: id, OwnerId: c.owner.Member.GetId(), Name: "u.txt", Size: 1, CreatedAtMs: clock.Now().UnixMilli()})
				if err != nil {
					return err
				}
			}
			return nil
		})
		clock.Advance(10 * time.Second)
		unused = append(unused, mustUpload(t, s, c.owner, "u.txt", []byte("u")).GetId())
		kept := mustUpload(t, s, c.owner, "kept.txt", []byte("kept"))
		c.send(c.owner, ch.GetId(), "warm up")
		clock.Advance(time.Second)
		mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{kept.GetId()}})
		late := mustUpload(t, s, c.owner, "late.txt", []byte("late"))

		// When the first 301 are a day old they are gone, in two batches; the later one stays.
		clock.Advance(24*time.Hour - 2*time.Second)
		if err := s.Engine.ExpireUploads(); err != nil {
			t.Fatal(err)
		}
		for _, id := range unused {
			if inBucket(t, s, id) {
				t.Fatalf("upload %s is still in the bucket a day later", id)
			}
		}
		if !inBucket(t, s, late.GetId()) || !inBucket(t, s, kept.GetId()) {
			t.Fatalf("after a day: late %v, kept %v", inBucket(t, s, late.GetId()), inBucket(t, s, kept.GetId()))
		}
		clock.Advance(time.Hour)
		if err := s.Engine.ExpireUploads(); err != nil {
			t.Fatal(err)
		}
		keys := bucketKeys(t, s)
		if len(keys) != 1 || keys[0] != blob.FileKey(kept.GetId()) {
			t.Errorf("left in the bucket: %d objects, want only the attached one", len(keys))
		}
		_, err := c.owner.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{late.GetId()}}))
		wantCode(t, "an expired upload", err, connect.CodeNotFound, "does not exist (an upload not used within a day is deleted)")
	})
}

// Objects without a row (a crash between storing a file and committing its row) are swept
// once they are old enough; files with rows, and young objects, stay.
func TestOrphanSweep(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t, func(o *engine.Options) { o.OrphanAge = time.Hour })
	owner := s.Join("owner")
	kept := mustUpload(t, s, owner, "kept.txt", []byte("kept"))
	for _, key := range []string{"files/orphan", "files/young", "files/" + kept.GetId() + ".1234abcd.tmp"} {
		if _, err := s.Bucket().Put(ctx, key, strings.NewReader("x"), ""); err != nil {
			t.Fatal(err)
		}
	}
	// Two hours old on the bucket's clock (a file bucket's clock is the file system's).
	old := time.Now().Add(-2 * time.Hour)
	for _, key := range []string{"files/orphan", "files/" + kept.GetId(), "files/" + kept.GetId() + ".1234abcd.tmp"} {
		if err := os.Chtimes(filepath.Join(s.Dir, "files", key), old, old); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Engine.SweepOrphans(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("swept %d, %v; want the old orphan and the old temporary file", n, err)
	}
	keys := bucketKeys(t, s)
	if len(keys) != 2 || keys[0] != blob.FileKey(kept.GetId()) || keys[1] != "files/young" {
		t.Errorf("left %v", keys)
	}
}

// On S3 too, with an age of zero.
func TestOrphanSweepS3(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		s := webtest.Start(t, bucket, func(o *engine.Options) { o.OrphanAge = time.Nanosecond })
		owner := s.Join("owner")
		kept := mustUpload(t, s, owner, "kept.txt", []byte("kept"))
		if _, err := s.Bucket().Put(ctx, "files/orphan", strings.NewReader("x"), ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // past the age on a coarse bucket clock; not a measurement
		if n, err := s.Engine.SweepOrphans(context.Background()); err != nil || n != 1 {
			t.Fatalf("swept %d, %v", n, err)
		}
		if keys := bucketKeys(t, s); len(keys) != 1 || keys[0] != blob.FileKey(kept.GetId()) {
			t.Errorf("left %v", keys)
		}
	})
}

// The retention purge deletes the files of the messages it deletes.
func TestRetentionDeletesFiles(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		c := newCommunity(t, bucket, webtest.WithManualJobs())
		ch := c.channel("general")
		old := mustUpload(t, c.s, c.owner, "old.txt", []byte("old"))
		root := mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{old.GetId()}})
		c.clock.Advance(3 * 24 * time.Hour)
		reply := mustUpload(t, c.s, c.owner, "reply.txt", []byte("reply"))
		// A late reply goes with its old root.
		mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), ThreadRootId: root.GetId(), AttachmentIds: []string{reply.GetId()}})
		recent := mustUpload(t, c.s, c.owner, "recent.txt", []byte("recent"))
		c.clock.Advance(time.Second)
		mustSend(t, c.owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{recent.GetId()}})
		_, err := c.owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{RetentionDays: ptr(int32(2))}))
		wantOK(t, "retention", err)
		if err := c.s.Engine.PurgeNow(); err != nil {
			t.Fatal(err)
		}
		if inBucket(t, c.s, old.GetId()) || inBucket(t, c.s, reply.GetId()) || !inBucket(t, c.s, recent.GetId()) {
			t.Errorf("after the purge: old %v, reply %v, recent %v", inBucket(t, c.s, old.GetId()), inBucket(t, c.s, reply.GetId()), inBucket(t, c.s, recent.GetId()))
		}
	})
}

// With -files-redirect on a bucket that signs its own URLs, GET /files answers 302 to the
// bucket: media as stored, anything else with an attachment disposition. A file bucket
// cannot sign, so it keeps streaming.
func TestFilesRedirect(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		s := webtest.Start(t, bucket)
		s.SetFilesRedirect(true)
		owner := s.Join("owner")
		img := pngImage(t, 3, 3)
		photo := mustUpload(t, s, owner, "photo.png", img)
		page := mustUpload(t, s, owner, "page.html", []byte("<html><script>alert(1)</script>"))
		onS3 := strings.HasSuffix(t.Name(), "/s3")
		for _, tc := range []struct {
			att         *svcv1.Attachment
			body        string
			disposition string
		}{
			{photo, string(img), ""},
			{page, "<html><script>alert(1)</script>", "attachment; filename=page.html"},
		} {
			f := fetch(t, s, http.MethodGet, tc.att.GetUrl())
			if !onS3 {
				if f.status != 200 || string(f.body) != tc.body {
					t.Errorf("%s on a file bucket: %d", tc.att.GetName(), f.status)
				}
				continue
			}
			loc := f.header.Get("Location")
			if f.status != http.StatusFound || !strings.HasPrefix(loc, "http://127.0.0.1:") || f.header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %d to %q", tc.att.GetName(), f.status, loc)
				continue
			}
			got := fetch(t, s, http.MethodGet, loc)
			if got.status != 200 || string(got.body) != tc.body || got.header.Get("Content-Type") != tc.att.GetContentType() ||
				got.header.Get("Content-Disposition") != tc.disposition {
				t.Errorf("%s from the bucket: %d %q %q", tc.att.GetName(), got.status, got.header.Get("Content-Type"), got.header.Get("Content-Disposition"))
			}
		}
		// The signature is checked first, as without redirects.
		if status, _ := fetchError(t, s, withQuery(t, photo.GetUrl(), "sig", "x")); status != 403 {
			t.Errorf("a bad sig with redirects: %d", status)
		}
	})
}
