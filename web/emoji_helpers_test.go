package web_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/png"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"hearth/blob"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// emojiAnswer is the answer to POST /emoji.
type emojiAnswer struct {
	status  int
	header  http.Header
	results []*svcv1.EmojiUploadResult // on 200
	err     string                     // the {"error"} text otherwise
}

// postEmoji sends the parts to POST /emoji as a streamed multipart/form-data body.
func postEmoji(t testing.TB, s *webtest.Server, token string, parts ...part) emojiAnswer {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for _, p := range parts {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, quoteEscaper.Replace(p.form), quoteEscaper.Replace(p.file)))
			w, err := mw.CreatePart(h)
			if err == nil {
				_, err = io.Copy(w, p.body)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(mw.Close())
	}()
	return postEmojiBody(t, s, token, mw.FormDataContentType(), pr)
}

// postEmojiBody sends any body to POST /emoji.
func postEmojiBody(t testing.TB, s *webtest.Server, token, contentType string, body io.Reader) emojiAnswer {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, s.URL+"/emoji", body)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", contentType)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("POST /emoji: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := emojiAnswer{status: res.StatusCode, header: res.Header}
	if res.StatusCode == http.StatusOK {
		var resp svcv1.UploadEmojiResponse
		if err := protojson.Unmarshal(b, &resp); err != nil {
			t.Fatalf("POST /emoji answered %s: %v", b, err)
		}
		out.results = resp.GetResults()
		return out
	}
	var e struct{ Error string }
	if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
		t.Fatalf("status %d with body %q, want {\"error\": ...}", res.StatusCode, b)
	}
	out.err = e.Error
	return out
}

// file is a part named "file".
func filePart(name string, data []byte) part {
	return part{form: "file", file: name, body: bytes.NewReader(data)}
}

// mustAddEmoji uploads files that must all be added, and returns their results.
func mustAddEmoji(t testing.TB, s *webtest.Server, by *webtest.Client, parts ...part) []*svcv1.EmojiUploadResult {
	t.Helper()
	a := postEmoji(t, s, by.Token, parts...)
	if a.status != http.StatusOK {
		t.Fatalf("POST /emoji: %d %s", a.status, a.err)
	}
	for _, r := range a.results {
		if r.GetStatus() != svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_ADDED {
			t.Fatalf("POST /emoji: %s was %s (%s)", r.GetFile(), r.GetStatus(), r.GetError())
		}
	}
	return a.results
}

// result is an EmojiUploadResult written short, for comparing answers.
type result struct {
	file, name string
	status     svcv1.EmojiUploadStatus
	err        string
}

const (
	added    = svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_ADDED
	taken    = svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_EXISTS
	rejected = svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_REJECTED
)

func wantResults(t *testing.T, got []*svcv1.EmojiUploadResult, want []result) {
	t.Helper()
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("got %q %q %s %q", g.GetFile(), g.GetName(), g.GetStatus(), g.GetError())
		}
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := result{got[i].GetFile(), got[i].GetName(), got[i].GetStatus(), got[i].GetError()}
		if g != w {
			t.Errorf("result %d:\n got %q %q %s %q\nwant %q %q %s %q", i, g.file, g.name, g.status, g.err, w.file, w.name, w.status, w.err)
		}
	}
}

// listEmojiOf is GET /emoji as c.
func listEmojiOf(t testing.TB, s *webtest.Server, c *webtest.Client) []*svcv1.CustomEmoji {
	t.Helper()
	f := fetchAs(t, s, c, "/emoji")
	if f.status != http.StatusOK {
		t.Fatalf("GET /emoji: %d %s", f.status, f.body)
	}
	var l svcv1.ListEmojiResponse
	if err := protojson.Unmarshal(f.body, &l); err != nil {
		t.Fatalf("GET /emoji answered %s: %v", f.body, err)
	}
	return l.GetEmoji()
}

// emojiURLs maps each emoji's name to its URL.
func emojiURLs(list []*svcv1.CustomEmoji) map[string]string {
	m := map[string]string{}
	for _, e := range list {
		m[e.GetName()] = e.GetUrl()
	}
	return m
}

// fetchAs GETs a path with c's token and extra headers (without transparent gzip).
func fetchAs(t testing.TB, s *webtest.Server, c *webtest.Client, path string, header ...string) fetched {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c != nil {
		r.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(r)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fetched{res.StatusCode, res.Header, b}
}

// noisePNG is a w x h PNG of random pixels: it does not compress, so its size follows w x h.
func noisePNG(t testing.TB, w, h int, seed uint64) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// animatedGIF is a w x h GIF of frames frames.
func animatedGIF(t testing.TB, w, h, frames int) []byte {
	t.Helper()
	g := &gif.GIF{}
	for f := range frames {
		img := image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9)
		for i := range img.Pix {
			img.Pix[i] = byte(i + f*17)
		}
		img.Set(0, 0, color.White)
		g.Image = append(g.Image, img)
		g.Delay = append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpImage is a real 7x5 WebP from the sandbox's fixtures.
func webpImage(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../engine/sandbox/testdata/images/lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// zipEntry is one file of zipOf; dir entries end in "/".
type zipEntry struct {
	name string
	data []byte
}

// zipOf is a zip archive of the entries, deflated.
func zipOf(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	// One compressor for every entry, reset for each: the zip writer's default makes one per
	// entry, over a megabyte of state each time, which for the 10,000-entry archives of
	// TestEmojiCountLimits was a seventh of the web tests' CPU under the race detector.
	var fw *flate.Writer
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		if fw == nil {
			var err error
			fw, err = flate.NewWriter(w, flate.DefaultCompression)
			return fw, err
		}
		fw.Reset(w)
		return fw, nil
	})
	for _, e := range entries {
		w, err := zw.Create(e.name)
		if err == nil {
			_, err = w.Write(e.data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// emojiKeys lists the objects under emoji/.
func emojiKeys(t testing.TB, s *webtest.Server) []string {
	t.Helper()
	var keys []string
	err := s.Bucket().List(context.Background(), blob.EmojiKey(""), func(key string, _ int64, _ time.Time) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// wantNoSpool checks that the spool folder holds no file: archives are unlinked at once.
func wantNoSpool(t *testing.T, s *webtest.Server) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.Dir, "tmp"))
	if err != nil {
		t.Fatalf("the spool folder: %v", err)
	}
	for _, e := range entries {
		t.Errorf("left in the spool folder: %s", e.Name())
	}
}

// lyingBomb is a zip of one entry, name, whose header claims 1,000 bytes while its data
// inflates to 16 MiB of zeros.
func lyingBomb(t testing.TB, name string) []byte {
	t.Helper()
	var packed bytes.Buffer
	fw, _ := flate.NewWriter(&packed, flate.BestCompression)
	fw.Write(make([]byte, 16<<20))
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: 1,
		CompressedSize64: uint64(packed.Len()), UncompressedSize64: 1000})
	if err == nil {
		_, err = w.Write(packed.Bytes())
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
