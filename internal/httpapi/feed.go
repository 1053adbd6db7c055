package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
)

// PathFeeds is where calendars' iCalendar feeds are served:
// PathFeeds + "{token}.ics".
const PathFeeds = calendar.FeedPathPrefix

// FeedHandler serves calendars' iCalendar feeds (text/calendar, RFC 5545) to
// whoever holds a feed's secret token: calendar apps poll it, so answers carry
// an ETag and a conditional request that matches gets 304 Not Modified.
func FeedHandler(svc calendar.FeedService, eng calendar.RecurrenceEngine, now func() time.Time, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutSuffix(r.PathValue("file"), calendar.FeedPathSuffix)
		if !ok {
			writeText(w, http.StatusNotFound, "feed not found")
			return
		}
		feed, err := svc.Feed(r.Context(), token)
		if calendar.ErrorCode(err) == calendar.CodeNotFound {
			writeText(w, http.StatusNotFound, "feed not found")
			return
		}
		var body bytes.Buffer
		if err == nil {
			err = ical.Encode(&body, ical.Feed{Calendar: feed.Calendar, Entries: feed.Entries, Exceptions: feed.Exceptions,
				Attendees: feed.Attendees, Organizers: feed.Organizers, Now: now(), Engine: eng})
		}
		if err != nil {
			logger.ErrorContext(r.Context(), "serving a feed", "err", err)
			writeText(w, http.StatusInternalServerError, "internal error")
			return
		}
		sum := sha256.Sum256(withoutStamps(body.Bytes()))
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "private, max-age=300")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
		w.Header().Set("Content-Disposition", `inline; filename="calendar.ics"`)
		_, _ = w.Write(body.Bytes())
	})
}

// withoutStamps drops the DTSTAMP lines, which say when the feed was made,
// so that the ETag changes only when the calendar does.
func withoutStamps(ics []byte) []byte {
	var out []byte
	for line := range bytes.Lines(ics) {
		if !bytes.HasPrefix(line, []byte("DTSTAMP")) {
			out = append(out, line...)
		}
	}
	return out
}
