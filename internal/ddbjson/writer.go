package ddbjson

import (
	"bufio"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Writer writes items in DynamoDB's JSON export format: one {"Item":{...}} line,
// ended by "\n", per item. It buffers its output; call Flush when done.
type Writer struct {
	bw   *bufio.Writer
	line []byte
	n    int
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
}

// Write writes one item as a line. An item that MarshalItem rejects is not
// written and does not count.
func (w *Writer) Write(item map[string]types.AttributeValue) error {
	line, err := appendItem(append(w.line[:0], `{"Item":`...), item, 1)
	if err != nil {
		return fmt.Errorf("item %d: %w", w.n+1, err)
	}
	line = append(line, "}\n"...)
	w.line = line
	if _, err := w.bw.Write(line); err != nil {
		return fmt.Errorf("item %d: write: %w", w.n+1, err)
	}
	w.n++
	return nil
}

// Count returns the number of items written so far, including those still
// buffered.
func (w *Writer) Count() int {
	return w.n
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return nil
}
