package ical

import (
	"errors"
	"fmt"
	"io"

	"github.com/calgraph/calgraph/internal/calendar"
)

// maxHeadBytes bounds the name and parameters of a content line (everything
// before the ':' that starts its value). go-ical builds each parameter value
// one byte at a time, in time quadratic in its length: a 200 KB parameter
// takes seconds to parse. Real parameters are short (TZID, VALUE, CN; Apple's
// X-APPLE-STRUCTURED-LOCATION, among the longest, carries a map handle of a
// few hundred bytes); with this bound a hostile document costs at most about
// a second of CPU per MB, so the caller's size limit bounds the work.
const maxHeadBytes = 4096

// errHeadTooLong stops go-ical's Decoder at a line with too long a head.
var errHeadTooLong = errors.New("content line head too long")

// source is the document as go-ical's Decoder reads it. It tells a failure to
// read r apart from a malformed document, and refuses a content line whose
// head is longer than maxHeadBytes before go-ical gets to parse it. It sees
// physical lines: a line starting with a space or tab continues the one
// before (RFC 5545 folding), and a '"' opens or closes a quoted parameter
// value, in which ':' does not end the head.
type source struct {
	r       io.Reader
	readErr error
	tooLong bool

	lineStart bool // the next byte starts a physical line
	inHead    bool // the bytes are the head of a content line
	quoted    bool
	head      int // bytes of the head so far
}

func newSource(r io.Reader) *source { return &source{r: r, lineStart: true} }

// Read reads from r and checks what it read.
func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.readErr = err
	}
	for _, b := range p[:n] {
		if !s.scan(b) {
			s.tooLong = true
			return 0, errHeadTooLong
		}
	}
	return n, err
}

// scan follows one byte; it returns false when a head is too long.
func (s *source) scan(b byte) bool {
	if s.lineStart {
		s.lineStart = false
		if b == ' ' || b == '\t' { // folded: the same content line goes on
			return true
		}
		s.inHead, s.quoted, s.head = true, false, 0
	}
	switch {
	case b == '\n':
		s.lineStart = true
	case !s.inHead, b == '\r':
	case b == ':' && !s.quoted:
		s.inHead = false
	default:
		s.quoted = s.quoted != (b == '"')
		s.head++
	}
	return s.head <= maxHeadBytes
}

// failure returns why the document could not be read, if not its syntax.
func (s *source) failure() error {
	switch {
	case s.tooLong:
		return calendar.Invalidf("ics", "a property's name and parameters are longer than %d bytes", maxHeadBytes)
	case s.readErr != nil:
		return fmt.Errorf("read document: %w", s.readErr)
	}
	return nil
}
