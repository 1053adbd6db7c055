package dynamo

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/calgraph/calgraph/internal/calendar"
)

// The token of an INVITATION delivery (live.Source). A subscription that
// follows all the viewer reads delivers their invitation changes (their own
// log) and the edits of their invited entries (the logs of calendars they do
// not read, up to 200). Its token is a token of the user's log, as
// invitationChanges takes it, carrying one more place: since, a position
// no later than that of any invited calendar's log the deliveries have
// reached, and sinceSeen, records after since they already delivered (the
// union of those calendars' tokens', the newest maxSinceSeen). Resuming
// reads the user's log from the token and each calendar of the viewer's
// invitations from since, less sinceSeen: nothing is missed, and what comes
// again (a record after since that sinceSeen no longer names) is an object
// delivered before, shown as it is now. One position for every calendar
// keeps the token's size bounded whatever the number of calendars: at most
// maxTokenLength characters, as every sync token.

// maxSinceSeen bounds sinceSeen: with a user's log's own maxSeen records
// (8 bytes each within the overlap window) and these (8 bytes each within
// minutes of since), a token stays under maxTokenLength once in base64;
// InvitedToken forgets more of them in the rare token that would not.
const maxSinceSeen = 150

// appendInvited encodes since and sinceSeen after a token's seen records.
func (t syncToken) appendInvited(b []byte) []byte {
	b = binary.AppendVarint(b, t.since)
	b = binary.AppendUvarint(b, uint64(len(t.sinceSeen)))
	for _, r := range t.sinceSeen {
		b = binary.AppendVarint(b, r.pos-t.since)
		b = binary.BigEndian.AppendUint32(b, r.nonce)
	}
	return b
}

// readInvited decodes what appendInvited wrote and returns the rest.
func (t *syncToken) readInvited(b []byte) ([]byte, bool) {
	var n int
	if t.since, n = binary.Varint(b); n <= 0 || t.since < 0 {
		return nil, false
	}
	b = b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > maxSinceSeen {
		return nil, false
	}
	b = b[n:]
	for range count {
		d, n := binary.Varint(b)
		if n <= 0 || d <= 0 || len(b) < n+4 {
			return nil, false
		}
		t.sinceSeen = append(t.sinceSeen, seenRecord{pos: t.since + d, nonce: binary.BigEndian.Uint32(b[n:])})
		b = b[n+4:]
	}
	return b, true
}

// InvitedToken returns the token of an INVITATION delivery to userID: their
// log read to userToken, and the calendars of their invitations each read
// to its token in calendarTokens (by calendar ID).
func (s *Store) InvitedToken(userID, userToken string, calendarTokens map[string]string) (string, error) {
	t, err := decodeToken(userToken, userID, true)
	if err != nil {
		return "", err
	}
	if t.full {
		return "", calendar.Invalidf("syncToken", "a live delivery continues a log, not a full read")
	}
	// Without calendars, since is where the user's log is: an invitation
	// made after comes from the log, with its entry as it is then.
	t.invited, t.since, t.sinceSeen = true, t.low, nil
	var seen []seenRecord
	first := true
	for id, token := range calendarTokens {
		c, err := decodeToken(token, id, false)
		if err != nil {
			return "", err
		}
		if first || c.low < t.since {
			t.since, first = c.low, false
		}
		seen = append(seen, c.seen...)
	}
	for _, r := range seen {
		if r.pos > t.since {
			t.sinceSeen = append(t.sinceSeen, r)
		}
	}
	// Forgetting the oldest records only repeats them: to maxSinceSeen, and
	// then to fit maxTokenLength (a user's log whose seen records span more
	// than the overlap window takes more bytes each).
	slices.SortFunc(t.sinceSeen, func(a, b seenRecord) int { return cmp.Compare(a.pos, b.pos) })
	t.sinceSeen = t.sinceSeen[max(0, len(t.sinceSeen)-maxSinceSeen):]
	out := t.encode()
	for len(out) > maxTokenLength && len(t.sinceSeen) > 0 {
		t.sinceSeen = t.sinceSeen[min(len(t.sinceSeen), 10):]
		out = t.encode()
	}
	return out, nil
}

// InvitedResume checks a token a client resumes INVITATION deliveries from:
// one of an INVITATION delivery, or of userID's invitationChanges (a log
// position; its calendars are then read from the token's lower bound, which
// misses nothing written after the read that gave the token), within the
// retention. It returns the token to read a calendar's log from. Errors:
// CodeBadUserInput for a token that is not userID's, CodeSyncTokenExpired.
func (s *Store) InvitedResume(userID, token string) (func(calendarID string) string, error) {
	t, err := s.logToken(token, userID, true)
	if err != nil {
		return nil, err
	}
	if !t.invited {
		t.since = t.low
	}
	if t.since < s.clock.readNow().Add(-s.retention).UnixMicro() {
		return nil, calendar.Errorf(calendar.CodeSyncTokenExpired,
			"this sync token is older than the change log's retention (%s): read everything again without a token", s.retention)
	}
	return func(calendarID string) string {
		return syncToken{owner: calendarID, low: t.since, seen: t.sinceSeen}.encode()
	}, nil
}
