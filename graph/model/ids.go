package model

import (
	"encoding/base64"
	"strings"
	"unsafe"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Global IDs are base64url("<Type>:<key>"): opaque to clients, unique across
// types, and decodable to the type node(id:) must fetch. A membership's key is
// "<calendarID>:<userID>".

// The types of global IDs.
const (
	KindUser       = "User"
	KindCalendar   = "Calendar"
	KindMembership = "Membership"
	KindEntry      = "Entry"
	KindOccurrence = "Occurrence"
	KindInvitation = "Invitation"
)

// GlobalID encodes a global ID. A view renders one or two per entry, so it
// allocates the answer alone: the text is put together on the stack when it
// fits, and the encoding is written into the string's own bytes.
func GlobalID(kind, key string) string {
	var scratch [128]byte
	raw := append(append(append(scratch[:0], kind...), ':'), key...)
	out := make([]byte, base64.RawURLEncoding.EncodedLen(len(raw)))
	base64.RawURLEncoding.Encode(out, raw)
	return unsafe.String(unsafe.SliceData(out), len(out)) // out is not written again
}

// UserGID is a user's global ID.
func UserGID(id string) string { return GlobalID(KindUser, id) }

// CalendarGID is a calendar's global ID.
func CalendarGID(id string) string { return GlobalID(KindCalendar, id) }

// MembershipGID is a membership's global ID.
func MembershipGID(k calendar.MembershipKey) string {
	return GlobalID(KindMembership, k.CalendarID+":"+k.UserID)
}

// DecodeGID splits a global ID into its type and key.
func DecodeGID(field, gid string) (kind, key string, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(gid)
	if err != nil || len(gid) > 200 {
		return "", "", calendar.Invalidf(field, "%s is not a calgraph ID", field)
	}
	kind, key, ok := strings.Cut(string(raw), ":")
	// The decoder skips line breaks and ignores stray bits: an ID is valid
	// only as GlobalID writes it, so each object has exactly one.
	if !ok || GlobalID(kind, key) != gid {
		return "", "", calendar.Invalidf(field, "%s is not a calgraph ID", field)
	}
	return kind, key, nil
}

// DecodeAs decodes a global ID that must be of the given type.
func DecodeAs(field, kind, gid string) (string, error) {
	k, key, err := DecodeGID(field, gid)
	if err != nil {
		return "", err
	}
	if k != kind {
		return "", calendar.Invalidf(field, "%s is not a %s ID", field, kind)
	}
	if kind != KindMembership && kind != KindEntry && kind != KindOccurrence && kind != KindInvitation {
		if err := calendar.ValidateID(field, key); err != nil {
			return "", err
		}
	}
	return key, nil
}

// DecodeCalendarID decodes a calendar's global ID.
func DecodeCalendarID(field, gid string) (string, error) { return DecodeAs(field, KindCalendar, gid) }

// DecodeMembershipID decodes a membership's global ID.
func DecodeMembershipID(field, gid string) (calendar.MembershipKey, error) {
	key, err := DecodeAs(field, KindMembership, gid)
	if err != nil {
		return calendar.MembershipKey{}, err
	}
	cal, user, _ := strings.Cut(key, ":")
	if calendar.ValidateID(field, cal) != nil || calendar.ValidateID(field, user) != nil {
		return calendar.MembershipKey{}, calendar.Invalidf(field, "%s is not a Membership ID", field)
	}
	return calendar.MembershipKey{CalendarID: cal, UserID: user}, nil
}

// EntryGID is an entry's global ID; it includes the calendar, so a moved entry
// gets a new one.
func EntryGID(k calendar.EntryKey) string { return GlobalID(KindEntry, k.CalendarID+":"+k.EntryID) }

// DecodeEntryID decodes an entry's global ID.
func DecodeEntryID(field, gid string) (calendar.EntryKey, error) {
	key, err := DecodeAs(field, KindEntry, gid)
	if err != nil {
		return calendar.EntryKey{}, err
	}
	cal, entry, _ := strings.Cut(key, ":")
	if calendar.ValidateID(field, cal) != nil || calendar.ValidateID(field, entry) != nil {
		return calendar.EntryKey{}, calendar.Invalidf(field, "%s is not an Entry ID", field)
	}
	return calendar.EntryKey{CalendarID: cal, EntryID: entry}, nil
}

// OccurrenceGID is the global ID of an occurrence of a series: its calendar
// and its occurrence ID (the series' ID and its original start).
func OccurrenceGID(calendarID, occurrenceID string) string {
	return GlobalID(KindOccurrence, calendarID+":"+occurrenceID)
}

// DecodeOccurrenceID decodes an occurrence's global ID.
func DecodeOccurrenceID(field, gid string) (calendar.OccurrenceKey, error) {
	key, err := DecodeAs(field, KindOccurrence, gid)
	if err != nil {
		return calendar.OccurrenceKey{}, err
	}
	cal, occ, _ := strings.Cut(key, ":")
	k, err := calendar.ParseOccurrenceID(field, occ)
	if err != nil || calendar.ValidateID(field, cal) != nil {
		return calendar.OccurrenceKey{}, calendar.Invalidf(field, "%s is not an Occurrence ID", field)
	}
	k.CalendarID = cal
	return k, nil
}

// DecodeEntryOrOccurrenceID decodes the global ID of an entry (single or
// series) or of an occurrence; exactly one of the results is set.
func DecodeEntryOrOccurrenceID(field, gid string) (*calendar.EntryKey, *calendar.OccurrenceKey, error) {
	kind, _, err := DecodeGID(field, gid)
	if err != nil {
		return nil, nil, err
	}
	if kind == KindOccurrence {
		k, err := DecodeOccurrenceID(field, gid)
		return nil, &k, err
	}
	k, err := DecodeEntryID(field, gid)
	return &k, nil, err
}

// InvitationGID is an invitation's global ID.
func InvitationGID(k calendar.InvitationKey) string {
	return GlobalID(KindInvitation, k.CalendarID+":"+k.ID)
}

// DecodeInvitationID decodes an invitation's global ID.
func DecodeInvitationID(field, gid string) (calendar.InvitationKey, error) {
	key, err := DecodeAs(field, KindInvitation, gid)
	if err != nil {
		return calendar.InvitationKey{}, err
	}
	cal, id, _ := strings.Cut(key, ":")
	if calendar.ValidateID(field, cal) != nil || calendar.ValidateID(field, id) != nil {
		return calendar.InvitationKey{}, calendar.Invalidf(field, "%s is not an Invitation ID", field)
	}
	return calendar.InvitationKey{CalendarID: cal, ID: id}, nil
}
