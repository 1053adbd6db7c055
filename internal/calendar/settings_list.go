package calendar

import (
	"cmp"
	"encoding/base64"
	"slices"
	"strings"
)

// The viewer's calendar list is in the order their settings give it: by sort
// key (bytewise, as fractional indexes compare), memberships without one
// after those with one, and then by calendar ID, which is the order of
// creation (IDs are time-ordered) and the order the list had before sort
// keys. A drag writes one sort key, between its new neighbours'.

// CompareListOrder orders two of a user's memberships as their list shows
// them.
func CompareListOrder(a, b *Membership) int {
	ka, kb := a.settings().SortKey, b.settings().SortKey
	return cmp.Or(cmp.Compare(boolRank(ka == ""), boolRank(kb == "")), strings.Compare(ka, kb),
		strings.Compare(a.CalendarID, b.CalendarID))
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// settings returns m's settings, the defaults where they were not read.
func (m *Membership) settings() Settings {
	if m.Settings == nil {
		return DefaultSettings()
	}
	return *m.Settings
}

// ListPage returns page p of a user's memberships all (at most a few hundred:
// the whole list is ordered in memory), in list order, leaving hidden ones
// out unless includeHidden. A cursor names a place in the order (a sort key
// and a calendar ID), not an item, so a page continues where the last one
// ended even when that membership has since moved, gone or been hidden.
// Errors: CodeInvalid (first, or a cursor that is not one of this list's).
func ListPage(all []*Membership, includeHidden bool, p Page) (*MembershipPage, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var after *Membership
	if p.After != "" {
		var err error
		if after, err = decodeListCursor(p.After); err != nil {
			return nil, err
		}
	}
	ms := slices.DeleteFunc(slices.Clone(all), func(m *Membership) bool {
		return (m.settings().Hidden && !includeHidden) || (after != nil && CompareListOrder(m, after) <= 0)
	})
	slices.SortStableFunc(ms, CompareListOrder)
	page := &MembershipPage{HasNextPage: len(ms) > p.First}
	ms = ms[:min(len(ms), p.First)]
	for _, m := range ms {
		page.Memberships = append(page.Memberships, m)
		page.Cursors = append(page.Cursors, ListCursor(m))
	}
	if n := len(page.Cursors); n > 0 {
		page.EndCursor = page.Cursors[n-1]
	}
	return page, nil
}

// ListCursor is the cursor of m's place in its user's list.
func ListCursor(m *Membership) string {
	return base64.RawURLEncoding.EncodeToString([]byte("L " + m.settings().SortKey + " " + m.CalendarID))
}

// decodeListCursor reads a ListCursor back into a membership at its place.
func decodeListCursor(cursor string) (*Membership, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := strings.Split(string(raw), " ")
	// Only compared in memory, never a key: any calendar ID text will do (a
	// leftover membership of a deleted calendar may hold none).
	if err != nil || len(parts) != 3 || parts[0] != "L" || ValidateSortKey("after", parts[1]) != nil {
		return nil, Invalidf("after", "after is not a cursor of this list")
	}
	return &Membership{CalendarID: parts[2], Settings: &Settings{SortKey: parts[1]}}, nil
}
