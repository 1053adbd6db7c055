package ical

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"
)

// maxLineOctets is the longest content line RFC 5545 section 3.1 allows
// before folding, line break excluded.
const maxLineOctets = 75

// foldWriter folds the content lines that go-ical's Encoder writes whole:
// a line longer than 75 octets continues on lines that start with a space,
// and no UTF-8 character is split across lines. go-ical's Decoder, like every
// client, unfolds them.
type foldWriter struct {
	w    *bufio.Writer
	line []byte
}

func newFoldWriter(w io.Writer) *foldWriter {
	return &foldWriter{w: bufio.NewWriter(w)}
}

// Write buffers p and writes every line it completes, folded.
func (f *foldWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.line = append(f.line, p...)
			break
		}
		f.line = append(f.line, p[:i+1]...)
		p = p[i+1:]
		if err := f.writeLine(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush writes what is left and flushes the underlying writer.
func (f *foldWriter) Flush() error {
	if len(f.line) > 0 {
		if err := f.writeLine(); err != nil {
			return err
		}
	}
	return f.w.Flush()
}

func (f *foldWriter) writeLine() error {
	line := bytes.TrimSuffix(bytes.TrimSuffix(f.line, []byte("\n")), []byte("\r"))
	limit := maxLineOctets
	for len(line) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		if cut == 0 { // not UTF-8: cut anywhere rather than loop
			cut = limit
		}
		f.w.Write(line[:cut])
		f.w.WriteString("\r\n ")
		line = line[cut:]
		limit = maxLineOctets - 1 // the leading space counts
	}
	f.w.Write(line)
	_, err := f.w.WriteString("\r\n")
	f.line = f.line[:0]
	return err
}
