// Package pwa makes the browser client installable (EXTENSIONS.md 7): the web app manifest at
// /app/manifest.webmanifest (the community's name and icon, display standalone, start_url
// /app/), the icons it lists, and the service worker at /app/sw.js, which shows Web Push
// notifications and opens what they link to. They are served beside the client's bundle
// (web/app), in the same scope, and change nothing of it.
package pwa

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/image/vector"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/app"
)

//go:embed sw.js
var serviceWorker []byte

// IconSizes are the sizes of the icons the manifest lists: what Chromium's installability
// check and Android's launcher and splash screen look for.
var IconSizes = []int{192, 512}

// minCommunityIcon is the smallest community icon the manifest lists instead of Hearth's own:
// Chromium wants a square icon of at least 144 pixels.
const minCommunityIcon = 144

// defaultColor is Hearth's mark's color, the theme color of a community without an accent.
const defaultColor = "#c2410c"

// Mount serves the manifest, the icons and the service worker under prefix ("/app").
func Mount(mux *http.ServeMux, prefix string, eng *engine.Engine) {
	mux.HandleFunc("GET "+prefix+"/manifest.webmanifest", func(w http.ResponseWriter, r *http.Request) {
		b, err := json.Marshal(ManifestOf(eng, prefix))
		if err != nil {
			http.Error(w, "manifest", http.StatusInternalServerError)
			return
		}
		serve(w, r, "application/manifest+json", b)
	})
	mux.HandleFunc("GET "+prefix+"/sw.js", func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, "text/javascript; charset=utf-8", serviceWorker)
	})
	for _, size := range IconSizes {
		mux.HandleFunc("GET "+prefix+"/icons/"+strconv.Itoa(size)+".png", func(w http.ResponseWriter, r *http.Request) {
			serve(w, r, "image/png", defaultIcon(size))
		})
	}
}

// serve answers with body, its ETag, and the client's headers.
func serve(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("Content-Security-Policy", app.ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// A browser checks for a new service worker and manifest itself; it asks each time.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", etag)
	h.Set("Content-Type", contentType)
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// Manifest is a web app manifest (the members Hearth sets).
type Manifest struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	ShortName       string `json:"short_name"`
	Description     string `json:"description,omitempty"`
	StartURL        string `json:"start_url"`
	Scope           string `json:"scope"`
	Display         string `json:"display"`
	BackgroundColor string `json:"background_color"`
	ThemeColor      string `json:"theme_color"`
	Icons           []Icon `json:"icons"`
}

// Icon is one icon of a manifest.
type Icon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose"`
}

// ManifestOf is the manifest of the community now: its name, description and accent color, and
// its icon when that is a square PNG or WebP of at least 144 pixels (else Hearth's own icons,
// drawn at every size of IconSizes).
func ManifestOf(eng *engine.Engine, prefix string) Manifest {
	info := eng.ServerInfo()
	theme := info.GetAccentColor()
	if theme == "" {
		theme = defaultColor
	}
	m := Manifest{
		ID:              prefix + "/",
		Name:            info.GetName(),
		ShortName:       cut(info.GetName(), 12),
		Description:     cut(info.GetDescription(), 300),
		StartURL:        prefix + "/",
		Scope:           prefix + "/",
		Display:         "standalone",
		BackgroundColor: "#ffffff",
		ThemeColor:      theme,
	}
	if icon := eng.Snapshot().Settings().GetIcon(); usableIcon(icon) {
		signed := eng.SignURLs(info).(*svcv1.GetServerInfoResponse)
		m.Icons = append(m.Icons, Icon{
			Src:     signed.GetIconUrl(),
			Sizes:   strconv.Itoa(int(icon.GetWidth())) + "x" + strconv.Itoa(int(icon.GetHeight())),
			Type:    icon.GetContentType(),
			Purpose: "any",
		})
		return m
	}
	for _, size := range IconSizes {
		n := strconv.Itoa(size)
		m.Icons = append(m.Icons, Icon{Src: prefix + "/icons/" + n + ".png", Sizes: n + "x" + n, Type: "image/png", Purpose: "any"})
	}
	return m
}

// usableIcon reports whether a community icon can stand for the installed app: square, large
// enough, and of a type every browser takes for one.
func usableIcon(a *svcv1.Attachment) bool {
	if a == nil || a.GetWidth() != a.GetHeight() || a.GetWidth() < minCommunityIcon {
		return false
	}
	return a.GetContentType() == "image/png" || a.GetContentType() == "image/webp"
}

// cut cuts s to max characters.
func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max])
}

var icons sync.Map // size -> []byte

// defaultIcon is Hearth's mark (web/app/src/icon.svg: a white flame on an orange rounded
// square) as a PNG of size pixels, drawn once per size.
func defaultIcon(size int) []byte {
	if b, ok := icons.Load(size); ok {
		return b.([]byte)
	}
	b := drawMark(size)
	icons.Store(size, b)
	return b
}

// drawMark draws the mark's 64-unit design at size pixels.
func drawMark(size int) []byte {
	s := float32(size) / 64
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	// The rounded square, corner radius 14.
	z := vector.NewRasterizer(size, size)
	const k = 0.5523 // a quarter circle as one cubic: control points at k times the radius
	r := float32(14)
	z.MoveTo(r*s, 0)
	z.LineTo((64-r)*s, 0)
	z.CubeTo((64-r+k*r)*s, 0, 64*s, (r-k*r)*s, 64*s, r*s)
	z.LineTo(64*s, (64-r)*s)
	z.CubeTo(64*s, (64-r+k*r)*s, (64-r+k*r)*s, 64*s, (64-r)*s, 64*s)
	z.LineTo(r*s, 64*s)
	z.CubeTo((r-k*r)*s, 64*s, 0, (64-r+k*r)*s, 0, (64-r)*s)
	z.LineTo(0, r*s)
	z.CubeTo(0, (r-k*r)*s, (r-k*r)*s, 0, r*s, 0)
	z.ClosePath()
	z.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{0xc2, 0x41, 0x0c, 0xff}), image.Point{})
	// The flame: M33 10 c2 9-9 13-9 24 a9 9 0 0 0 18 0 c0-5-3-8-4-12 5 3 10 9 10 16
	// a16 16 0 0 1-32 0 c0-14 13-18 17-28z, its two half circles as two quarter cubics each.
	f := vector.NewRasterizer(size, size)
	p := func(x, y float32) (float32, float32) { return x * s, y * s }
	cube := func(x1, y1, x2, y2, x3, y3 float32) {
		ax, ay := p(x1, y1)
		bx, by := p(x2, y2)
		cx, cy := p(x3, y3)
		f.CubeTo(ax, ay, bx, by, cx, cy)
	}
	f.MoveTo(p(33, 10))
	cube(35, 19, 24, 23, 24, 34)
	cube(24, 34+k*9, 33-k*9, 43, 33, 43)
	cube(33+k*9, 43, 42, 34+k*9, 42, 34)
	cube(42, 29, 39, 26, 38, 22)
	cube(43, 25, 48, 31, 48, 38)
	cube(48, 38+k*16, 32+k*16, 54, 32, 54)
	cube(32-k*16, 54, 16, 38+k*16, 16, 38)
	cube(16, 24, 29, 20, 33, 10)
	f.ClosePath()
	f.Draw(img, img.Bounds(), image.White, image.Point{})
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		// Encoding an in-memory RGBA image to a buffer does not fail.
		panic("pwa: encoding the icon: " + err.Error())
	}
	return buf.Bytes()
}
