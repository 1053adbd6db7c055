package graph

import (
	"encoding/base64"
	"strings"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Global IDs are base64url("<Type>:<key>"): opaque to clients, unique across
// types, and decodable to the type node(id:) must fetch. A membership's key is
// "<calendarID>:<userID>".

const (
	kindUser       = "User"
	kindCalendar   = "Calendar"
	kindMembership = "Membership"
)

func globalID(kind, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + key))
}

func userGID(id string) string     { return globalID(kindUser, id) }
func calendarGID(id string) string { return globalID(kindCalendar, id) }
func membershipGID(k calendar.MembershipKey) string {
	return globalID(kindMembership, k.CalendarID+":"+k.UserID)
}

// decodeGID splits a global ID into its type and key.
func decodeGID(field, gid string) (kind, key string, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(gid)
	if err != nil || len(gid) > 200 {
		return "", "", calendar.Invalidf(field, "%s is not a calgraph ID", field)
	}
	kind, key, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", calendar.Invalidf(field, "%s is not a calgraph ID", field)
	}
	return kind, key, nil
}

// decodeAs decodes a global ID that must be of the given type.
func decodeAs(field, kind, gid string) (string, error) {
	k, key, err := decodeGID(field, gid)
	if err != nil {
		return "", err
	}
	if k != kind {
		return "", calendar.Invalidf(field, "%s is not a %s ID", field, kind)
	}
	if kind != kindMembership && kind != kindEntry {
		if err := calendar.ValidateID(field, key); err != nil {
			return "", err
		}
	}
	return key, nil
}

func decodeCalendarID(field, gid string) (string, error) { return decodeAs(field, kindCalendar, gid) }

func decodeMembershipID(field, gid string) (calendar.MembershipKey, error) {
	key, err := decodeAs(field, kindMembership, gid)
	if err != nil {
		return calendar.MembershipKey{}, err
	}
	cal, user, _ := strings.Cut(key, ":")
	if calendar.ValidateID(field, cal) != nil || calendar.ValidateID(field, user) != nil {
		return calendar.MembershipKey{}, calendar.Invalidf(field, "%s is not a Membership ID", field)
	}
	return calendar.MembershipKey{CalendarID: cal, UserID: user}, nil
}

const kindEntry = "Entry"

// entryGID is an entry's global ID; it includes the calendar, so a moved entry
// gets a new one.
func entryGID(k calendar.EntryKey) string { return globalID(kindEntry, k.CalendarID+":"+k.EntryID) }

func decodeEntryID(field, gid string) (calendar.EntryKey, error) {
	key, err := decodeAs(field, kindEntry, gid)
	if err != nil {
		return calendar.EntryKey{}, err
	}
	cal, entry, _ := strings.Cut(key, ":")
	if calendar.ValidateID(field, cal) != nil || calendar.ValidateID(field, entry) != nil {
		return calendar.EntryKey{}, calendar.Invalidf(field, "%s is not an Entry ID", field)
	}
	return calendar.EntryKey{CalendarID: cal, EntryID: entry}, nil
}
