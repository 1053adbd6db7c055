package ical_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

func TestDecodeRefusesDocuments(t *testing.T) {
	long := strings.Repeat("a", 5000)
	tooMany := strings.Repeat("BEGIN:VEVENT\r\nUID:x\r\nEND:VEVENT\r\n", ical.MaxComponents+1)
	tests := []struct {
		name, doc, wantMessage string
	}{
		{"garbage", "hello, world", "not valid iCalendar"},
		{"empty", "", "ends before a VCALENDAR is complete"},
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00", "not valid iCalendar"},
		{"no VCALENDAR", "BEGIN:VEVENT\r\nUID:1\r\nEND:VEVENT\r\n", "VCALENDAR"},
		{"truncated", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:1\r\n", "ends before a VCALENDAR is complete"},
		{"a line ending in a parameter (go-ical panics)", "BEGIN:VCALENDAR\r\nDTSTART;TZID=Foo\r\nEND:VCALENDAR\r\n", "malformed"},
		{"text after a quoted parameter (go-ical panics)", "BEGIN:VCALENDAR\r\nX-A;B=\"c\"d:e\r\nEND:VCALENDAR\r\n", "malformed"},
		{"text after the VCALENDAR", document() + "Hello\r\n", "not valid iCalendar"},
		{"too many components", document(tooMany), "the limit is 5000"},
		{"a parameter go-ical would take long to parse", document("X-A;P=" + long + ":v"), "longer than 4096 bytes"},
		{"a folded, quoted one", document("X-A;P=\"a:" + long[:3000] + "\r\n " + long[:3000] + "\":v"), "longer than 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := ical.Decode(strings.NewReader(tt.doc), "UTC")
			if err == nil {
				t.Fatalf("got %+v and no error, want one", imp)
			}
			if got := calendar.ErrorCode(err); got != calendar.CodeInvalid {
				t.Errorf("got code %v, want %v (%v)", got, calendar.CodeInvalid, err)
			}
			if got := calendar.ErrorField(err); got != "ics" {
				t.Errorf("got field %q, want ics", got)
			}
			if got := calendar.ErrorMessage(err); !strings.Contains(got, tt.wantMessage) {
				t.Errorf("got message %q, want it to contain %q", got, tt.wantMessage)
			}
		})
	}
}

func TestDecodeAcceptsDocuments(t *testing.T) {
	oneEvent := strings.Join([]string{"BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:1", "SUMMARY:A long",
		"  title", "DTSTART:20260310T090000Z", "END:VEVENT", "END:VCALENDAR"}, "\n")
	atLimit := strings.Repeat("BEGIN:VEVENT\r\nDTSTART:20260310T090000Z\r\nEND:VEVENT\r\n", ical.MaxComponents)
	tests := []struct {
		name      string
		doc       string
		wantItems int
		wantTitle string
	}{
		{"a byte order mark, LF line ends and a folded line", "\uFEFF" + oneEvent + "\n", 1, "A long title"},
		{"two VCALENDARs one after the other", oneEvent + "\r\n\r\n" + strings.Replace(oneEvent, "UID:1", "UID:2", 1), 2, "A long title"},
		{"as many components as allowed", document(atLimit), ical.MaxComponents, "(no title)"},
		{"long values and quoted parameters", document(vevent("UID:1", "SUMMARY;X-P=\"a:b;c\":"+strings.Repeat("x", 100_000),
			"DESCRIPTION:"+strings.Repeat("y", 1_000_000), "DTSTART:20260310T090000Z")...), 1, strings.Repeat("x", 100_000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp := decode(t, tt.doc)
			if len(imp.Items) != tt.wantItems || len(imp.Errors) > 0 {
				t.Fatalf("got %d items and errors %+v, want %d items", len(imp.Items), imp.Errors, tt.wantItems)
			}
			if got := imp.Items[0].Entry.Title; got != tt.wantTitle {
				t.Errorf("got title %q, want %q", got, tt.wantTitle)
			}
		})
	}
}

// failingReader fails after its content, as a body cut by a size limit does.
type failingReader struct {
	r   io.Reader
	err error
}

func (f failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestDecodeReportsReadErrors(t *testing.T) {
	tooLarge := errors.New("request body too large")
	_, err := ical.Decode(failingReader{strings.NewReader("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"), tooLarge}, "UTC")
	if !errors.Is(err, tooLarge) {
		t.Errorf("got %v, want the reader's error", err)
	}
	if got := calendar.ErrorCode(err); got == calendar.CodeInvalid {
		t.Errorf("got code %v, want a read failure not to blame the document", got)
	}
	if _, err := ical.Decode(strings.NewReader(document()), "Nowhere/Special"); calendar.ErrorCode(err) != calendar.CodeInvalid {
		t.Errorf("unknown default zone: got %v, want a CodeInvalid error", err)
	}
}
