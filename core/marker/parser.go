package marker

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Prefix opens every marker. Text is held back while it may be the start of
// Prefix; once Prefix is complete, everything up to the closing ']' belongs to
// the marker and is never emitted.
const Prefix = "SPECIALIST_REQUEST["

// maxLen bounds one marker, so that a marker whose JSON never closes (an
// unterminated string, say) cannot swallow the rest of an answer unnoticed.
const maxLen = 32 << 10

var (
	// ErrUnterminated is the error of a marker still open when the stream ended.
	ErrUnterminated = errors.New("malformed specialist request: the answer ended before the closing ']'")
	// ErrTooLong is the error of a marker longer than maxLen bytes.
	ErrTooLong = errors.New("malformed specialist request: longer than 32 KiB")
)

// Request is one marker found in the stream. When Err is set the marker was
// malformed: Name may be empty and Args is nil, and the caller should give the
// model Err's text as an error result. Err texts are safe to show the model.
type Request struct {
	Name string
	// Args is the JSON object as written; "{}" for SPECIALIST_REQUEST[name].
	Args json.RawMessage
	// Raw is the marker text exactly as the model wrote it.
	Raw string
	Err error
}

// Parser detects markers in a stream of text chunks. The zero value is ready
// to use; a Parser is not safe for concurrent use.
//
// Feed and Flush return at most one Request. Text that followed a marker stays
// in the parser (see Rest): the chat loop stops generation at a marker and
// discards it, while a caller that wants every marker calls Feed("") until it
// returns no Request.
type Parser struct {
	// pending is input received but neither emitted nor consumed by a marker.
	// While sc.inMarker, it starts with Prefix.
	pending []byte
	sc      scanner
}

// NewParser returns a ready Parser.
func NewParser() *Parser { return &Parser{} }

// Feed adds chunk to the stream. It returns the text that can be shown now,
// which never includes anything that may belong to a marker, and the Request
// of the first marker completed by this chunk, if any.
func (p *Parser) Feed(chunk string) (string, *Request) {
	p.pending = append(p.pending, chunk...)
	return p.scan(false)
}

// Flush ends the stream. It releases held-back text that can no longer become
// a marker (a lone "SPEC" is plain text), and turns a marker that started with
// the whole Prefix but never closed into a Request with ErrUnterminated: such
// text is never shown, because it is clearly a broken request rather than
// prose. Like Feed, it returns at most one Request; call it again until it
// returns none if text followed a returned marker.
func (p *Parser) Flush() (string, *Request) { return p.scan(true) }

// Rest returns the input the parser holds without having emitted it: after a
// Request, the text that followed the marker; otherwise held-back text.
func (p *Parser) Rest() string { return string(p.pending) }

func (p *Parser) scan(final bool) (string, *Request) {
	var out string
	if !p.sc.inMarker {
		i := bytes.Index(p.pending, []byte(Prefix))
		if i < 0 {
			keep := 0
			if !final {
				keep = heldBack(p.pending)
			}
			return p.emit(len(p.pending) - keep), nil
		}
		out = p.emit(i)
		p.sc = scanner{inMarker: true, pos: len(Prefix)}
	}
	end, done, err := p.sc.advance(p.pending)
	if !done {
		if !final {
			return out, nil
		}
		end, err = len(p.pending), ErrUnterminated
	}
	req := p.sc.request(p.pending[:end], err)
	p.pending = p.pending[end:]
	p.sc = scanner{}
	return out, req
}

// emit removes the first n pending bytes and returns them as text.
func (p *Parser) emit(n int) string {
	s := string(p.pending[:n])
	p.pending = p.pending[n:]
	return s
}

// heldBack is the length of the longest suffix of b that is a proper prefix
// of Prefix: those bytes may still become a marker.
func heldBack(b []byte) int {
	for k := min(len(b), len(Prefix)-1); k > 0; k-- {
		if string(b[len(b)-k:]) == Prefix[:k] {
			return k
		}
	}
	return 0
}
