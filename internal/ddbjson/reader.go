package ddbjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxLineBytes is the longest line, without its newline, that Reader accepts.
// DynamoDB items are at most 400 KB, but their JSON may be several times longer.
const maxLineBytes = 4 << 20

var (
	errTruncated   = errors.New("truncated (no trailing newline)")
	errBlankLine   = errors.New("blank line")
	errLineTooLong = fmt.Errorf("longer than %d bytes", maxLineBytes)
)

// Reader reads items from text in DynamoDB's JSON export format, one
// {"Item":{...}} line per item, every line ended by "\n".
type Reader struct {
	br   *bufio.Reader
	buf  []byte
	line int
	err  error
}

// NewReader returns a Reader that reads from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next item, or io.EOF after the last complete line. Any other
// error names the 1-based line number ("line 3: ..."); it is returned again by
// every later call. A last line without a trailing newline is an error, because
// it means the file was truncated.
func (r *Reader) Next() (map[string]types.AttributeValue, error) {
	if r.err != nil {
		return nil, r.err
	}
	item, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return item, nil
}

// next reads and parses one line.
func (r *Reader) next() (map[string]types.AttributeValue, error) {
	line, complete, err := r.readLine()
	if err == io.EOF && len(line) == 0 {
		return nil, io.EOF
	}
	r.line++
	switch {
	case errors.Is(err, errLineTooLong):
		return nil, fmt.Errorf("line %d: %w", r.line, err)
	case err != nil && err != io.EOF:
		return nil, fmt.Errorf("line %d: read: %w", r.line, err)
	case !complete:
		return nil, fmt.Errorf("line %d: %w", r.line, errTruncated)
	case len(bytes.TrimSpace(line)) == 0:
		return nil, fmt.Errorf("line %d: %w", r.line, errBlankLine)
	}
	item, err := parseLine(line)
	if err != nil {
		return nil, fmt.Errorf("line %d: %w", r.line, err)
	}
	return item, nil
}

// readLine returns the next line without its newline and whether the newline
// was there. The line is only valid until the next call.
func (r *Reader) readLine() ([]byte, bool, error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(r.buf)+len(chunk) > maxLineBytes+1 {
			return r.buf, false, errLineTooLong
		}
		r.buf = append(r.buf, chunk...)
		switch {
		case err == nil:
			return r.buf[:len(r.buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(r.buf) > maxLineBytes:
			return r.buf, false, errLineTooLong
		default:
			return r.buf, false, err
		}
	}
}

// parseLine parses one export line: {"Item":{...}}.
func parseLine(line []byte) (map[string]types.AttributeValue, error) {
	d, err := newDecoder(line)
	if err != nil {
		return nil, err
	}
	if err := d.open('{'); err != nil {
		return nil, err
	}
	if !d.dec.More() {
		return nil, errors.New(`missing "Item"`)
	}
	key, err := d.str()
	if err != nil {
		return nil, err
	}
	if key != "Item" {
		return nil, fmt.Errorf(`unexpected key %s, want "Item"`, quote(key))
	}
	item, err := d.attributes(1)
	if err != nil {
		return nil, fmt.Errorf(`"Item": %w`, err)
	}
	if d.dec.More() {
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf(`unexpected key %s after "Item"`, quote(key))
	}
	if err := d.close(); err != nil {
		return nil, err
	}
	return item, nil
}
