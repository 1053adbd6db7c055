package ical_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/ical"
	"github.com/calgraph/calgraph/internal/recurrence"
)

var updateParsers = flag.Bool("update-parsers", false, "rewrite testdata/offrule-parsers.json with what the parsers read now (needs CALGRAPH_PARSERS_DIR, and python3 with dateutil)")

// offRuleCase is a series whose start its rule would not give, and the
// instant its feed is read until.
type offRuleCase struct {
	name   string
	series *calendar.Entry
	until  time.Time
}

// offRuleCases are the series of TestOffRuleStartsReadAlike.
func offRuleCases(t *testing.T) []offRuleCase {
	t.Helper()
	monday := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	timed := func(start time.Time, zone, rule string, exdates ...time.Time) *calendar.Entry {
		return &calendar.Entry{Kind: calendar.KindTimed, Start: start, End: start.Add(time.Hour), TimeZone: zone,
			Recurrence: &calendar.Recurrence{Rule: rule, ExDates: exdates}}
	}
	allDay := func(rule string) *calendar.Entry {
		d := calendar.DateOf(monday)
		return &calendar.Entry{Kind: calendar.KindAllDay, StartDate: d, EndDate: d.AddDays(1), Recurrence: &calendar.Recurrence{Rule: rule}}
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	parisMonday := time.Date(2026, 3, 23, 9, 0, 0, 0, paris).UTC() // DST begins on the 29th
	newYork, _ := time.LoadLocation(newYork)
	nyMonday := time.Date(2026, 1, 5, 9, 0, 0, 0, newYork).UTC()
	withDates := timed(nyMonday, "America/New_York", "FREQ=WEEKLY;BYDAY=TU,TH", nyMonday.AddDate(0, 0, 3))
	withDates.Recurrence.RDates = []time.Time{nyMonday.AddDate(0, 0, 5)}
	cases := []offRuleCase{
		{"weekly TU,TH begun on a Monday", timed(monday, "UTC", "FREQ=WEEKLY;BYDAY=TU,TH"), monday.AddDate(0, 1, 0)},
		{"with COUNT", timed(monday, "UTC", "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=5"), monday.AddDate(0, 2, 0)},
		{"with COUNT=1", timed(monday, "UTC", "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=1"), monday.AddDate(0, 2, 0)},
		{"with UNTIL", timed(monday, "UTC", "FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260122T090000Z"), monday.AddDate(0, 2, 0)},
		{"with COUNT and an EXDATE of the start", timed(monday, "UTC", "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4", monday), monday.AddDate(0, 2, 0)},
		{"with UNTIL and an EXDATE of the start", timed(monday, "UTC", "FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260115T090000Z", monday), monday.AddDate(0, 2, 0)},
		{"all-day", allDay("FREQ=WEEKLY;BYDAY=TU,TH"), monday.AddDate(0, 1, 0)},
		{"all-day with COUNT", allDay("FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4"), monday.AddDate(0, 2, 0)},
		{"all-day with UNTIL", allDay("FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260115"), monday.AddDate(0, 2, 0)},
		{"in Paris across DST, with COUNT", timed(parisMonday, "Europe/Paris", "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=6"), parisMonday.AddDate(0, 2, 0)},
		{"in New York with an RDATE and an EXDATE", withDates, nyMonday.AddDate(0, 1, 0)},
		{"monthly on the 15th begun on the 10th, with COUNT", timed(monday.AddDate(0, 0, 5), "UTC", "FREQ=MONTHLY;BYMONTHDAY=15;COUNT=3"), monday.AddDate(1, 0, 0)},
	}
	for i, c := range cases {
		s := c.series
		s.ID, s.CalendarID, s.ICalUID, s.Title = "s", "c", "s@calgraph.test", c.name
		if err := (recurrence.Engine{}).Validate(s); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cases[i].series = s
	}
	return cases
}

// offRuleRecord is what testdata/offrule-parsers.json holds of a case: its
// feed as Encode wrote it, and what each parser read in it.
type offRuleRecord struct {
	ICS     string              `json:"ics"`
	Parsers map[string][]string `json:"parsers"`
}

// TestOffRuleStartsReadAlike: a series whose start its rule would not give
// (a weekly TU,TH series begun on a Monday) has that start as its first
// occurrence in calgraph, counted in COUNT; its feed is written so that
// independent iCalendar readers find the same occurrences. ical.js and
// rrule.js (parsers.js) and python-dateutil (parsers.py) read each case's
// feed; testdata/offrule-parsers.json records what they read, so that a
// plain `go test` checks it against the API, and checks that the feeds are
// still written as they were when the parsers read them. With
// CALGRAPH_PARSERS_DIR naming a directory with node_modules/rrule and
// node_modules/ical.js (.ci/run installs them), the parsers read the feeds
// again now; -update-parsers rewrites the record.
func TestOffRuleStartsReadAlike(t *testing.T) {
	cases := offRuleCases(t)
	docs, want := map[string]string{}, map[string][]string{}
	for _, c := range cases {
		docs[c.name] = string(encode(t, ical.Feed{Calendar: &calendar.Calendar{ID: "c", Name: "Work", TimeZone: "UTC"},
			Entries: []*calendar.Entry{c.series}, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}))
		starts, err := (recurrence.Engine{}).Starts(c.series, c.series.EarliestStart(), c.until, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range starts {
			want[c.name] = append(want[c.name], formatStart(c.series, s))
		}
	}
	const record = "testdata/offrule-parsers.json"
	recorded := parsersReading(t, record, func(dir string) map[string]offRuleRecord { return readWithParsers(t, dir, cases, docs) })
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, ok := recorded[c.name]
			if !ok || rec.ICS != docs[c.name] {
				t.Fatalf("the feed is not written as when the parsers read it: run with CALGRAPH_PARSERS_DIR and -update-parsers\nnow:\n%s", docs[c.name])
			}
			if got := readBack(t, docs[c.name], c); !slices.Equal(got, want[c.name]) {
				t.Errorf("calgraph reads its own feed back as\n  %q\nwant\n  %q", got, want[c.name])
			}
			need := []string{"ical.js", "dateutil"}
			if c.series.Dated() || c.series.TimeZone == "UTC" {
				need = append(need, "rrule.js") // see parsers.js on zones
			}
			for _, p := range need {
				if !slices.Equal(rec.Parsers[p], want[c.name]) {
					t.Errorf("%s reads\n  %q\nwant (calgraph)\n  %q\nin\n%s", p, rec.Parsers[p], want[c.name], rec.ICS)
				}
			}
		})
	}
}

// readBack imports a feed of one series as importCalendar does and returns
// its occurrences until c.until.
func readBack(t *testing.T, doc string, c offRuleCase) []string {
	t.Helper()
	imp, err := ical.Decode(strings.NewReader(doc), "UTC")
	if err != nil || len(imp.Items) != 1 {
		t.Fatalf("decode: %v, %+v", err, imp)
	}
	e, err := imp.Items[0].Entry.Build(calendar.Defaults{TimeZone: "UTC", Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	eng := recurrence.Engine{}
	if err := eng.Validate(&e); err != nil {
		t.Fatal(err)
	}
	starts, err := eng.Starts(&e, e.EarliestStart(), c.until, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range starts {
		out = append(out, formatStart(&e, s))
	}
	return out
}

// TestOnRuleSeriesFeedsAsStored: a series whose start is an occurrence of its
// rule is written as it is stored, COUNT and all.
func TestOnRuleSeriesFeedsAsStored(t *testing.T) {
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC) // a Monday
	s := &calendar.Entry{ID: "s", CalendarID: "c", ICalUID: "s@calgraph.test", Title: "Mondays", Kind: calendar.KindTimed,
		Start: start, End: start.Add(time.Hour), TimeZone: "UTC", Recurrence: &calendar.Recurrence{Rule: "FREQ=WEEKLY;COUNT=3;BYDAY=MO"}}
	cal := parse(t, encode(t, ical.Feed{Calendar: &calendar.Calendar{ID: "c", Name: "Work", TimeZone: "UTC"}, Entries: []*calendar.Entry{s}, Now: start}))
	ev := children(cal, "VEVENT")[0]
	if value(ev, "RRULE") != "FREQ=WEEKLY;COUNT=3;BYDAY=MO" || value(ev, "RDATE") != "" {
		t.Fatalf("RRULE %q, RDATE %q; want the rule as stored and no RDATE", value(ev, "RRULE"), value(ev, "RDATE"))
	}
}

// formatStart formats an occurrence start as the parsers print it.
func formatStart(s *calendar.Entry, t time.Time) string {
	if s.Dated() {
		return calendar.DateOf(t.UTC()).String()
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// readWithParsers has parsers.js and parsers.py read the feeds.
func readWithParsers(t *testing.T, dir string, cases []offRuleCase, docs map[string]string) map[string]offRuleRecord {
	t.Helper()
	type input struct {
		Name  string `json:"name"`
		ICS   string `json:"ics"`
		Until string `json:"until"`
	}
	var in []input
	for _, c := range cases {
		in = append(in, input{c.name, docs[c.name], c.until.UTC().Format("2006-01-02T15:04:05Z")})
	}
	stdin, _ := json.Marshal(in)
	out := map[string]offRuleRecord{}
	for name, doc := range docs {
		out[name] = offRuleRecord{ICS: doc, Parsers: map[string][]string{}}
	}
	run := func(cmd *exec.Cmd) {
		t.Helper()
		cmd.Stdin, cmd.Stderr = bytes.NewReader(stdin), os.Stderr
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
		}
		var read map[string]map[string][]string
		if err := json.Unmarshal(b, &read); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, b)
		}
		for name, parsers := range read {
			maps.Copy(out[name].Parsers, parsers)
		}
	}
	run(nodeParsers(dir))
	python, ok := pythonWith(t, "dateutil", "python3-dateutil")
	if !ok {
		return mergeRecorded(t, out)
	}
	run(exec.Command(python, "testdata/parsers.py"))
	return out
}

// mergeRecorded fills in dateutil's reading from the record, for a machine
// without it.
func mergeRecorded(t *testing.T, out map[string]offRuleRecord) map[string]offRuleRecord {
	t.Helper()
	b, err := os.ReadFile("testdata/offrule-parsers.json")
	if err != nil {
		t.Fatal(err)
	}
	var recorded map[string]offRuleRecord
	if err := json.Unmarshal(b, &recorded); err != nil {
		t.Fatal(err)
	}
	for name, rec := range out {
		if old, ok := recorded[name]; ok && old.ICS == rec.ICS {
			rec.Parsers["dateutil"] = old.Parsers["dateutil"]
		}
	}
	return out
}

// parsersReading is what the iCalendar readers (testdata/parsers.js and
// parsers.py) read: read with them when CALGRAPH_PARSERS_DIR names their
// directory (.ci/run sets it), and kept in record with -update-parsers;
// else as record holds it, so that a plain go test still checks calgraph's
// side against their last reading.
func parsersReading[T any](t *testing.T, record string, read func(dir string) T) T {
	t.Helper()
	var v T
	if dir := os.Getenv("CALGRAPH_PARSERS_DIR"); dir != "" {
		v = read(dir)
		if *updateParsers {
			b, _ := json.MarshalIndent(v, "", " ")
			if err := os.WriteFile(record, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return v
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// nodeParsers is the command that runs testdata/parsers.js with args, with
// the node modules .ci/run installed in dir.
func nodeParsers(dir string, args ...string) *exec.Cmd {
	node := exec.Command("node", append([]string{"testdata/parsers.js"}, args...)...)
	node.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	return node
}

// pythonWith returns the python that .ci/run names (CALGRAPH_PYTHON, else
// python3) and whether it has module. Without it the python reader's
// reading is checked from the record only, and -update-parsers, which
// would lose that reading, fails (install the Debian package pkg).
func pythonWith(t *testing.T, module, pkg string) (string, bool) {
	t.Helper()
	python := cmp.Or(os.Getenv("CALGRAPH_PYTHON"), "python3")
	if exec.Command(python, "-c", "import "+module).Run() == nil {
		return python, true
	}
	if *updateParsers {
		t.Fatalf("-update-parsers needs python3 with %s (apt-get install %s)", module, pkg)
	}
	t.Logf("%s has no %s: its reading is checked from the record only", python, module)
	return python, false
}
