// Package zipread reads the entries of an untrusted zip archive within limits: however the
// archive is built, reading it costs memory and time in proportion to the limits, never to
// what its headers claim, and a faulty entry is reported on its own without stopping the
// others.
//
// What it guards against:
//   - a central directory of millions of records (archive/zip keeps a struct per record):
//     the records are counted from the bytes before archive/zip parses them;
//   - sizes that lie (a zip bomb): every entry is decompressed here, counted as it comes and
//     cut off one byte past the limit, and its real size and CRC must match the header's;
//   - entries that share their compressed bytes (the overlapping zip bomb, where every entry
//     expands the same data): any entry whose data starts inside another's is refused;
//   - path tricks (`../`, absolute paths, backslashes, drive letters, control characters),
//     archives inside the archive, encrypted entries and unknown compression methods.
//
// Folders, `__MACOSX` entries and dotfiles (any path element starting with a dot) are
// skipped: they are what archivers add beside the files.
package zipread

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// Limits bound what Walk reads.
type Limits struct {
	// MaxFiles is how many entries an archive may hold, not counting folders and skipped
	// entries; an archive with more is refused whole (ErrTooManyFiles).
	MaxFiles int
	// MaxRecords bounds the central directory's records of every kind, folders and skipped
	// entries included (default 3 x MaxFiles, room for a __MACOSX twin and a folder per
	// file): archive/zip holds one struct of some 200 bytes per record while it is open.
	MaxRecords int
	// MaxSize is the largest an entry may be, decompressed (ErrTooLarge).
	MaxSize int64
}

// Errors about the whole archive, returned by Walk before any entry is handed out.
var (
	ErrNotZip       = errors.New("not a zip archive, or its central directory is damaged")
	ErrTooManyFiles = errors.New("too many entries")
)

// Errors about one entry, handed to Walk's fn with the entry's name.
var (
	ErrUnsafePath = errors.New("its path is not a plain relative path inside the archive (no ../, leading /, backslash, drive letter or control character)")
	ErrNested     = errors.New("it is a zip archive itself; archives inside the archive are not opened")
	ErrTooLarge   = errors.New("it is too large uncompressed")
	ErrOverlap    = errors.New("its data overlaps another entry's (a zip bomb)")
	ErrEncrypted  = errors.New("it is encrypted")
	ErrMethod     = errors.New("it is compressed with a method other than store or deflate")
	ErrCorrupt    = errors.New("it is damaged: its size or checksum does not match its header")
)

// Walk calls fn for every entry of the archive in r (size bytes) that is not skipped, in the
// order of the central directory: with the entry's bytes (valid only during the call), or with
// one of the entry errors above saying why it was refused. An error from fn stops the walk and
// is returned. Archive-level failures (ErrNotZip, ErrTooManyFiles, a read error of r) come
// before fn is first called.
func Walk(r io.ReaderAt, size int64, lim Limits, fn func(name string, data []byte, err error) error) error {
	if lim.MaxRecords <= 0 {
		lim.MaxRecords = 3 * lim.MaxFiles
	}
	n, err := countRecords(r, size, lim.MaxRecords)
	if err != nil {
		return err
	}
	if n > lim.MaxRecords {
		return ErrTooManyFiles
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // paths are judged below, per entry
		return ErrNotZip
	}
	entries, err := plan(zr.File, size, lim)
	if err != nil {
		return err
	}
	bufp := buffers.Get().(*[]byte)
	defer buffers.Put(bufp)
	for _, e := range entries {
		if e.err != nil {
			if err := fn(e.f.Name, nil, e.err); err != nil {
				return err
			}
			continue
		}
		data, err := read(e.f, lim.MaxSize, bufp)
		if err == nil && isZip(data) {
			err = ErrNested
		}
		if err != nil {
			data = nil
		}
		if err := fn(e.f.Name, data, err); err != nil {
			return err
		}
	}
	return nil
}

// entry is one entry Walk hands out, with the reason it is refused before reading.
type entry struct {
	f   *zip.File
	err error
}

// plan picks the entries to hand out and judges what can be judged without reading them.
func plan(files []*zip.File, size int64, lim Limits) ([]entry, error) {
	var entries []entry
	for _, f := range files {
		skip, err := judgePath(f)
		if skip {
			continue
		}
		if len(entries) == lim.MaxFiles {
			return nil, ErrTooManyFiles
		}
		if err == nil {
			err = judgeHeader(f, lim)
		}
		entries = append(entries, entry{f: f, err: err})
	}
	// Overlapping data: sort the entries still to be read by where their data starts; one
	// that starts before the end of an earlier one shares its bytes.
	type span struct {
		i          int
		start, end int64
	}
	var spans []span
	for i, e := range entries {
		if e.err != nil {
			continue
		}
		start, err := e.f.DataOffset()
		end := start + int64(e.f.CompressedSize64)
		if err != nil || start < 0 || e.f.CompressedSize64 > uint64(size) || end > size {
			entries[i].err = ErrCorrupt
			continue
		}
		spans = append(spans, span{i, start, end})
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	var reach int64
	for j, s := range spans {
		if j > 0 && s.start < reach {
			entries[s.i].err = ErrOverlap
		}
		reach = max(reach, s.end)
	}
	return entries, nil
}

// judgePath says whether an entry is skipped (a folder, __MACOSX, a dotfile) or refused for
// its path. A path trick is refused before the skip rules apply: `../x` is not a dotfile.
func judgePath(f *zip.File) (skip bool, err error) {
	name := f.Name
	if name == "" || strings.ContainsAny(name, "\\") || strings.HasPrefix(name, "/") {
		return false, ErrUnsafePath
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f {
			return false, ErrUnsafePath
		}
	}
	elems := strings.Split(name, "/")
	if first := elems[0]; len(first) >= 2 && first[1] == ':' && isLetter(first[0]) {
		return false, ErrUnsafePath
	}
	for _, el := range elems {
		if el == ".." {
			return false, ErrUnsafePath
		}
	}
	if strings.HasSuffix(name, "/") || f.Mode().IsDir() {
		return true, nil
	}
	for _, el := range elems {
		if el == "__MACOSX" || strings.HasPrefix(el, ".") && el != "." {
			return true, nil
		}
	}
	return false, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// judgeHeader refuses what the central directory already tells: a nested archive by its
// name, encryption, an unknown method, a size claimed over the limit.
func judgeHeader(f *zip.File, lim Limits) error {
	switch {
	case strings.HasSuffix(strings.ToLower(f.Name), ".zip"):
		return ErrNested
	case f.Flags&0x1 != 0:
		return ErrEncrypted
	case f.Method != zip.Store && f.Method != zip.Deflate:
		return ErrMethod
	case f.UncompressedSize64 > uint64(lim.MaxSize):
		return ErrTooLarge
	}
	return nil
}

// buffers hold one entry's bytes while fn looks at them, kept between walks so that the heap
// stays flat however many archives arrive.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// flates are decompressors kept between entries (each holds a 32 KiB window and tables).
var flates sync.Pool

// read decompresses an entry into *bufp, counting the real bytes: more than max is
// ErrTooLarge whatever the header claims, and the real size and CRC-32 must be the header's.
func read(f *zip.File, max int64, bufp *[]byte) ([]byte, error) {
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, ErrCorrupt
	}
	var src io.Reader = raw
	if f.Method == zip.Deflate {
		fr, _ := flates.Get().(io.ReadCloser)
		if fr == nil {
			fr = flate.NewReader(raw)
		} else if err := fr.(flate.Resetter).Reset(raw, nil); err != nil {
			return nil, ErrCorrupt
		}
		defer flates.Put(fr)
		src = fr
	}
	if int64(cap(*bufp)) < max+1 {
		*bufp = make([]byte, max+1)
	}
	buf := (*bufp)[:max+1]
	n, err := io.ReadFull(src, buf)
	switch {
	case err == nil: // max+1 bytes: over the limit
		return nil, ErrTooLarge
	case err != io.EOF && err != io.ErrUnexpectedEOF:
		return nil, ErrCorrupt
	}
	data := buf[:n]
	if uint64(n) != f.UncompressedSize64 || crc32.ChecksumIEEE(data) != f.CRC32 {
		return nil, ErrCorrupt
	}
	return data, nil
}

// isZip reports whether data starts like a zip archive (a local file header, an empty
// archive's end record, or a spanned archive's marker).
func isZip(data []byte) bool {
	return bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")) || bytes.HasPrefix(data, []byte("PK\x07\x08"))
}

// countRecords counts the central directory signatures in r, stopping past limit. Every
// record archive/zip parses starts with one at its own offset, so this bounds how many it
// can make, whatever the end record claims.
func countRecords(r io.ReaderAt, size int64, limit int) (int, error) {
	sig := []byte("PK\x01\x02")
	buf := make([]byte, 64<<10)
	n := 0
	for off := int64(0); off < size; {
		m, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if m == 0 && err != nil {
			if err == io.EOF {
				return 0, ErrNotZip
			}
			return 0, err
		}
		n += bytes.Count(buf[:m], sig)
		if n > limit {
			return n, nil
		}
		if off+int64(m) >= size {
			break
		}
		// Step back three bytes so a signature across two reads is seen once.
		off += int64(max(m-len(sig)+1, 1))
	}
	return n, nil
}

// Archive is an archive opened for reading its entries by name, in any order, within the
// same limits and with the same checks as Walk: for a reader that needs some entries before
// others (an export whose index files say what the rest are).
type Archive struct {
	files map[string]*zip.File
	bad   map[string]error
	names []string
	lim   Limits
	buf   []byte
}

// Open opens the archive in r (size bytes) and judges its entries' paths and headers as Walk
// does; no entry is read yet.
func Open(r io.ReaderAt, size int64, lim Limits) (*Archive, error) {
	if lim.MaxRecords <= 0 {
		lim.MaxRecords = 3 * lim.MaxFiles
	}
	n, err := countRecords(r, size, lim.MaxRecords)
	if err != nil {
		return nil, err
	}
	if n > lim.MaxRecords {
		return nil, ErrTooManyFiles
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, ErrNotZip
	}
	entries, err := plan(zr.File, size, lim)
	if err != nil {
		return nil, err
	}
	a := &Archive{files: map[string]*zip.File{}, bad: map[string]error{}, lim: lim}
	for _, e := range entries {
		a.names = append(a.names, e.f.Name)
		if e.err != nil {
			a.bad[e.f.Name] = e.err
			continue
		}
		a.files[e.f.Name] = e.f
	}
	slices.Sort(a.names)
	return a, nil
}

// Names lists the entries that are not skipped, sorted.
func (a *Archive) Names() []string { return a.names }

// Size is an entry's size as its header claims it (0 for an entry that is not there).
func (a *Archive) Size(name string) int64 {
	if f := a.files[name]; f != nil {
		return int64(f.UncompressedSize64)
	}
	return 0
}

// Read returns an entry's bytes, at most max of them (0: the archive's MaxSize): valid until
// the next Read. An entry that is not there is fs.ErrNotExist; one refused, the reason.
func (a *Archive) Read(name string, max int64) ([]byte, error) {
	if err := a.bad[name]; err != nil {
		return nil, err
	}
	f := a.files[name]
	if f == nil {
		return nil, fs.ErrNotExist
	}
	if max <= 0 {
		max = a.lim.MaxSize
	}
	if f.UncompressedSize64 > uint64(max) {
		return nil, ErrTooLarge
	}
	// The header's size is the most read() takes: it refuses an entry whose real size differs.
	data, err := read(f, int64(f.UncompressedSize64), &a.buf)
	if err == nil && isZip(data) {
		err = ErrNested
	}
	return data, err
}
