package calendar_test

import (
	"math"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestTextColor: black or white, whichever WCAG 2 contrast ratio is higher
// on the background, on a table of colors (luminances from the WCAG
// formula, computed apart from the code; the switch is at L = 0.179, between
// the greys #757575 and #767676).
func TestTextColor(t *testing.T) {
	for _, c := range []struct {
		bg, want  string
		luminance float64
	}{
		{"#000000", "#FFFFFF", 0},
		{"#FFFFFF", "#000000", 1},
		{"#ffffff", "#000000", 1},
		{"#FF0000", "#000000", 0.2126}, // red: 5.25:1 on black, 4.0:1 on white
		{"#00FF00", "#000000", 0.7152},
		{"#0000FF", "#FFFFFF", 0.0722},
		{"#3B82F6", "#000000", 0.2355}, // calgraph's default blue
		{"#808080", "#000000", 0.2159},
		{"#757575", "#FFFFFF", 0.1779}, // the last grey where white contrasts more (4.60:1 against 4.56:1)
		{"#767676", "#000000", 0.1812}, // the first where black does (4.62:1 against 4.54:1)
		{"#FFEB3B", "#000000", 0.8099},
		{"#1E3A8A", "#FFFFFF", 0.0514},
		{"#9C27B0", "#FFFFFF", 0.1165},
		{"not a color", "#FFFFFF", 0},
	} {
		l := calendar.RelativeLuminance(c.bg)
		if math.Abs(l-c.luminance) > 0.0005 {
			t.Errorf("RelativeLuminance(%s): got %.4f, want %.4f", c.bg, l, c.luminance)
		}
		if got := calendar.TextColor(c.bg); got != c.want {
			t.Errorf("TextColor(%s): got %s, want %s", c.bg, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestSettingsUpdate: omitted fields stay, null clears an override, each
// bad value is refused naming its field.
func TestSettingsUpdate(t *testing.T) {
	was := calendar.Settings{Color: "#112233", Name: "Old", Selected: true, SortKey: "a", DefaultReminders: []calendar.Reminder{{Minutes: 5, Method: calendar.ReminderInApp}}}
	got, err := calendar.SettingsUpdate{Name: calendar.Set(ptr("New")), Color: calendar.Set[*string](nil), Selected: calendar.Set(false)}.Apply(was)
	if err != nil {
		t.Fatal(err)
	}
	if got.Color != "" || got.Name != "New" || got.Selected || got.SortKey != "a" || len(got.DefaultReminders) != 1 {
		t.Errorf("got %+v", got)
	}
	if got, _ := (calendar.SettingsUpdate{DefaultReminders: calendar.Set([]calendar.Reminder{})}).Apply(was); got.DefaultReminders != nil {
		t.Errorf("no reminders: got %v, want none", got.DefaultReminders)
	}
	for _, c := range []struct {
		name  string
		u     calendar.SettingsUpdate
		field string
	}{
		{"short color", calendar.SettingsUpdate{Color: calendar.Set(ptr("#abc"))}, "color"},
		{"empty color", calendar.SettingsUpdate{Color: calendar.Set(ptr(""))}, "color"},
		{"empty name", calendar.SettingsUpdate{Name: calendar.Set(ptr(""))}, "name"},
		{"long name", calendar.SettingsUpdate{Name: calendar.Set(ptr(strings.Repeat("é", 201)))}, "name"},
		{"control in name", calendar.SettingsUpdate{Name: calendar.Set(ptr("a\x00b"))}, "name"},
		{"long sort key", calendar.SettingsUpdate{SortKey: calendar.Set(strings.Repeat("a", 129))}, "sortKey"},
		{"space in sort key", calendar.SettingsUpdate{SortKey: calendar.Set("a b")}, "sortKey"},
		{"accent in sort key", calendar.SettingsUpdate{SortKey: calendar.Set("é")}, "sortKey"},
		{"negative reminder", calendar.SettingsUpdate{DefaultReminders: calendar.Set([]calendar.Reminder{{Minutes: -1}})}, "defaultReminders"},
		{"too many reminders", calendar.SettingsUpdate{DefaultReminders: calendar.Set([]calendar.Reminder{{Minutes: 1}, {Minutes: 2}, {Minutes: 3}, {Minutes: 4}, {Minutes: 5}, {Minutes: 6}})}, "defaultReminders"},
		{"bad method", calendar.SettingsUpdate{DefaultReminders: calendar.Set([]calendar.Reminder{{Minutes: 1, Method: "SMS"}})}, "defaultReminders"},
	} {
		_, err := c.u.Apply(was)
		if e, ok := err.(*calendar.Error); !ok || e.Code != calendar.CodeInvalid || e.Field != c.field {
			t.Errorf("%s: got %v, want CodeInvalid on %s", c.name, err, c.field)
		}
	}
	if _, err := (calendar.SettingsUpdate{SortKey: calendar.Set(strings.Repeat("~", 128))}).Apply(was); err != nil {
		t.Errorf("a 128-character sort key: %v", err)
	}
}

// TestListPage: the list is by sort key (bytewise), those without one after,
// then by calendar ID; hidden ones only when asked; pages continue after
// their cursor's place even when that calendar moved.
func TestListPage(t *testing.T) {
	m := func(id, key string, hidden bool) *calendar.Membership {
		return &calendar.Membership{CalendarID: "00000000-0000-0000-0000-00000000000" + id,
			Settings: &calendar.Settings{SortKey: key, Hidden: hidden, Selected: true}}
	}
	all := []*calendar.Membership{m("1", "", false), m("2", "b", false), m("3", "a0", false), m("4", "", true), m("5", "a", false), m("6", "B", false)}
	ids := func(p *calendar.MembershipPage) string {
		var out []string
		for _, m := range p.Memberships {
			out = append(out, strings.TrimLeft(m.CalendarID[24:], "0"))
		}
		return strings.Join(out, " ")
	}
	p, err := calendar.ListPage(all, false, calendar.Page{First: 3})
	if err != nil {
		t.Fatal(err)
	}
	if ids(p) != "6 5 3" || !p.HasNextPage {
		t.Fatalf("first page: got %q (more %v), want \"6 5 3\" and more", ids(p), p.HasNextPage)
	}
	next, err := calendar.ListPage(all, false, calendar.Page{First: 3, After: p.EndCursor})
	if err != nil || ids(next) != "2 1" || next.HasNextPage {
		t.Fatalf("second page: got %q (more %v), %v; want \"2 1\", no more", ids(next), next.HasNextPage, err)
	}
	withHidden, _ := calendar.ListPage(all, true, calendar.Page{First: 10})
	if ids(withHidden) != "6 5 3 2 1 4" {
		t.Errorf("with hidden: got %q", ids(withHidden))
	}
	all[2].Settings.SortKey = "z" // calendar 3 dragged to the end after the first page was read
	if next, _ := calendar.ListPage(all, false, calendar.Page{First: 3, After: p.EndCursor}); ids(next) != "2 3 1" {
		t.Errorf("after a drag: got %q, want \"2 3 1\"", ids(next))
	}
	for _, bad := range []string{"nonsense", "TCBhMA" /* "L a0" */, "TCBhIGIgYw" /* "L a b c" */, p.EndCursor + "!"} {
		if _, err := calendar.ListPage(all, false, calendar.Page{First: 3, After: bad}); calendar.ErrorCode(err) != calendar.CodeInvalid {
			t.Errorf("cursor %q: got %v, want CodeInvalid", bad, err)
		}
	}
}
