package engine

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"hearth/blob"
	svcv1 "hearth/proto/svc/v1"
)

func TestParseFileRef(t *testing.T) {
	const base = "https://chat.example.com"
	for _, tc := range []struct {
		in, id, name string
		ok           bool
	}{
		{"/files/abc/photo.png", "abc", "photo.png", true},
		{"/files/abc/holiday%20photo.png?exp=1&sig=x", "abc", "holiday photo.png", true},
		{base + "/files/abc/a.png?exp=1", "abc", "a.png", true},
		{"https://elsewhere.example/files/abc/a.png", "", "", false},
		{"/files/abc", "", "", false},
		{"/files/abc/a/b", "", "", false},
		{"/files//a.png", "", "", false},
		{"/files/abc/%zz", "", "", false},
		{"/emoji/abc/a.png", "", "", false},
		{"", "", "", false},
	} {
		id, name, ok := parseFileRef(tc.in, base)
		if id != tc.id || name != tc.name || ok != tc.ok {
			t.Errorf("parseFileRef(%q) = %q, %q, %v; want %q, %q, %v", tc.in, id, name, ok, tc.id, tc.name, tc.ok)
		}
	}
	// What fileRef writes, parseFileRef reads.
	if id, name, ok := parseFileRef(fileRef("id-1", "../a b?.png"), ""); !ok || id != "id-1" || name != "a b?.png" {
		t.Errorf("round trip: %q %q %v", id, name, ok)
	}
}

// SignURLs signs a copy and leaves what it was given alone: responses share messages with the
// Snapshot and the hub.
func TestSignURLsSignsACopy(t *testing.T) {
	signer, err := blob.LoadOrCreateSigner(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 12, 30, 0, 0, time.UTC)
	e := &Engine{opts: Options{Signer: signer}, now: func() time.Time { return now }}
	ev := &svcv1.Event{Kind: &svcv1.Event_MessageCreated{MessageCreated: &svcv1.Message{
		Id:          "m",
		Attachments: []*svcv1.Attachment{{Id: "a1", Name: "x.png"}, {Id: "a2", Name: "y.txt"}},
	}}}
	orig := proto.Clone(ev)
	out := e.SignURLs(ev).(*svcv1.Event)
	if !proto.Equal(ev, orig) {
		t.Fatal("SignURLs changed its argument")
	}
	for i, a := range out.GetMessageCreated().GetAttachments() {
		if want := signer.URL(a.GetId(), a.GetName(), now); a.GetUrl() != want {
			t.Errorf("attachment %d: url %q, want %q", i, a.GetUrl(), want)
		}
	}
	// Nothing to sign: the same message back, no copy.
	plain := &svcv1.GetStateResponse{Members: []*svcv1.Member{{Id: "m1", AvatarUrl: "https://example.com/a.png"}}}
	if got := e.SignURLs(plain); got != proto.Message(plain) {
		t.Error("SignURLs copied a message with nothing to sign")
	}
	// A profile picture and a community icon are references in strings.
	st := &svcv1.GetStateResponse{Me: &svcv1.Member{AvatarUrl: fileRef("a3", "me.png")}}
	if got := e.SignURLs(st).(*svcv1.GetStateResponse).GetMe().GetAvatarUrl(); got != signer.URL("a3", "me.png", now) {
		t.Errorf("avatar_url %q", got)
	}
	info := &svcv1.GetServerInfoResponse{IconUrl: fileRef("a4", "icon.png"), Banner: &svcv1.Attachment{Id: "a5", Name: "b.png"}}
	got := e.SignURLs(info).(*svcv1.GetServerInfoResponse)
	if got.GetIconUrl() != signer.URL("a4", "icon.png", now) || got.GetBanner().GetUrl() != signer.URL("a5", "b.png", now) {
		t.Errorf("server info %v", got)
	}
}

// limitedReader lets exactly max bytes through and fails on the next one.
func TestLimitedReader(t *testing.T) {
	for _, tc := range []struct {
		size int
		err  error
	}{{0, nil}, {99, nil}, {100, nil}, {101, ErrFileTooLarge}, {10_000, ErrFileTooLarge}} {
		l := &limitedReader{r: bytes.NewReader(make([]byte, tc.size)), max: 100}
		n, err := io.Copy(io.Discard, l)
		if !errors.Is(err, tc.err) || (tc.err == nil && n != int64(tc.size)) || (tc.err != nil && n > 100) {
			t.Errorf("%d bytes: read %d, %v; want %v", tc.size, n, err, tc.err)
		}
	}
	// A read error of the body is kept, to tell it from the bucket's.
	l := &limitedReader{r: io.MultiReader(strings.NewReader("ab"), iotestErr{}), max: 100}
	if _, err := io.Copy(io.Discard, l); err == nil || l.err == nil {
		t.Errorf("the body's error was lost: %v, %v", err, l.err)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("connection reset") }
