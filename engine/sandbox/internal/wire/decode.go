package wire

import (
	"bytes"
	"errors"
	"fmt"
)

// MaxProblem bounds the text of a Decode answer's Problem, in bytes.
const MaxProblem = 300

// Decode is the answer to OpDecode. Problem is empty when every frame of the image decoded;
// otherwise it says, for a person, why the image does not (the other fields may then be
// zero). Width and Height are the canvas the frames are drawn on.
type Decode struct {
	ContentType string `json:"content_type"`
	Width       int32  `json:"width,omitempty"`
	Height      int32  `json:"height,omitempty"`
	Frames      int32  `json:"frames,omitempty"`
	Problem     string `json:"problem,omitempty"`
}

// EncodeImage is the payload of OpDecode: the limits, one line ("<max side> <max pixels>"),
// then the image's bytes.
func EncodeImage(maxSide, maxPixels int64, img []byte) []byte {
	b := fmt.Appendf(make([]byte, 0, 32+len(img)), "%d %d\n", maxSide, maxPixels)
	return append(b, img...)
}

// DecodeImage reads EncodeImage's payload. Both limits must be positive.
func DecodeImage(payload []byte) (maxSide, maxPixels int64, img []byte, err error) {
	line, img, ok := bytes.Cut(payload, []byte("\n"))
	if !ok || len(line) > 64 {
		return 0, 0, nil, errors.New("image has no limits line")
	}
	if _, err := fmt.Sscanf(string(line), "%d %d", &maxSide, &maxPixels); err != nil || maxSide <= 0 || maxPixels <= 0 {
		return 0, 0, nil, fmt.Errorf("image limits line %q is not two positive numbers", line)
	}
	return maxSide, maxPixels, img, nil
}
