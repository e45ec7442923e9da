package web_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"net/http"
	"strings"
	"testing"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// bigFrameGIF is a GIF whose header claims a 16x16 logical screen while its one frame is
// side x side pixels: all one color, so it is a few kilobytes.
func bigFrameGIF(t *testing.T, side int) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, side, side), []color.Color{color.White, color.Black})
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	binary.LittleEndian.PutUint16(b[6:], 16)
	binary.LittleEndian.PutUint16(b[8:], 16)
	return b
}

// An emoji's 512x512 bound holds for the pixels a GIF's frames reach, not only for the
// logical screen its header claims: 11 KB "of 16x16" holding a 4,000x4,000 frame, which
// every client would decode wherever the emoji shows, is refused.
func TestEmojiGIFFrameLargerThanItsScreenIsRefused(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bomb := bigFrameGIF(t, 4000)
	if len(bomb) > 256_000 {
		t.Fatalf("the GIF is %d bytes", len(bomb))
	}
	a := postEmoji(t, s, alice.Token,
		filePart("bomb.gif", bomb),
		filePart("wide.gif", bigFrameGIF(t, 513)),
		filePart("fine.gif", bigFrameGIF(t, 512)),
		filePart("anim.gif", animatedGIF(t, 8, 8, 3)),
	)
	if a.status != http.StatusOK {
		t.Fatalf("POST /emoji: %d %s", a.status, a.err)
	}
	wantResults(t, a.results, []result{
		{"bomb.gif", "bomb", rejected, "it is 4000x4000 pixels; the limit is 512x512"},
		{"wide.gif", "wide", rejected, "it is 513x513 pixels; the limit is 512x512"},
		{"fine.gif", "fine", added, ""},
		{"anim.gif", "anim", added, ""},
	})
	if n := len(listEmojiOf(t, s, alice)); n != 2 {
		t.Errorf("%d emoji listed, want 2", n)
	}
}

// A preview's image is left out when its GIF frames reach past 8,192 pixels on a side, however
// small the logical screen its header claims.
func TestLinkPreviewGIFFrameLargerThanItsScreenIsLeftOut(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	site.html("/big", ogPage("Big", "A GIF claiming 16x16", "", "/big.gif"))
	site.file("/big.gif", "image/gif", bigFrameGIF(t, 9000))
	site.html("/fine", ogPage("Fine", "A GIF of 16x16", "", "/fine.gif"))
	site.file("/fine.gif", "image/gif", bigFrameGIF(t, 16))
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	got := previewsOf(t, owner, ch, site.URL+"/big "+site.URL+"/fine")
	if len(got) != 2 || got[0].GetTitle() != "Big" || got[1].GetTitle() != "Fine" {
		t.Fatalf("previews %v", got)
	}
	if got[0].GetImageUrl() != "" {
		t.Errorf("the 9,000x9,000 frame's GIF is served at %q", got[0].GetImageUrl())
	}
	if !strings.HasPrefix(got[1].GetImageUrl(), "/previews/") {
		t.Errorf("the 16x16 GIF: image_url %q", got[1].GetImageUrl())
	}
	if site.hitsOf("/big.gif") != 1 {
		t.Errorf("the GIF was fetched %d times", site.hitsOf("/big.gif"))
	}
}

// An XHTML page (application/xhtml+xml) is read in the encoding its XML declaration names, as
// browsers read it: a Shift_JIS page's title is Japanese, not windows-1252 mojibake.
func TestLinkPreviewXHTMLPageInItsDeclaredEncoding(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	site.file("/xhtml", "application/xhtml+xml", []byte(`<?xml version="1.0" encoding="Shift_JIS"?>`+
		`<html xmlns="http://www.w3.org/1999/xhtml"><head><title>`+"\x93\xfa\x96\x7b\x8c\xea"+`</title>`+
		`<meta name="description" content="`+"\x83\x65\x83\x58\x83\x67"+`"/></head><body/></html>`))
	site.file("/latin1", "text/html; charset=ISO-8859-1", []byte("<title>Caf\xe9 cr\xe8me</title>"))
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	got := previewsOf(t, owner, ch, site.URL+"/xhtml and "+site.URL+"/latin1")
	if len(got) != 2 {
		t.Fatalf("previews %v", got)
	}
	if got[0].GetTitle() != "日本語" || got[0].GetDescription() != "テスト" {
		t.Errorf("XHTML page: title %q, description %q", got[0].GetTitle(), got[0].GetDescription())
	}
	if got[1].GetTitle() != "Café crème" {
		t.Errorf("Latin-1 page: title %q", got[1].GetTitle())
	}
}

// An apostrophe is part of a link, as the browser client links it: a message naming
// .../wiki/Ender's_Game gets that page's preview, not that of .../wiki/Ender, a page the
// message never named. A quote around a link still ends it, and so does an apostrophe in the
// host, which no host name has (a possessive: "https://example.com's home page").
func TestLinkPreviewOfALinkWithAnApostrophe(t *testing.T) {
	t.Parallel()
	site := newPages(t)
	site.html("/wiki/Ender's_Game", "<title>Ender's Game</title>")
	site.html("/wiki/Ender", "<title>Ender (disambiguation)</title>")
	site.html("/quoted", "<title>Quoted</title>")
	site.html("/", "<title>Home</title>")
	s := webtest.Start(t, webtest.WithPreviewAllowPrivate())
	owner := s.Join("owner")
	ch := mustChannel(t, owner, "links", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	link := site.URL + "/wiki/Ender's_Game"
	got := previewsOf(t, owner, ch, "read "+link+", then '"+site.URL+"/quoted'. And "+site.URL+"'s home page.")
	var seen []string
	for _, p := range got {
		seen = append(seen, p.GetUrl()+" = "+p.GetTitle())
	}
	want := []string{link + " = Ender's Game", site.URL + "/quoted = Quoted", site.URL + " = Home"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("previews:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if n := site.hitsOf("/wiki/Ender"); n != 0 {
		t.Errorf("/wiki/Ender, which the message does not name, was fetched %d times", n)
	}
}
