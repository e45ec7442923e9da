package web

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"testing"

	"hearth/engine"
)

// FuzzUploadBody reads any body as POST /upload does (onlyFilePart, then partReader to the
// end), with any Content-Type: it never panics, never reads more than was sent, fails only with
// an engine error (a 400 or 413 to the client, never a 500), and takes a body only when it is
// one part named file, with a file name, closed by its boundary. Seeds in testdata/fuzz; CI
// runs it with -fuzz for 30 s (.ci/run).
func FuzzUploadBody(f *testing.F) {
	f.Add("multipart/form-data; boundary=b", []byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--b--\r\n"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r := httptest.NewRequest("POST", "/upload", bytes.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		part, mr, err := onlyFilePart(r)
		if err != nil {
			var ee *engine.Error
			if !errors.As(err, &ee) {
				t.Fatalf("onlyFilePart: %T %v", err, err)
			}
			return
		}
		if fileName(part) == "" || part.FormName() != "file" {
			t.Fatalf("took a part named %q with file name %q", part.FormName(), fileName(part))
		}
		pr := &partReader{part: part, mr: mr, body: r.Body}
		n, err := io.Copy(io.Discard, pr)
		if n > int64(len(body)) {
			t.Fatalf("read %d bytes of a %d-byte body", n, len(body))
		}
		if err != nil {
			var ee *engine.Error
			if !errors.As(err, &ee) {
				t.Fatalf("reading the part: %T %v", err, err)
			}
			if _, again := pr.Read(make([]byte, 1)); again != err {
				t.Fatalf("the part's end is not final: %v, then %v", err, again)
			}
			return
		}
		if !bytes.Contains(body, []byte("--")) {
			t.Fatalf("took a body without a closing boundary: %q", body)
		}
	})
}
