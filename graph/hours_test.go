package graph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

const hoursFields = `workingHours { timeZone days { day windows { start end } } exceptions { date windows { start end } } }`

// TestWorkingHours: a user has no hours until they set some; set, they read
// back as the seven days from Monday with their windows sorted and the
// dated exceptions in date order (a day off among them), a night shift
// ending at 24:00; another update replaces them whole; null removes them;
// and every bad value is BAD_USER_INPUT on workingHours and changes nothing
// (not even the user's version).
func TestWorkingHours(t *testing.T) {
	e := newEnv(t)
	tok := e.token("hours@example.com")
	d := e.must(tok, `{ viewer { preferences { `+hoursFields+` } } }`, nil)
	if got := get(d, "viewer.preferences.workingHours"); got != nil {
		t.Fatalf("before any: %v, want null", got)
	}
	next := time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)
	later := time.Now().UTC().AddDate(0, 0, 30).Format(time.DateOnly)
	set := `mutation($h: WorkingHoursInput, $v: Int!) { updatePreferences(input: {expectedVersion: $v, workingHours: $h}) {
		user { version } preferences { ` + hoursFields + ` } } }`
	hours := map[string]any{"timeZone": "Europe/Paris",
		"days": []any{
			map[string]any{"day": "TUESDAY", "windows": []any{map[string]any{"start": "13:00", "end": "17:30"}, map[string]any{"start": "09:00", "end": "12:00"}}},
			map[string]any{"day": "SUNDAY", "windows": []any{map[string]any{"start": "22:00", "end": "24:00"}}},
		},
		"exceptions": []any{
			map[string]any{"date": later, "windows": []any{map[string]any{"start": "10:00", "end": "11:00"}}},
			map[string]any{"date": next, "windows": []any{}},
		}}
	d = e.must(tok, set, map[string]any{"h": hours, "v": 1})
	got, _ := json.Marshal(get(d, "updatePreferences.preferences.workingHours"))
	want := `{"days":[{"day":"MONDAY","windows":[]},{"day":"TUESDAY","windows":[{"end":"12:00","start":"09:00"},{"end":"17:30","start":"13:00"}]},` +
		`{"day":"WEDNESDAY","windows":[]},{"day":"THURSDAY","windows":[]},{"day":"FRIDAY","windows":[]},{"day":"SATURDAY","windows":[]},` +
		`{"day":"SUNDAY","windows":[{"end":"24:00","start":"22:00"}]}],` +
		`"exceptions":[{"date":"` + next + `","windows":[]},{"date":"` + later + `","windows":[{"end":"11:00","start":"10:00"}]}],"timeZone":"Europe/Paris"}`
	if string(got) != want {
		t.Fatalf("set:\n got %s\nwant %s", got, want)
	}
	read, _ := json.Marshal(get(e.must(tok, `{ viewer { preferences { `+hoursFields+` } } }`, nil), "viewer.preferences.workingHours"))
	if string(read) != want {
		t.Fatalf("read again:\n got %s\nwant %s", read, want)
	}

	for _, bad := range []struct {
		name  string
		hours string
	}{
		{"a day twice", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[]},{"day":"MONDAY","windows":[]}]}`},
		{"overlapping windows", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[{"start":"09:00","end":"12:00"},{"start":"11:00","end":"13:00"}]}]}`},
		{"an empty window", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[{"start":"09:00","end":"09:00"}]}]}`},
		{"24:00 as a start", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[{"start":"24:00","end":"24:00"}]}]}`},
		{"25:00", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[{"start":"09:00","end":"25:00"}]}]}`},
		{"9:00", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[{"start":"9:00","end":"12:00"}]}]}`},
		{"a time with seconds", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[{"start":"09:00:00","end":"12:00"}]}]}`},
		{"not a zone", `{"timeZone":"Mars/Olympus","days":[]}`},
		{"the server's zone", `{"timeZone":"Local","days":[]}`},
		{"a date twice", `{"timeZone":"UTC","days":[],"exceptions":[{"date":"` + next + `","windows":[]},{"date":"` + next + `","windows":[]}]}`},
		{"too many windows", `{"timeZone":"UTC","days":[{"day":"MONDAY","windows":[` + strings.Repeat(`{"start":"01:00","end":"01:30"},`, 8) + `{"start":"02:00","end":"02:30"}]}]}`},
		{"too many dated days", `{"timeZone":"UTC","days":[],"exceptions":[` + manyDays(101) + `]}`},
	} {
		var h any
		if err := json.Unmarshal([]byte(bad.hours), &h); err != nil {
			t.Fatal(err)
		}
		r := e.do(tok, set, map[string]any{"h": h, "v": 2})
		if r.code() != "BAD_USER_INPUT" || !strings.HasPrefix(r.Errors[0].Extensions.Field, "workingHours") {
			t.Errorf("%s: %s, want BAD_USER_INPUT on workingHours", bad.name, r.Raw)
		}
	}
	d = e.must(tok, `{ viewer { user { version } preferences { `+hoursFields+` } } }`, nil)
	if v := get(d, "viewer.user.version"); fmt.Sprint(v) != "2" {
		t.Fatalf("the refusals changed the user: version %v", v)
	}
	if again, _ := json.Marshal(get(d, "viewer.preferences.workingHours")); string(again) != want {
		t.Fatalf("the refusals changed the hours: %s", again)
	}

	stale := e.do(tok, set, map[string]any{"h": nil, "v": 1})
	if stale.code() != "VERSION_CONFLICT" {
		t.Fatalf("a stale version: %s", stale.Raw)
	}
	d = e.must(tok, set, map[string]any{"h": map[string]any{"timeZone": "Asia/Tokyo", "days": []any{}}, "v": 2})
	if got, _ := json.Marshal(get(d, "updatePreferences.preferences.workingHours.exceptions")); string(got) != "[]" {
		t.Errorf("a new value replaces the old whole: exceptions %s", got)
	}
	d = e.must(tok, set, map[string]any{"h": nil, "v": 3})
	if got := get(d, "updatePreferences.preferences.workingHours"); got != nil {
		t.Errorf("null removes them: %v", got)
	}
	d = e.must(tok, `mutation { updatePreferences(input: {expectedVersion: 4, theme: DARK}) { preferences { `+hoursFields+` } } }`, nil)
	if got := get(d, "updatePreferences.preferences.workingHours"); got != nil {
		t.Errorf("another preference's change brought hours back: %v", got)
	}
}

// manyDays is n dated exceptions on consecutive days from tomorrow.
func manyDays(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, `{"date":"`+time.Now().UTC().AddDate(0, 0, i+1).Format(time.DateOnly)+`","windows":[]}`)
	}
	return strings.Join(parts, ",")
}
