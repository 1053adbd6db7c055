package calendar

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// Feed is what a calendar's iCalendar feed shows: the calendar, its single
// entries and series, the series' exceptions as their occurrences look, and
// the people on its single entries.
type Feed struct {
	Calendar   *Calendar
	Entries    []*Entry
	Exceptions []*Entry
	// Attendees are the attendees of each single entry, by entry ID, for the
	// entries whose list the feed shows: an entry whose organizer hides the
	// list (Attendance.HideAttendees) has none here, since whoever holds the
	// feed's URL is not known to be a member.
	Attendees map[string][]*Attendee
	// Organizers are the users organizing the entries in Attendees, by user
	// ID; a user deleted since is missing.
	Organizers map[string]*User
}

// A feed is served at FeedPathPrefix + token + FeedPathSuffix.
const FeedPathPrefix, FeedPathSuffix = "/feeds/", ".ics"

// NewFeedToken returns a fresh secret feed token: 32 random bytes, base64url.
func NewFeedToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// FeedTokenHash is what is stored of a feed token, so that the table never
// holds a usable token.
func FeedTokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ValidFeedToken reports whether s has the form of a feed token.
func ValidFeedToken(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32 && base64.RawURLEncoding.EncodeToString(b) == s
}

// FeedService manages calendars' iCalendar feeds: read-only views of a whole
// calendar at a secret URL, for calendar apps to subscribe to.
type FeedService interface {
	// RotateFeed gives a calendar's feed a new secret token and returns it;
	// the previous token stops working. Only the token's hash is stored, so
	// this is the only time it is shown. Owners only. Errors:
	// CodeUnauthenticated, CodeNotFound, CodeForbidden.
	RotateFeed(ctx context.Context, calendarID string) (token string, err error)

	// DisableFeed ends a calendar's feed. Owners only. Errors: as RotateFeed,
	// and CodeNotFound when the calendar has no feed.
	DisableFeed(ctx context.Context, calendarID string) error

	// Feed returns what the feed with this token shows, to whoever holds the
	// token. Errors: CodeNotFound.
	Feed(ctx context.Context, token string) (*Feed, error)
}
