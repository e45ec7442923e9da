package zipread_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hearth/engine/zipread"
)

// got is what Walk handed out for one entry.
type got struct {
	name string
	data string
	err  error
}

func walk(t *testing.T, archive []byte, lim zipread.Limits) ([]got, error) {
	t.Helper()
	var out []got
	err := zipread.Walk(bytes.NewReader(archive), int64(len(archive)), lim, func(name string, data []byte, err error) error {
		if (data == nil) == (err == nil) && len(data) > 0 {
			t.Fatalf("%s: data %d bytes with error %v", name, len(data), err)
		}
		if int64(len(data)) > lim.MaxSize {
			t.Fatalf("%s: %d bytes, over the limit %d", name, len(data), lim.MaxSize)
		}
		out = append(out, got{name, string(data), err})
		return nil
	})
	return out, err
}

var small = zipread.Limits{MaxFiles: 10, MaxSize: 1000}

// file is one entry for makeZip: written with method (deflate unless store), or raw when hdr is
// set (CreateRaw with that header and body as the stored bytes).
type file struct {
	name  string
	body  string
	store bool
	hdr   *zip.FileHeader
}

func makeZip(t testing.TB, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		var err error
		if f.hdr != nil {
			w, err2 := zw.CreateRaw(f.hdr)
			if err2 == nil {
				_, err2 = w.Write([]byte(f.body))
			}
			err = err2
		} else {
			m := zip.Deflate
			if f.store {
				m = zip.Store
			}
			w, err2 := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: m})
			if err2 == nil {
				_, err2 = w.Write([]byte(f.body))
			}
			err = err2
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWalkHandsOutFilesInOrderAndSkipsTheRest(t *testing.T) {
	z := makeZip(t,
		file{name: "pack/"},
		file{name: "pack/b.png", body: "bee"},
		file{name: "__MACOSX/pack/._b.png", body: "apple double"},
		file{name: ".DS_Store", body: "finder"},
		file{name: "pack/.hidden/c.png", body: "hidden"},
		file{name: "./a.png", body: "ay", store: true},
		file{name: "deep/er/d.gif", body: strings.Repeat("d", 1000)},
	)
	out, err := walk(t, z, small)
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{"pack/b.png", "bee", nil}, {"./a.png", "ay", nil}, {"deep/er/d.gif", strings.Repeat("d", 1000), nil}}
	if len(out) != len(want) {
		t.Fatalf("got %v, want %v", out, want)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("entry %d: got %v, want %v", i, out[i], want[i])
		}
	}
}

func TestWalkRefusesPathTricks(t *testing.T) {
	names := []string{"../up.png", "a/../../up.png", "/etc/abs.png", `a\b.png`, `..\win.png`, "C:/drive.png", "ctl\x01.png", "nul\x00.png", "__MACOSX/../../x.png"}
	var files []file
	for _, n := range names {
		files = append(files, file{name: n, body: "x"})
	}
	out, err := walk(t, makeZip(t, files...), small)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(names) {
		t.Fatalf("got %d entries, want %d: %v", len(out), len(names), out)
	}
	for i, g := range out {
		if g.name != names[i] || !errors.Is(g.err, zipread.ErrUnsafePath) {
			t.Errorf("%q: %v, want ErrUnsafePath", names[i], g.err)
		}
	}
}

func TestWalkRefusesNestedArchives(t *testing.T) {
	inner := makeZip(t, file{name: "x.png", body: "x"})
	out, err := walk(t, makeZip(t,
		file{name: "inner.ZIP", body: "whatever"},
		file{name: "disguised.png", body: string(inner)},
		file{name: "ok.png", body: "ok"},
	), small)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || !errors.Is(out[0].err, zipread.ErrNested) || !errors.Is(out[1].err, zipread.ErrNested) || out[2].err != nil {
		t.Fatalf("got %v", out)
	}
}

func TestWalkCountsRealSizes(t *testing.T) {
	// A bomb: a megabyte of zeros whose header claims 100 bytes.
	zeros := make([]byte, 1<<20)
	var packed bytes.Buffer
	fw, _ := flate.NewWriter(&packed, flate.BestCompression)
	fw.Write(zeros)
	fw.Close()
	liar := &zip.FileHeader{Name: "bomb.png", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(zeros[:100]),
		CompressedSize64: uint64(packed.Len()), UncompressedSize64: 100}
	out, err := walk(t, makeZip(t,
		file{name: "bomb.png", body: packed.String(), hdr: liar},
		file{name: "big.png", body: strings.Repeat("b", 1001)},
		file{name: "limit.png", body: strings.Repeat("l", 1000)},
	), small)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || !errors.Is(out[0].err, zipread.ErrTooLarge) || !errors.Is(out[1].err, zipread.ErrTooLarge) || out[2].err != nil {
		t.Fatalf("got %v", out)
	}
}

func TestWalkRefusesDamagedAndUnknownEntries(t *testing.T) {
	body := "hello"
	badCRC := &zip.FileHeader{Name: "crc.png", Method: zip.Store, CRC32: 1, CompressedSize64: 5, UncompressedSize64: 5}
	short := &zip.FileHeader{Name: "short.png", Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte(body)), CompressedSize64: 5, UncompressedSize64: 4}
	enc := &zip.FileHeader{Name: "enc.png", Method: zip.Store, Flags: 1, CRC32: crc32.ChecksumIEEE([]byte(body)), CompressedSize64: 5, UncompressedSize64: 5}
	bz := &zip.FileHeader{Name: "bz.png", Method: 12, CRC32: crc32.ChecksumIEEE([]byte(body)), CompressedSize64: 5, UncompressedSize64: 5}
	out, err := walk(t, makeZip(t,
		file{hdr: badCRC, body: body}, file{hdr: short, body: body}, file{hdr: enc, body: body}, file{hdr: bz, body: body},
	), small)
	if err != nil {
		t.Fatal(err)
	}
	want := []error{zipread.ErrCorrupt, zipread.ErrCorrupt, zipread.ErrEncrypted, zipread.ErrMethod}
	if len(out) != len(want) {
		t.Fatalf("got %v", out)
	}
	for i, w := range want {
		if !errors.Is(out[i].err, w) {
			t.Errorf("%s: %v, want %v", out[i].name, out[i].err, w)
		}
	}
}

func TestWalkRefusesTooManyEntries(t *testing.T) {
	lim := zipread.Limits{MaxFiles: 3, MaxSize: 100}
	var files []file
	for i := range 4 {
		files = append(files, file{name: string(rune('a'+i)) + ".png", body: "x"})
	}
	if _, err := walk(t, makeZip(t, files...), lim); !errors.Is(err, zipread.ErrTooManyFiles) {
		t.Fatalf("4 files, limit 3: %v", err)
	}
	// Skipped entries do not count as files, but every record counts toward MaxRecords.
	files = files[:3]
	for i := range 6 {
		files = append(files, file{name: "__MACOSX/" + string(rune('a'+i)), body: "x"})
	}
	if out, err := walk(t, makeZip(t, files...), lim); err != nil || len(out) != 3 {
		t.Fatalf("3 files and 6 skipped: %v, %v", out, err)
	}
	files = append(files, file{name: ".DS_Store", body: "x"})
	if _, err := walk(t, makeZip(t, files...), lim); !errors.Is(err, zipread.ErrTooManyFiles) {
		t.Fatalf("10 records, limit 9: %v", err)
	}
}

func TestWalkRefusesWhatIsNotAZip(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("PK\x03\x04 not really"), bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 100)} {
		if _, err := walk(t, b, small); !errors.Is(err, zipread.ErrNotZip) {
			t.Errorf("%q: %v, want ErrNotZip", b, err)
		}
	}
}

// overlapping builds the "better zip bomb": one local entry, and n central directory records
// that all point at it under different names.
func overlapping(n int, data []byte) []byte {
	var b bytes.Buffer
	crc := crc32.ChecksumIEEE(data)
	le := binary.LittleEndian
	local := func(name string) {
		b.Write([]byte("PK\x03\x04"))
		binary.Write(&b, le, []uint16{20, 0, 0, 0, 0})
		binary.Write(&b, le, []uint32{crc, uint32(len(data)), uint32(len(data))})
		binary.Write(&b, le, []uint16{uint16(len(name)), 0})
		b.WriteString(name)
	}
	local("kernel.png")
	b.Write(data)
	cd := b.Len()
	for i := range n {
		name := "kernel.png"
		if i > 0 {
			name = "copy" + string(rune('a'+i)) + ".png"
		}
		b.Write([]byte("PK\x01\x02"))
		binary.Write(&b, le, []uint16{20, 20, 0, 0, 0, 0})
		binary.Write(&b, le, []uint32{crc, uint32(len(data)), uint32(len(data))})
		binary.Write(&b, le, []uint16{uint16(len(name)), 0, 0, 0, 0})
		binary.Write(&b, le, []uint32{0, 0})
		b.WriteString(name)
	}
	end := b.Len()
	b.Write([]byte("PK\x05\x06"))
	binary.Write(&b, le, []uint16{0, 0, uint16(n), uint16(n)})
	binary.Write(&b, le, []uint32{uint32(end - cd), uint32(cd)})
	binary.Write(&b, le, uint16(0))
	return b.Bytes()
}

func TestWalkRefusesEntriesThatShareData(t *testing.T) {
	out, err := walk(t, overlapping(4, []byte("shared")), small)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 || out[0].err != nil || out[0].data != "shared" {
		t.Fatalf("got %v", out)
	}
	for _, g := range out[1:] {
		if !errors.Is(g.err, zipread.ErrOverlap) {
			t.Errorf("%s: %v, want ErrOverlap", g.name, g.err)
		}
	}
}

// FuzzWalk checks Walk's promises on any bytes: no panic, no entry over the size limit, no
// more entries than the limit, and exactly one of data or an error per entry.
func FuzzWalk(f *testing.F) {
	f.Add([]byte{})
	f.Add(makeZip(f, file{name: "a.png", body: "a"}, file{name: "../b.png", body: "b"}, file{name: "__MACOSX/._a.png", body: "m"}))
	f.Add(makeZip(f, file{name: "nested.zip", body: string(makeZip(f, file{name: "x.gif", body: "x"}))}))
	f.Add(overlapping(3, []byte("kernel")))
	lim := zipread.Limits{MaxFiles: 20, MaxSize: 4096}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		err := zipread.Walk(bytes.NewReader(b), int64(len(b)), lim, func(name string, data []byte, err error) error {
			n++
			if err == nil && int64(len(data)) > lim.MaxSize {
				t.Fatalf("%q: %d bytes", name, len(data))
			}
			if err != nil && data != nil {
				t.Fatalf("%q: data and error %v", name, err)
			}
			return nil
		})
		if n > lim.MaxFiles {
			t.Fatalf("%d entries, limit %d", n, lim.MaxFiles)
		}
		if err != nil && n > 0 {
			t.Fatalf("an archive error after %d entries: %v", n, err)
		}
	})
}

// TestWriteSeedCorpus rewrites the committed seed corpus of FuzzWalk (testdata/fuzz/FuzzWalk)
// from the archives the tests build, when HEARTH_WRITE_CORPUS=1; otherwise it skips.
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("HEARTH_WRITE_CORPUS") != "1" {
		t.Skip("set HEARTH_WRITE_CORPUS=1 to rewrite testdata/fuzz/FuzzWalk")
	}
	body := "hello"
	seeds := map[string][]byte{
		"plain":      makeZip(t, file{name: "a.png", body: "a"}, file{name: "b.gif", body: "b", store: true}),
		"skipped":    makeZip(t, file{name: "pack/"}, file{name: "__MACOSX/pack/._a.png", body: "m"}, file{name: ".DS_Store", body: "d"}, file{name: "pack/a.png", body: "a"}),
		"paths":      makeZip(t, file{name: "../up.png", body: "u"}, file{name: "/abs.png", body: "a"}, file{name: `a\b.png`, body: "b"}, file{name: "C:/c.png", body: "c"}),
		"nested":     makeZip(t, file{name: "in.zip", body: string(makeZip(t, file{name: "x.png", body: "x"}))}, file{name: "in.png", body: string(makeZip(t, file{name: "y.png", body: "y"}))}),
		"overlap":    overlapping(4, []byte("kernel")),
		"liar":       makeZip(t, file{hdr: &zip.FileHeader{Name: "liar.png", Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte(body)), CompressedSize64: 5, UncompressedSize64: 2}, body: body}),
		"methods":    makeZip(t, file{hdr: &zip.FileHeader{Name: "enc.png", Method: zip.Store, Flags: 1, CompressedSize64: 5, UncompressedSize64: 5}, body: body}, file{hdr: &zip.FileHeader{Name: "bz.png", Method: 12, CompressedSize64: 5, UncompressedSize64: 5}, body: body}),
		"compressed": makeZip(t, file{name: "zeros.png", body: strings.Repeat("\x00", 8192)}),
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzWalk")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range seeds {
		content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
