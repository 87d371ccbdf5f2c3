package marker

import (
	"encoding/json"
	"errors"
)

// scanner is the state of a marker being read. It resumes where the previous
// chunk ended, so a marker fed one byte at a time costs linear time.
type scanner struct {
	inMarker bool
	phase    phase
	pos      int // next byte of the marker to read; the marker starts at 0

	nameStart, nameEnd int
	argsStart, argsEnd int

	// JSON structure of the arguments: open '{' and '[' outside strings.
	// Brackets are tracked as well as braces so that an array's ']' is not
	// taken for the end of the marker.
	open     []byte
	inString bool
	escaped  bool
	argsErr  error // balanced arguments that are still not valid JSON
}

type phase uint8

const (
	beforeName phase = iota // after Prefix, skipping spaces
	inName
	afterName // spaces after the name
	beforeArgs
	inArgs
	afterArgs // spaces before the closing ']'
)

// advance reads marker[s.pos:]. When the marker is complete or proven
// malformed it returns done, the number of bytes that belong to it, and the
// error of a malformed marker.
func (s *scanner) advance(marker []byte) (end int, done bool, err error) {
	for ; s.pos < len(marker); s.pos++ {
		if s.pos >= maxLen {
			return s.pos, true, ErrTooLong
		}
		if end, done, err = s.step(marker, marker[s.pos]); done {
			return end, true, err
		}
	}
	return 0, false, nil
}

func (s *scanner) step(marker []byte, c byte) (end int, done bool, err error) {
	switch s.phase {
	case beforeName:
		switch {
		case isSpace(c):
		case isNameByte(c):
			s.phase, s.nameStart = inName, s.pos
		default:
			return s.fail(c, "expected a specialist name after "+Prefix)
		}
	case inName:
		switch {
		case isNameByte(c):
		case isSpace(c):
			s.phase, s.nameEnd = afterName, s.pos
		case c == ':':
			s.phase, s.nameEnd = beforeArgs, s.pos
		case c == ']':
			// SPECIALIST_REQUEST[name]: a call without arguments.
			s.nameEnd = s.pos
			return s.pos + 1, true, nil
		default:
			return s.fail(c, "a specialist name may only hold letters, digits, '_', '-' and '.'")
		}
	case afterName:
		switch {
		case isSpace(c):
		case c == ':':
			s.phase = beforeArgs
		case c == ']':
			return s.pos + 1, true, nil
		default:
			return s.fail(c, "expected ':' after the specialist name")
		}
	case beforeArgs:
		switch {
		case isSpace(c):
		case c == '{':
			s.phase, s.argsStart, s.open = inArgs, s.pos, append(s.open, c)
		default:
			return s.fail(c, "the arguments must be a JSON object")
		}
	case inArgs:
		return s.stepArgs(marker, c)
	case afterArgs:
		switch {
		case isSpace(c):
		case c == ']':
			return s.pos + 1, true, s.argsErr
		default:
			return s.fail(c, "expected ']' after the JSON arguments")
		}
	}
	return 0, false, nil
}

// stepArgs follows JSON strings and nesting until the object that opened the
// arguments closes. Validity is checked once, on the whole object.
func (s *scanner) stepArgs(marker []byte, c byte) (end int, done bool, err error) {
	switch {
	case s.escaped:
		s.escaped = false
	case s.inString:
		s.escaped = c == '\\'
		s.inString = c != '"'
	case c == '"':
		s.inString = true
	case c == '{' || c == '[':
		s.open = append(s.open, c)
	case c == '}' || c == ']':
		opener := byte('{')
		if c == ']' {
			opener = '['
		}
		if s.open[len(s.open)-1] != opener {
			return s.fail(c, "the arguments are not valid JSON")
		}
		s.open = s.open[:len(s.open)-1]
		if len(s.open) == 0 {
			s.phase, s.argsEnd = afterArgs, s.pos+1
			if !json.Valid(marker[s.argsStart:s.argsEnd]) {
				s.argsErr = errors.New("malformed specialist request: the arguments are not valid JSON")
			}
		}
	}
	return 0, false, nil
}

// fail ends a malformed marker at the offending byte c. A ']' is taken as the
// model's end of the marker and consumed with it; any other byte is left to be
// read again as text, so that a real marker starting there is still found.
func (s *scanner) fail(c byte, msg string) (end int, done bool, err error) {
	end = s.pos
	if c == ']' {
		end++
	}
	return end, true, errors.New("malformed specialist request: " + msg)
}

// request builds the Request of the marker text raw, which ended with err.
func (s *scanner) request(raw []byte, err error) *Request {
	// Everything is copied out of raw, which is the parser's buffer.
	r := &Request{Raw: string(raw), Err: err}
	if s.nameEnd > s.nameStart {
		r.Name = r.Raw[s.nameStart:s.nameEnd]
	}
	switch {
	case err != nil:
	case s.argsEnd > 0:
		r.Args = json.RawMessage(r.Raw[s.argsStart:s.argsEnd])
	default:
		r.Args = json.RawMessage("{}")
	}
	return r
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.'
}
