package web

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"io"
	"strings"
)

// streamEnd follows the frames of a gRPC-Web or Connect streaming answer, for the request log:
// such a stream's outcome is not in its HTTP status (200) nor, once a message went out, in its
// headers, but in the frame that ends its body: gRPC-Web's trailers (flag 0x80, lines of
// "name: value"), Connect's end message (flag 0x02, JSON with an "error" member when it
// failed). Each frame is five bytes of header (its flags, then its length, big-endian) and its
// data; only the end frame's data is kept, and only up to maxLoggedEnd.
type streamEnd struct {
	endFlag byte
	connect bool

	hdr  [5]byte
	nhdr int
	// left is what remains of the data of the frame being read; inData says one is being read.
	left   uint32
	inData bool
	inEnd  bool

	// seen: the end frame came; flags and data are its own, truncated when it was longer.
	seen      bool
	flags     byte
	data      []byte
	truncated bool

	// code and msg are the outcome, once read (outcome).
	code, msg string
}

const (
	grpcWebTrailerFlag   = 0x80
	connectEndStreamFlag = 0x02
	frameCompressedFlag  = 0x01
	// maxLoggedEnd bounds the end frame kept; trailers and end messages are a few hundred bytes.
	maxLoggedEnd = 16 << 10
)

// newStreamEnd returns a streamEnd for an answer of contentType, or nil when its outcome is not
// at the end of its body (unary answers, gRPC's HTTP trailers).
func newStreamEnd(contentType string) *streamEnd {
	switch {
	case strings.HasPrefix(contentType, "application/grpc-web"):
		return &streamEnd{endFlag: grpcWebTrailerFlag}
	case strings.HasPrefix(contentType, "application/connect+"):
		return &streamEnd{endFlag: connectEndStreamFlag, connect: true}
	}
	return nil
}

// see follows b, the next bytes of the body.
func (s *streamEnd) see(b []byte) {
	for len(b) > 0 {
		if !s.inData {
			n := copy(s.hdr[s.nhdr:], b)
			s.nhdr += n
			b = b[n:]
			if s.nhdr < len(s.hdr) {
				return
			}
			s.nhdr = 0
			s.left = binary.BigEndian.Uint32(s.hdr[1:])
			s.inData = s.left > 0
			s.inEnd = s.hdr[0]&s.endFlag != 0
			if s.inEnd {
				s.seen, s.flags, s.data, s.truncated, s.code = true, s.hdr[0], s.data[:0], false, ""
			}
			continue
		}
		n := len(b)
		if uint64(n) > uint64(s.left) {
			n = int(s.left)
		}
		if s.inEnd {
			keep := min(n, maxLoggedEnd-len(s.data))
			s.data = append(s.data, b[:keep]...)
			s.truncated = s.truncated || keep < n
		}
		s.left -= uint32(n)
		s.inData = s.left > 0
		b = b[n:]
	}
}

// outcome is the stream's code ("ok" when it succeeded) and message, read from its end frame.
func (s *streamEnd) outcome() (code, msg string) {
	if s.code == "" {
		s.code, s.msg = s.read()
	}
	return s.code, s.msg
}

func (s *streamEnd) read() (code, msg string) {
	const unreadable = "the stream's end could not be read"
	data := s.data
	if s.truncated {
		return "unknown", unreadable
	}
	if s.flags&frameCompressedFlag != 0 {
		// gzip is the only compression the handlers offer (Connect's default).
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return "unknown", unreadable
		}
		data, err = io.ReadAll(io.LimitReader(zr, maxLoggedEnd+1))
		if err != nil || len(data) > maxLoggedEnd {
			return "unknown", unreadable
		}
	}
	if s.connect {
		var end struct {
			Error *struct{ Code, Message string }
		}
		if err := json.Unmarshal(data, &end); err != nil {
			return "unknown", unreadable
		}
		if end.Error == nil {
			return "ok", ""
		}
		if end.Error.Code == "" {
			end.Error.Code = "unknown"
		}
		return end.Error.Code, end.Error.Message
	}
	status, message, found := "", "", false
	for line := range strings.SplitSeq(string(data), "\n") {
		name, value, ok := strings.Cut(strings.TrimSuffix(line, "\r"), ":")
		if !ok {
			continue
		}
		switch value = strings.TrimSpace(value); {
		case strings.EqualFold(name, "grpc-status"):
			status, found = value, true
		case strings.EqualFold(name, "grpc-message"):
			message = value
		}
	}
	if !found {
		return "unknown", unreadable
	}
	if code = grpcCode(status); code == "ok" {
		return code, ""
	}
	return code, grpcMessage(message)
}
