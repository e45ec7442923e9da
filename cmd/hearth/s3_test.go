package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"hearth/blob/blobtest"
	svcv1 "hearth/proto/svc/v1"
)

// TestBackupToS3AndBack: a server whose files are in S3 (versitygw) writes its backup into
// the bucket under backups/; `hearth restore` takes it back from its s3:// URL into a new
// directory; started on the same bucket, the restored server serves the same member, message
// and file. The files stay in the bucket, and both commands say so.
func TestBackupToS3AndBack(t *testing.T) {
	bin := hearthBinary(t)
	bucket := blobtest.StartS3(t)
	dataA := t.TempDir()
	srvA, urlA := startBinary(t, bin, "-data", dataA, "-addr", "127.0.0.1:0", "-base-url", drillBase, "-bucket", bucket)
	ctx := context.Background()
	alice := login(t, bin, dataA, "alice").at(urlA)
	alice.join(t)
	done := true
	if _, err := alice.server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
		t.Fatal(err)
	}
	ch, err := alice.chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	content := noise(300_000)
	id, fileURL := upload(t, urlA, alice.token, "photo.raw", content)
	sent, err := alice.send(&svcv1.SendMessageRequest{ChannelId: ch.Msg.GetChannel().GetId(), Text: "in S3", AttachmentIds: []string{id}})
	if err != nil {
		t.Fatal(err)
	}

	out, _ := hearthCmd(t, bin, 0, "backup", "-data", dataA)
	m := regexp.MustCompile(`Backup written to (s3://hearth/backups/hearth-backup-\S+\.tar\.gz) `).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "stay in the bucket s3://hearth") {
		t.Fatalf("hearth backup: %q", out)
	}
	// The log names the bucket, never its settings or keys.
	log := srvA.stderr()
	if !strings.Contains(log, "bucket=s3://hearth ") || strings.Contains(log, os.Getenv("AWS_SECRET_ACCESS_KEY")) || strings.Contains(log, "endpoint=") {
		t.Fatalf("the start line: %s", log)
	}

	// The backup's URL is the bucket's with the object's key as its path.
	bu, _ := url.Parse(bucket)
	src := m[1] + "?" + bu.RawQuery
	dataC := t.TempDir()
	out, _ = hearthCmd(t, bin, 0, "restore", "-data", dataC, src)
	if !strings.Contains(out, "Restored into "+dataC) || !strings.Contains(out, "not in this backup: they are in the bucket s3://hearth") {
		t.Fatalf("hearth restore: %q", out)
	}
	_, urlC := startBinary(t, bin, "-data", dataC, "-addr", "127.0.0.1:0", "-base-url", drillBase, "-bucket", bucket)
	alice.at(urlC)
	res, err := alice.chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: ch.Msg.GetChannel().GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	if msgs := res.Msg.GetMessages(); len(msgs) != 1 || msgs[0].GetId() != sent.GetId() || msgs[0].GetCreatedSeq() != sent.GetCreatedSeq() {
		t.Fatalf("restored messages: %v, want %v", msgs, sent)
	}
	if code, got := fetch(t, urlC+fileURL); code != 200 || !bytes.Equal(got, content) {
		t.Fatalf("the file by its old URL on the restored server: %d, %d bytes", code, len(got))
	}
	_, stderr := hearthCmd(t, bin, 1, "restore", "-data", dataC, src)
	if !strings.Contains(stderr, "holds a database") {
		t.Fatalf("a second restore: %q", stderr)
	}
}

// TestBadBucketCredentialsStopTheServer: the start check writes to the bucket; with a wrong
// secret the server does not start, and says so in one line that names the bucket and not
// the secret.
func TestBadBucketCredentialsStopTheServer(t *testing.T) {
	bucket := blobtest.StartS3(t)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-0123456789")
	var stdout, stderr bytes.Buffer
	code := run([]string{"-data", t.TempDir(), "-addr", "127.0.0.1:0", "-bucket", bucket}, &stdout, &stderr)
	line := strings.TrimSpace(stderr.String())
	// The start line (at info) comes only once the checks pass.
	if code != 1 || strings.Contains(line, "\n") || !strings.Contains(line, "the file bucket s3://hearth failed its start check (write healthcheck/") {
		t.Fatalf("exit %d, stderr %q", code, line)
	}
	if strings.Contains(line, "not-the-secret") {
		t.Fatalf("the secret is in the error: %q", line)
	}

	// The same bucket as -backup-to, beside a good file bucket: the line names -backup-to.
	stderr.Reset()
	code = run([]string{"-data", t.TempDir(), "-addr", "127.0.0.1:0", "-backup-to", bucket}, &stdout, &stderr)
	line = strings.TrimSpace(stderr.String())
	if code != 1 || strings.Contains(line, "\n") || !strings.Contains(line, "the backup bucket s3://hearth failed its start check (write healthcheck/") ||
		!strings.Contains(line, "check -backup-to and its credentials") {
		t.Fatalf("a -backup-to bucket with a wrong secret: exit %d, stderr %q", code, line)
	}
}
