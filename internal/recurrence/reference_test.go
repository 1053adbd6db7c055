package recurrence_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSameAsRRuleJS compares expansions with rrule.js 2.8.1's, an
// independent implementation, for rules with their own times of day and
// sub-daily frequencies (series in UTC, each start an occurrence of its
// rule). SECONDLY rules, which Validate refuses, expand alike for series
// stored before that. testdata/rrulejs.json was written by testdata/rrulejs-gen.js:
//
//	npm install rrule@2.8.1 && node rrulejs-gen.js > rrulejs.json
func TestSameAsRRuleJS(t *testing.T) {
	b, err := os.ReadFile("testdata/rrulejs.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Start, Rule string
		Want        []string
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Rule, func(t *testing.T) {
			s := series(t, "UTC", c.Start[:15], c.Rule)
			if err := engine.Validate(s); err != nil && !strings.Contains(c.Rule, "SECONDLY") {
				t.Fatalf("validate: %v", err)
			}
			got, err := engine.Starts(s, s.Start, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), 5000)
			if err != nil {
				t.Fatal(err)
			}
			var g []string
			for _, o := range got {
				g = append(g, o.UTC().Format("2006-01-02T15:04:05Z"))
			}
			if !slices.Equal(g, c.Want) {
				t.Fatalf("got  %v\nwant %v (rrule.js)", g, c.Want)
			}
		})
	}
}

// TestCountOfTenThousand: COUNT goes up to 10,000, and such a series ends
// where it should.
func TestCountOfTenThousand(t *testing.T) {
	s := series(t, "UTC", "20260101T000000", "FREQ=DAILY;COUNT=10000")
	if err := engine.Validate(s); err != nil {
		t.Fatal(err)
	}
	last, ok := engine.Last(s)
	if want := s.Start.AddDate(0, 0, 9999); !ok || !last.Equal(want) {
		t.Fatalf("last %v, want %v", last, want)
	}
}
