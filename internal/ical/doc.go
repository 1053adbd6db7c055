// Package ical reads and writes calgraph's entries as iCalendar (RFC 5545)
// documents with github.com/emersion/go-ical: the feed a calendar app
// subscribes to, and the documents an import reads.
//
// Encode writes a calendar's feed: single entries and tasks, series with
// their RRULE, RDATE and EXDATE, their exceptions as RECURRENCE-ID events, and
// a VTIMEZONE for each zone in use. Decode reads a document into Items to
// create, one per event, to-do or series, and reports every component it
// cannot import in Import.Errors instead of failing the whole document.
//
// Neither side writes or parses iCalendar text by hand: go-ical builds and
// parses the content lines. This package adds only what go-ical leaves to its
// callers: folding long lines on output (foldWriter); on input a recover
// around its decoder, which panics on some malformed lines, and a bound on
// the length of property parameters, which it parses in quadratic time
// (source); and RFC 5545's reading of local times in DST gaps and overlaps
// (calendar.WallClock), where go-ical uses time.Date's.
package ical
