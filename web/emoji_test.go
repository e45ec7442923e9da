package web_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	"hearth/blob"
	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// An owner adds a PNG, an animated GIF and a WebP; the list shows them sorted by name; each URL
// serves the same bytes, with its type and a year of caching, without a token, and still after
// a restart.
func TestEmojiAreAddedListedAndServed(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	files := map[string][]byte{
		"Party Parrot.PNG": pngImage(t, 64, 64),
		"dance.gif":        animatedGIF(t, 32, 32, 3),
		"blob-wave.webp":   webpImage(t),
	}
	got := mustAddEmoji(t, s, alice,
		filePart("Party Parrot.PNG", files["Party Parrot.PNG"]),
		filePart("dance.gif", files["dance.gif"]),
		filePart("blob-wave.webp", files["blob-wave.webp"]))
	wantResults(t, got, []result{
		{"Party Parrot.PNG", "party_parrot", added, ""},
		{"dance.gif", "dance", added, ""},
		{"blob-wave.webp", "blob-wave", added, ""},
	})

	list := listEmojiOf(t, s, bob)
	var names []string
	for _, e := range list {
		names = append(names, e.GetName())
		if !strings.HasPrefix(e.GetUrl(), "/emoji/") {
			t.Errorf("%s: url %q", e.GetName(), e.GetUrl())
		}
	}
	if want := []string{"blob-wave", "dance", "party_parrot"}; !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	check := func(when string) {
		t.Helper()
		types := map[string]string{"party_parrot": "image/png", "dance": "image/gif", "blob-wave": "image/webp"}
		sources := map[string]string{"party_parrot": "Party Parrot.PNG", "dance": "dance.gif", "blob-wave": "blob-wave.webp"}
		for _, e := range list {
			f := fetch(t, s, http.MethodGet, e.GetUrl())
			if f.status != http.StatusOK || !bytes.Equal(f.body, files[sources[e.GetName()]]) {
				t.Fatalf("%s: GET %s without a token: %d, %d bytes", when, e.GetUrl(), f.status, len(f.body))
			}
			if ct := f.header.Get("Content-Type"); ct != types[e.GetName()] {
				t.Errorf("%s: %s: Content-Type %q", when, e.GetName(), ct)
			}
			if cc := f.header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
				t.Errorf("%s: %s: Cache-Control %q", when, e.GetName(), cc)
			}
			if f.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: %s: no nosniff", when, e.GetName())
			}
		}
	}
	check("at once")
	s.Restart()
	check("after a restart")
	if again := listEmojiOf(t, s, bob); len(again) != 3 || again[0].GetUrl() != list[0].GetUrl() {
		t.Errorf("after a restart the list is %v", again)
	}
}

// Every way an image or an archive entry can be refused, in one request whose answer lists each
// image in order; what passes is added, and what is skipped (folders, __MACOSX, dotfiles) is
// not listed at all.
func TestEmojiRejections(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	mustAddEmoji(t, s, alice, filePart("taken.png", pngImage(t, 8, 8)))

	ok := pngImage(t, 16, 16)
	big := noisePNG(t, 260, 260, 1) // 270 KB of pixels that do not compress
	if len(big) <= engine.EmojiMaxBytes {
		t.Fatalf("the big PNG is only %d bytes", len(big))
	}
	inner := zipOf(t, zipEntry{"x.png", ok})
	archive := zipOf(t,
		zipEntry{"pack/", nil},
		zipEntry{"pack/ok.png", ok},
		zipEntry{"__MACOSX/pack/._ok.png", []byte("apple double")},
		zipEntry{"pack/.DS_Store", []byte("finder")},
		zipEntry{".hidden.png", ok},
		zipEntry{"pack/bomb.png", make([]byte, 16<<20)},
		zipEntry{"../escape.png", ok},
		zipEntry{"pack/inner.zip", inner},
		zipEntry{"pack/inner.png", inner},
		zipEntry{"pack/again/OK.png", ok},
		zipEntry{"pack/huge.png", pngHeader(1000, 1000)},
	)
	a := postEmoji(t, s, alice.Token,
		filePart("fine.png", ok),
		filePart("big.png", big),
		filePart("wide.png", pngHeader(513, 10)),
		filePart("notes.png", []byte("just some text, not an image")),
		filePart("empty.png", nil),
		filePart("sneaky.png", inner),
		filePart("taken.png", ok),
		filePart("fine.gif", animatedGIF(t, 8, 8, 2)),
		filePart(".png", ok),
		filePart(strings.Repeat("n", 63)+".png", ok),
		filePart("broken.zip", []byte("PK\x03\x04 this is no archive")),
		filePart("pack.zip", archive),
		filePart("liar.zip", lyingBomb(t, "liar.png")),
	)
	if a.status != http.StatusOK {
		t.Fatalf("POST /emoji: %d %s", a.status, a.err)
	}
	const notImage = ", not a PNG, GIF or WebP image"
	wantResults(t, a.results, []result{
		{"fine.png", "fine", added, ""},
		{"big.png", "big", rejected, "it is larger than 256 KB (256,000 bytes)"},
		{"wide.png", "wide", rejected, "it is 513x10 pixels; the limit is 512x512"},
		{"notes.png", "notes", rejected, "it is text/plain; charset=utf-8" + notImage},
		{"empty.png", "empty", rejected, "it is empty (0 bytes)" + notImage},
		{"sneaky.png", "sneaky", rejected, "it is application/zip" + notImage},
		{"taken.png", "taken", taken, ""},
		{"fine.gif", "fine", taken, ""},
		{".png", "", rejected, "its file name gives no emoji name (it is empty without its extension)"},
		{strings.Repeat("n", 63) + ".png", strings.Repeat("n", 63), rejected, "its name is 63 characters long; the limit is 62"},
		{"broken.zip", "", rejected, "it is not a zip archive (or its central directory is damaged)"},
		{"pack/ok.png", "ok", added, ""},
		{"pack/bomb.png", "bomb", rejected, "it is larger than 256 KB (256,000 bytes) uncompressed"},
		{"../escape.png", "escape", rejected, "its path is not a plain relative path inside the archive (no ../, leading /, backslash, drive letter or control character)"},
		{"pack/inner.zip", "inner", rejected, "it is a zip archive itself; archives inside the archive are not opened"},
		{"pack/inner.png", "inner", rejected, "it is a zip archive itself; archives inside the archive are not opened"},
		{"pack/again/OK.png", "ok", taken, ""},
		{"pack/huge.png", "huge", rejected, "it is 1000x1000 pixels; the limit is 512x512"},
		{"liar.png", "liar", rejected, "it is larger than 256 KB (256,000 bytes) uncompressed"},
	})
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range emojiURLs(listEmojiOf(t, s, alice)) {
			if !yield(n) {
				return
			}
		}
	})
	if want := []string{"fine", "ok", "taken"}; !slices.Equal(names, want) {
		t.Errorf("emoji %v, want %v", names, want)
	}
	if keys := emojiKeys(t, s); len(keys) != 3 {
		t.Errorf("objects %v, want the three emoji's", keys)
	}
	wantNoSpool(t, s)
}

// A body over 64 MB is a 413 and adds nothing, not even the images before the excess; so is a
// body cut short. Bodies that are not parts named file are 400s.
func TestEmojiRequestLimits(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")

	// Streamed without a Content-Length: the excess is found while reading.
	a := postEmoji(t, s, alice.Token,
		filePart("early.png", pngImage(t, 8, 8)),
		part{form: "file", file: "huge.zip", body: io.LimitReader(&pattern{}, engine.MaxEmojiRequestBytes+100<<10)})
	wantEmojiRefused(t, "65 MB streamed", a, http.StatusRequestEntityTooLarge, "the request is larger than 64 MB (64,000,000 bytes)")

	// Declared: refused before anything is read (the client sends only the headers).
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /emoji HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n", alice.Token, engine.MaxEmojiRequestBytes+1<<20)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	declared, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(declared), "the request is larger than 64 MB") {
		t.Errorf("a declared 65 MB: %d %s", res.StatusCode, declared)
	}

	// Cut short in the middle of the second part.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "first.png")
	w.Write(pngImage(t, 8, 8))
	w, _ = mw.CreateFormFile("file", "second.png")
	w.Write(pngImage(t, 9, 9)[:40])
	a = postEmojiBody(t, s, alice.Token, mw.FormDataContentType(), &body)
	wantEmojiRefused(t, "a body cut short", a, http.StatusBadRequest, "the multipart body is cut short or malformed")

	a = postEmoji(t, s, alice.Token, part{form: "image", file: "a.png", body: bytes.NewReader(pngImage(t, 8, 8))})
	wantEmojiRefused(t, "a part named image", a, http.StatusBadRequest, `every part must be named "file"; got "image"`)
	a = postEmoji(t, s, alice.Token)
	wantEmojiRefused(t, "no parts", a, http.StatusBadRequest, `the body has no part named "file"`)
	a = postEmojiBody(t, s, alice.Token, "application/json", strings.NewReader("{}"))
	wantEmojiRefused(t, "JSON", a, http.StatusBadRequest, `the body must be multipart/form-data with parts named "file"`)

	if list := listEmojiOf(t, s, alice); len(list) != 0 {
		t.Errorf("refused requests added %v", list)
	}
	if keys := emojiKeys(t, s); len(keys) != 0 {
		t.Errorf("refused requests left objects %v", keys)
	}
	wantNoSpool(t, s)
}

func wantEmojiRefused(t *testing.T, what string, got emojiAnswer, status int, text string) {
	t.Helper()
	if got.status != status || got.err != text {
		t.Errorf("%s: got %d %q, want %d %q", what, got.status, got.err, status, text)
	}
}

// Members may list and export but not add or delete; without a token nothing but the images;
// while the community is set up, only the owner adds.
func TestEmojiPermissions(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Client(s.Token("owner"))
	if _, err := owner.Server.Join(ctx, req(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	mod := s.Join("mod")
	member := s.Join("member")
	if _, err := owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: mod.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_MODERATOR})); err != nil {
		t.Fatal(err)
	}
	img := pngImage(t, 8, 8)
	a := postEmoji(t, s, mod.Token, filePart("early.png", img))
	wantEmojiRefused(t, "a moderator during setup", a, http.StatusForbidden, "the community is being set up; until the owner finishes, only the owner can do this")
	mustAddEmoji(t, s, owner, filePart("owners.png", img))
	done := true
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{SetupComplete: &done})); err != nil {
		t.Fatal(err)
	}

	a = postEmoji(t, s, member.Token, filePart("mine.png", img))
	wantEmojiRefused(t, "a member", a, http.StatusForbidden, "adding emoji needs the moderator rank or higher")
	a = postEmoji(t, s, "", filePart("anon.png", img))
	if a.status != http.StatusUnauthorized {
		t.Errorf("no token: %d %q", a.status, a.err)
	}
	mustAddEmoji(t, s, mod, filePart("mods.png", img))

	for _, path := range []string{"/emoji", "/emoji.zip"} {
		if f := fetchAs(t, s, member, path); f.status != http.StatusOK {
			t.Errorf("a member's GET %s: %d", path, f.status)
		}
		if f := fetchAs(t, s, nil, path); f.status != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d", path, f.status)
		}
	}
	_, err := member.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "mods"}))
	wantCode(t, "a member deletes", err, connect.CodePermissionDenied, "deleting an emoji needs the moderator rank or higher")
	_, err = mod.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "nope"}))
	wantCode(t, "an unknown name", err, connect.CodeNotFound, `there is no emoji called "nope"`)
	if _, err := mod.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "owners"})); err != nil {
		t.Errorf("a moderator deletes the owner's emoji: %v", err)
	}
}

// GET /emoji: a weak ETag that changes with the emoji, 304 for it, gzip when asked.
func TestEmojiListCaching(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	first := fetchAs(t, s, alice, "/emoji")
	if first.status != http.StatusOK || string(first.body) != "{}" {
		t.Fatalf("an empty list: %d %s", first.status, first.body)
	}
	mustAddEmoji(t, s, alice, filePart("one.png", pngImage(t, 8, 8)), filePart("two.gif", animatedGIF(t, 8, 8, 2)))
	f := fetchAs(t, s, alice, "/emoji")
	etag := f.header.Get("ETag")
	if f.status != http.StatusOK || !strings.HasPrefix(etag, `W/"`) || etag == first.header.Get("ETag") {
		t.Fatalf("after adding: %d, ETag %q (before %q)", f.status, etag, first.header.Get("ETag"))
	}
	if cc := f.header.Get("Cache-Control"); cc != "private, no-cache" {
		t.Errorf("Cache-Control %q", cc)
	}
	if f.header.Get("Content-Encoding") != "" || f.header.Get("Content-Type") != "application/json" {
		t.Errorf("plain answer headers %v", f.header)
	}

	nm := fetchAs(t, s, alice, "/emoji", "If-None-Match", etag)
	if nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
		t.Errorf("If-None-Match: %d %q, ETag %q", nm.status, nm.body, nm.header.Get("ETag"))
	}
	if nm := fetchAs(t, s, alice, "/emoji", "If-None-Match", `W/"1", `+strings.TrimPrefix(etag, "W/")); nm.status != http.StatusNotModified {
		t.Errorf("a list holding the tag without W/: %d", nm.status)
	}

	gz := fetchAs(t, s, alice, "/emoji", "Accept-Encoding", "br, gzip;q=0.8")
	if gz.status != http.StatusOK || gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip: %d %v", gz.status, gz.header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(plain, f.body) {
		t.Errorf("gzip body %s, want %s (%v)", plain, f.body, err)
	}
	if no := fetchAs(t, s, alice, "/emoji", "Accept-Encoding", "gzip;q=0"); no.header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 was gzipped")
	}

	// The tag survives a restart, and changes with a deletion.
	s.Restart()
	if again := fetchAs(t, s, alice, "/emoji", "If-None-Match", etag); again.status != http.StatusNotModified {
		t.Errorf("after a restart: %d", again.status)
	}
	if _, err := alice.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "one"})); err != nil {
		t.Fatal(err)
	}
	after := fetchAs(t, s, alice, "/emoji", "If-None-Match", etag)
	if after.status != http.StatusOK || after.header.Get("ETag") == etag {
		t.Errorf("after a deletion: %d, ETag %q", after.status, after.header.Get("ETag"))
	}
}

// DeleteEmoji: the URL answers 404 at once and for good (a new emoji of the same name gets a new
// id), the object leaves the bucket, and members hear emoji_changed.
func TestEmojiDelete(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	mustAddEmoji(t, s, alice, filePart("wave.png", pngImage(t, 8, 8)))
	old := emojiURLs(listEmojiOf(t, s, bob))["wave"]
	st := bob.Subscribe(t, s.Engine.Seq())

	if _, err := alice.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "wave"})); err != nil {
		t.Fatal(err)
	}
	if ev := st.Next(); !ev.GetEmojiChanged() {
		t.Fatalf("bob got %v, want emoji_changed", ev)
	}
	if status, msg := fetchError(t, s, old); status != http.StatusNotFound || msg != "no emoji has this id" {
		t.Errorf("GET a deleted emoji: %d %q", status, msg)
	}
	if keys := emojiKeys(t, s); len(keys) != 0 {
		t.Errorf("objects left: %v", keys)
	}
	if list := listEmojiOf(t, s, bob); len(list) != 0 {
		t.Errorf("list %v", list)
	}
	mustAddEmoji(t, s, alice, filePart("wave.gif", animatedGIF(t, 8, 8, 2)))
	if now := emojiURLs(listEmojiOf(t, s, bob))["wave"]; now == old || now == "" {
		t.Errorf("the new wave has url %q, the old one had %q", now, old)
	}
	if status, _ := fetchError(t, s, old); status != http.StatusNotFound {
		t.Errorf("the old id serves again: %d", status)
	}
	if status, _ := fetchError(t, s, "/emoji/"+strings.Repeat("a", 100)); status != http.StatusNotFound {
		t.Errorf("a long id: %d", status)
	}
	// A name no emoji can have is a bad argument naming the field and the limit, not an unknown
	// name (which is not_found).
	for _, c := range []struct{ name, want string }{
		{"", "name is required"},
		{strings.Repeat("a", 63), "name is 63 characters; the limit is 62"},
		{strings.Repeat("a", 100_000), "name is 100,000 characters; the limit is 62"},
		{"Wave", `name must be made of a-z, 0-9, hyphen and underscore; got "Wave"`},
		{":wave:", `name must be made of a-z, 0-9, hyphen and underscore; got ":wave:"`},
	} {
		_, err := alice.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: c.name}))
		wantCode(t, "DeleteEmoji "+c.name[:min(len(c.name), 10)], err, connect.CodeInvalidArgument, c.want)
	}
	_, err := alice.Server.DeleteEmoji(ctx, req(&svcv1.DeleteEmojiRequest{Name: "nothing-here"}))
	wantCode(t, "DeleteEmoji of an unknown name", err, connect.CodeNotFound, `there is no emoji called "nothing-here"`)
}

// One request that adds several emoji sends one emoji_changed to every member; one that adds
// nothing sends none.
func TestEmojiChangedOncePerRequest(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	st := bob.Subscribe(t, s.Engine.Seq())
	mustAddEmoji(t, s, alice,
		filePart("a.png", pngImage(t, 8, 8)),
		filePart("b.png", pngImage(t, 9, 9)),
		filePart("pack.zip", zipOf(t, zipEntry{"c.gif", animatedGIF(t, 8, 8, 2)}, zipEntry{"d.webp", webpImage(t)})))
	if ev := st.Next(); !ev.GetEmojiChanged() {
		t.Fatalf("bob got %v, want emoji_changed", ev)
	}
	// Nothing added: no event. The channel that follows is the next event bob sees.
	if a := postEmoji(t, s, alice.Token, filePart("a.png", pngImage(t, 8, 8))); a.status != http.StatusOK || a.results[0].GetStatus() != taken {
		t.Fatalf("again: %d %v", a.status, a.results)
	}
	mustChannel(t, alice, "after", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	if ev := st.Next(); ev.GetChannelCreated() == nil {
		t.Fatalf("bob got %v, want channel_created", ev)
	}
}

// GET /emoji.zip has every emoji as name.ext; uploaded to another server, it makes the same set,
// byte for byte.
func TestEmojiExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	a := webtest.Start(t)
	alice := a.Join("alice")
	mustAddEmoji(t, a, alice, filePart("pack.zip", zipOf(t,
		zipEntry{"pack/", nil},
		zipEntry{"pack/Cat Jam.gif", animatedGIF(t, 48, 48, 4)},
		zipEntry{"pack/thumbs-up.png", pngImage(t, 32, 32)},
		zipEntry{"pack/blob.webp", webpImage(t)},
	)), filePart("big.png", noisePNG(t, 250, 250, 2)))

	export := fetchAs(t, a, alice, "/emoji.zip")
	if export.status != http.StatusOK || export.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("GET /emoji.zip: %d %v", export.status, export.header)
	}
	zr, err := zip.NewReader(bytes.NewReader(export.body), int64(len(export.body)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Flags&0x8 != 0 {
			t.Errorf("%s has a data descriptor", f.Name)
		}
	}
	if want := []string{"big.png", "blob.webp", "cat_jam.gif", "thumbs-up.png"}; !slices.Equal(names, want) {
		t.Fatalf("export holds %v, want %v", names, want)
	}

	b := webtest.Start(t)
	carol := b.Join("carol")
	mustAddEmoji(t, b, carol, filePart("emoji.zip", export.body))
	fromA, fromB := emojiURLs(listEmojiOf(t, a, alice)), emojiURLs(listEmojiOf(t, b, carol))
	if len(fromA) != 4 || len(fromB) != 4 {
		t.Fatalf("a has %v, b has %v", fromA, fromB)
	}
	for name, ua := range fromA {
		ub, ok := fromB[name]
		if !ok {
			t.Errorf("b lacks %s", name)
			continue
		}
		fa, fb := fetch(t, a, http.MethodGet, ua), fetch(t, b, http.MethodGet, ub)
		if !bytes.Equal(fa.body, fb.body) || fa.header.Get("Content-Type") != fb.header.Get("Content-Type") {
			t.Errorf("%s differs: %d bytes %s, %d bytes %s", name, len(fa.body), fa.header.Get("Content-Type"), len(fb.body), fb.header.Get("Content-Type"))
		}
	}
}

// Thirty uploads a minute per member, POST /upload and POST /emoji together.
func TestEmojiRateLimitIsSharedWithUploads(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock()
	s := webtest.Start(t, webtest.WithClock(clock))
	alice := s.Join("alice")
	img := pngImage(t, 8, 8)
	for i := range 15 {
		if res := postUpload(t, s, alice.Token, part{form: "file", file: "f.png", body: bytes.NewReader(img)}); res.status != http.StatusOK {
			t.Fatalf("upload %d: %d %s", i, res.status, res.err)
		}
		if a := postEmoji(t, s, alice.Token, filePart("e.png", img)); a.status != http.StatusOK {
			t.Fatalf("emoji %d: %d %s", i, a.status, a.err)
		}
	}
	a := postEmoji(t, s, alice.Token, filePart("late.png", img))
	wantEmojiRefused(t, "31st", a, http.StatusTooManyRequests, "uploading files and emoji: rate limit reached; retry in 2s")
	if a.header.Get("Retry-After") != "2" {
		t.Errorf("Retry-After %q", a.header.Get("Retry-After"))
	}
	res := postUpload(t, s, alice.Token, part{form: "file", file: "f.png", body: bytes.NewReader(img)})
	wantRefused(t, "an upload after 30 of both", res, http.StatusTooManyRequests, "uploading files: rate limit reached; retry in 2s")
	clock.Advance(2 * time.Second)
	if a := postEmoji(t, s, alice.Token, filePart("later.png", img)); a.status != http.StatusOK {
		t.Errorf("2 s later: %d %s", a.status, a.err)
	}
}

// A custom emoji is a reaction as :name:, and message text keeps :name: as written.
func TestEmojiInReactionsAndText(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	mustAddEmoji(t, s, alice, filePart("partyparrot.gif", animatedGIF(t, 16, 16, 2)))
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	m := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "hello :partyparrot: and :unknown:"})
	if m.GetText() != "hello :partyparrot: and :unknown:" {
		t.Errorf("text %q", m.GetText())
	}
	r, err := bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: ":partyparrot:"}))
	if err != nil {
		t.Fatal(err)
	}
	if rs := r.Msg.GetMessage().GetReactions(); len(rs) != 1 || rs[0].GetEmoji() != ":partyparrot:" {
		t.Errorf("reactions %v", rs)
	}
	_, err = bob.Chat.React(ctx, req(&svcv1.ReactRequest{MessageId: m.GetId(), Emoji: ":Party Parrot:"}))
	wantCode(t, "a malformed shortcode", err, connect.CodeInvalidArgument, "shortcode")
}

// An object under emoji/ without a row (a crash between storing it and committing the row) is
// swept; an emoji's object is not.
func TestEmojiOrphansAreSwept(t *testing.T) {
	t.Parallel()
	// A negative age makes every object old enough.
	s := webtest.Start(t, func(o *engine.Options) { o.OrphanAge = -time.Hour })
	alice := s.Join("alice")
	mustAddEmoji(t, s, alice, filePart("kept.png", pngImage(t, 8, 8)))
	if _, err := s.Bucket().Put(ctx, blob.EmojiKey("0190c1d2-0000-7000-8000-000000000000"), bytes.NewReader(pngImage(t, 8, 8)), "image/png"); err != nil {
		t.Fatal(err)
	}
	n, err := s.Engine.SweepOrphans(ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want 1", n, err)
	}
	keys := emojiKeys(t, s)
	url := emojiURLs(listEmojiOf(t, s, alice))["kept"]
	if len(keys) != 1 || "/"+keys[0] != url {
		t.Errorf("left %v, want the object of %s", keys, url)
	}
}

// The answer is JSON as protojson writes it (statuses by name).
func TestEmojiAnswerIsProtoJSON(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	r, _ := http.NewRequest(http.MethodPost, s.URL+"/emoji", nil)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "x.png")
	w.Write(pngImage(t, 8, 8))
	mw.Close()
	r.Body = io.NopCloser(&body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+alice.Token)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	want := `{"results":[{"file":"x.png","name":"x","status":"EMOJI_UPLOAD_STATUS_ADDED"}]}`
	var resp svcv1.UploadEmojiResponse
	if err := protojson.Unmarshal(b, &resp); err != nil || !strings.Contains(strings.ReplaceAll(string(b), " ", ""), want) {
		t.Errorf("answer %s, want %s", b, want)
	}
}

// An archive of more than 10,000 files is refused whole, before any entry is looked at; a
// request of more than 10,000 results is a 400 and adds nothing.
func TestEmojiCountLimits(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	many := func(n int, name string) []byte {
		var entries []zipEntry
		for i := range n {
			entries = append(entries, zipEntry{fmt.Sprintf(name, i), []byte("x")})
		}
		return zipOf(t, entries...)
	}
	a := postEmoji(t, s, alice.Token, filePart("many.zip", many(10_001, "e%d.png")))
	if a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.err)
	}
	wantResults(t, a.results, []result{{"many.zip", "", rejected, "the archive has more than 10,000 files"}})

	// 10,000 entries refused for their paths (cheap: nothing is read), then one image more.
	a = postEmoji(t, s, alice.Token,
		filePart("first.png", pngImage(t, 8, 8)),
		filePart("tricks.zip", many(9_999, "../e%d.png")),
		filePart("last.png", pngImage(t, 8, 8)))
	wantEmojiRefused(t, "10,001 results", a, http.StatusBadRequest, "a request may hold at most 10,000 images; send the rest in another request")
	if list := listEmojiOf(t, s, alice); len(list) != 0 {
		t.Errorf("added %v", list)
	}
	if keys := emojiKeys(t, s); len(keys) != 0 {
		t.Errorf("objects left: %v", keys)
	}
}

// Two requests adding the same name at once: one adds it, the other finds it taken, and only
// the added emoji's object stays.
func TestEmojiSameNameAtOnce(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	// The bodies are made here and sent from two goroutines, which only report back.
	type sent struct {
		status int
		body   []byte
		err    error
	}
	answers := make(chan sent, 2)
	for i := range 2 {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		w, _ := mw.CreateFormFile("file", "same.png")
		w.Write(pngImage(t, 8+i, 8))
		mw.Close()
		r, _ := http.NewRequest(http.MethodPost, s.URL+"/emoji", &body)
		r.Header.Set("Content-Type", mw.FormDataContentType())
		r.Header.Set("Authorization", "Bearer "+alice.Token)
		go func() {
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				answers <- sent{err: err}
				return
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			answers <- sent{res.StatusCode, b, err}
		}()
	}
	statuses := map[svcv1.EmojiUploadStatus]int{}
	for range 2 {
		a := <-answers
		var resp svcv1.UploadEmojiResponse
		if a.err != nil || a.status != http.StatusOK || protojson.Unmarshal(a.body, &resp) != nil || len(resp.GetResults()) != 1 {
			t.Fatalf("%d %s %v", a.status, a.body, a.err)
		}
		statuses[resp.GetResults()[0].GetStatus()]++
	}
	if statuses[added] != 1 || statuses[taken] != 1 {
		t.Errorf("statuses %v, want one added and one taken", statuses)
	}
	if keys := emojiKeys(t, s); len(keys) != 1 {
		t.Errorf("objects %v, want one", keys)
	}
}
