package dynamo

import (
	"fmt"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestInvitedTokenBounds: the token of an INVITATION delivery made of a
// user's log token and 200 calendars' tokens, every one holding all the
// records it may, stays within maxTokenLength and reads back: its position
// is the earliest calendar's, it remembers only records after it, and each
// calendar's log is read from there.
func TestInvitedTokenBounds(t *testing.T) {
	s := &Store{clock: newStoreClock(time.Now), retention: calendar.DefaultChangeRetention}
	now := time.Now().UnixMicro()
	user := fmt.Sprintf("%036d", 1)
	full := func(owner string, isUser bool, low, spread int64) string {
		tok := syncToken{owner: owner, user: isUser, low: low}
		for i := range int64(maxSeen) {
			tok.seen = append(tok.seen, seenRecord{pos: low + 1 + i*spread/maxSeen, nonce: uint32(i)})
		}
		return tok.encode()
	}
	for _, spread := range []int64{30e6, 6 * 24 * 3600e6} { // records over the overlap window; over days
		userToken := full(user, true, now-spread, spread)
		cals := map[string]string{}
		earliest := now - 40e6
		for i := range 200 {
			id := fmt.Sprintf("%036d", 1000+i)
			low := now - 30e6
			if i == 7 {
				low = earliest
			}
			cals[id] = full(id, false, low, 30e6)
		}
		got, err := s.InvitedToken(user, userToken, cals)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > maxTokenLength {
			t.Errorf("records spread over %v: the token has %d characters, want at most %d", time.Duration(spread)*time.Microsecond, len(got), maxTokenLength)
		}
		tok, err := decodeToken(got, user, true)
		if err != nil {
			t.Fatalf("records spread over %v: %v", time.Duration(spread)*time.Microsecond, err)
		}
		if !tok.invited || tok.since != earliest || len(tok.seen) != maxSeen || len(tok.sinceSeen) == 0 || len(tok.sinceSeen) > maxSinceSeen {
			t.Errorf("records spread over %v: invited %v, since %d (want %d), %d seen, %d since seen",
				time.Duration(spread)*time.Microsecond, tok.invited, tok.since, earliest, len(tok.seen), len(tok.sinceSeen))
		}
		for _, r := range tok.sinceSeen {
			if r.pos <= tok.since {
				t.Fatalf("a record at %d, not after since %d", r.pos, tok.since)
			}
		}
		from, err := s.InvitedResume(user, got)
		if err != nil {
			t.Fatal(err)
		}
		c, err := decodeToken(from("000000000000000000000000000000001007"), "000000000000000000000000000000001007", false)
		if err != nil || c.low != earliest || len(c.seen) != len(tok.sinceSeen) {
			t.Errorf("a calendar's token to resume from: low %d (want %d), %d seen, %v", c.low, earliest, len(c.seen), err)
		}
	}
}

// BenchmarkInvitedToken: the token each INVITATION delivery carries, made
// of the tokens of 200 calendars' logs (each remembering 5 records, or
// maxSeen).
func BenchmarkInvitedToken(b *testing.B) {
	s := &Store{clock: newStoreClock(time.Now), retention: calendar.DefaultChangeRetention}
	now := time.Now().UnixMicro()
	user := fmt.Sprintf("%036d", 1)
	for _, seen := range []int{5, maxSeen} {
		b.Run(fmt.Sprint(seen, " records each"), func(b *testing.B) {
			token := func(owner string, isUser bool) string {
				tok := syncToken{owner: owner, user: isUser, low: now - 30e6}
				for i := range seen {
					tok.seen = append(tok.seen, seenRecord{pos: now - 30e6 + 1 + int64(i)*30e6/int64(seen), nonce: uint32(i)})
				}
				return tok.encode()
			}
			cals := map[string]string{}
			for i := range 200 {
				id := fmt.Sprintf("%036d", 1000+i)
				cals[id] = token(id, false)
			}
			userToken := token(user, true)
			var out string
			for b.Loop() {
				var err error
				if out, err = s.InvitedToken(user, userToken, cals); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out)), "chars")
		})
	}
}
