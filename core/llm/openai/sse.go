package openai

import (
	"bufio"
	"bytes"
	"io"
)

// maxLine bounds one SSE line; a chunk carries a few tokens.
const maxLine = 1 << 20

// sseReader yields the data of each server-sent event. It implements the
// part of the SSE format that chat streams use: "data:" lines (joined by
// newlines when an event has several), comment lines starting with ":"
// (keep-alives), and other fields (event, id, retry), which are ignored.
type sseReader struct {
	sc   *bufio.Scanner
	data bytes.Buffer
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &sseReader{sc: sc}
}

// Next returns the data of the next event that has any, io.EOF at the end of
// the stream, or the read error. The returned slice is valid until the next
// call.
func (r *sseReader) Next() ([]byte, error) {
	r.data.Reset()
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) == 0 {
			if r.data.Len() > 0 {
				return r.data.Bytes(), nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // a comment (empty field) or a field chat streams do not use
		}
		if r.data.Len() > 0 {
			r.data.WriteByte('\n')
		}
		r.data.Write(bytes.TrimPrefix(value, []byte(" ")))
	}
	if err := r.sc.Err(); err != nil {
		return nil, err
	}
	// The format says an event without its closing blank line is dropped,
	// but some servers end with "data: [DONE]\n" and close; accept it.
	if r.data.Len() > 0 {
		return r.data.Bytes(), nil
	}
	return nil, io.EOF
}
