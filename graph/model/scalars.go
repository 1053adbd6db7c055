package model

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/calgraph/calgraph/internal/calendar"
)

// FieldFromPath marks a validation error raised while reading an input value,
// where the input field is not known yet: the error presenter names the field
// from the error's path (for example input.timing.timed.start → "start").
const FieldFromPath = "\x00path"

// MarshalDateTime writes an instant as RFC 3339 in UTC, formatted in place
// (its characters need no escaping): every entry of a view has two.
func MarshalDateTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		var buf [48]byte
		b := append(buf[:0], '"')
		b = append(t.UTC().AppendFormat(b, time.RFC3339Nano), '"')
		_, _ = w.Write(b)
	})
}

// UnmarshalDateTime reads an RFC 3339 timestamp with an offset, keeping
// milliseconds (finer digits are dropped, as everything calgraph stores keeps
// milliseconds). Its errors are domain validation errors, so clients get
// BAD_USER_INPUT.
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, calendar.Invalidf(FieldFromPath, "a DateTime is an RFC 3339 string like 2026-11-21T09:30:00Z")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, calendar.Invalidf(FieldFromPath, "%q is not an RFC 3339 timestamp like 2026-11-21T09:30:00Z", truncate(s))
	}
	t = t.Truncate(time.Millisecond)
	return t, calendar.ValidateInstant(FieldFromPath, t)
}

// MarshalDate writes a date as YYYY-MM-DD.
func MarshalDate(d calendar.Date) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, strconv.Quote(d.String())) })
}

// UnmarshalDate reads a YYYY-MM-DD date.
func UnmarshalDate(v any) (calendar.Date, error) {
	s, ok := v.(string)
	if !ok {
		return calendar.Date{}, calendar.Invalidf(FieldFromPath, "a Date is a string like 2026-11-21")
	}
	d, err := calendar.ParseDate(FieldFromPath, s)
	if err != nil {
		return d, calendar.Invalidf(FieldFromPath, "%q is not a date like 2026-11-21", truncate(s))
	}
	return d, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
