package web

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"google.golang.org/protobuf/encoding/protojson"

	"hearth/engine"
)

// uploadRoute names POST /upload to the authenticator, which treats it as a member-only call
// that is closed to all but the owner while the community needs setup.
const uploadRoute = "POST /upload"

// uploadSlack is what a multipart body may add to the file: boundaries and part headers.
const uploadSlack = 64 << 10

// The answers to a body that is not one part named file.
var (
	errNotMultipart = badUpload(`the body must be multipart/form-data with one part named "file"`)
	errNoFilePart   = badUpload(`the body has no part named "file"`)
	errTwoParts     = badUpload(`the body has more than one part; send exactly one, named "file"`)
	errNoFileName   = badUpload(`the "file" part has no file name`)
	errCutShort     = badUpload("the multipart body is cut short or malformed")
)

func badUpload(msg string) *engine.Error {
	return &engine.Error{Code: engine.CodeInvalidArgument, Msg: msg}
}

// upload is POST /upload: a multipart/form-data body of exactly one part named "file". The
// part streams to the engine as it arrives; the whole body is capped (a larger one is cut
// off with 413, without being read), and the part must be the body's only one.
func upload(eng *engine.Engine, a *authenticator) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, err := a.authenticate(r.Context(), uploadRoute, r.Header)
		if err != nil {
			writeError(w, err)
			return
		}
		const maxBody = engine.MaxUploadBytes + uploadSlack
		if r.ContentLength > maxBody {
			writeError(w, engine.ErrFileTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		part, mr, err := onlyFilePart(r)
		if err != nil {
			writeError(w, err)
			return
		}
		att, err := eng.Upload(ctx, callerOf(ctx), fileName(part), &partReader{part: part, mr: mr, body: r.Body})
		if err != nil {
			writeError(w, err)
			return
		}
		b, err := protojson.Marshal(att)
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	}
}

// onlyFilePart opens the body's first part, which must be named file and carry a file name.
func onlyFilePart(r *http.Request) (*multipart.Part, *multipart.Reader, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, errNotMultipart
	}
	part, err := mr.NextPart()
	switch {
	case err == io.EOF:
		return nil, nil, errNoFilePart
	case err != nil:
		return nil, nil, bodyError(err)
	case part.FormName() != "file":
		return nil, nil, errNoFilePart
	case fileName(part) == "":
		return nil, nil, errNoFileName
	}
	return part, mr, nil
}

// fileName is the part's file name as sent. Part.FileName would cut it to its last path
// element by the rules of the server's OS; the engine makes every name safe (blob.SafeName)
// the same way everywhere.
func fileName(p *multipart.Part) string {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return ""
	}
	return params["filename"]
}

// partReader reads the file part and, at its end, checks that nothing but the closing
// boundary follows, and that the body then ends as its Content-Length says: a second part,
// or a body cut short (even one whose multipart form is complete), fails the upload, so the
// engine aborts it and keeps nothing. Its end, or its error, is final.
type partReader struct {
	part *multipart.Part
	mr   *multipart.Reader
	body io.Reader
	err  error
}

func (p *partReader) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.part.Read(b)
	if err == nil || n > 0 && err == io.EOF {
		return n, nil
	}
	p.err = p.end(err)
	return n, p.err
}

// end is the error of the part's end: io.EOF when the body ends with it.
func (p *partReader) end(err error) error {
	if err != io.EOF {
		return bodyError(err)
	}
	switch _, err := p.mr.NextPart(); {
	case err == io.EOF:
	case err != nil:
		return bodyError(err)
	default:
		return errTwoParts
	}
	// The multipart reader stops at the closing boundary; what may follow (an epilogue, which
	// the upload ignores) is read to the body's end, which is where a body shorter than its
	// Content-Length shows.
	if _, err := io.Copy(io.Discard, p.body); err != nil {
		return bodyError(err)
	}
	return io.EOF
}

// bodyError tells a body over the cap (413) or too slow (408, from the intake) from one cut
// short or malformed (400).
func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	var ee *engine.Error
	switch {
	case errors.As(err, &tooLarge):
		return engine.ErrFileTooLarge
	case errors.As(err, &ee):
		return ee
	}
	return errCutShort
}
