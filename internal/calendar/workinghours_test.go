package calendar

import (
	"testing"
	"time"
)

// TestWorkingHoursNormalized: windows come out sorted, and dated days
// before yesterday in the hours' own zone are dropped (so the item does not
// grow with time), while yesterday, today and later stay, a day off too.
func TestWorkingHoursNormalized(t *testing.T) {
	d := func(s string) Date { x, _ := ParseDate("d", s); return x }
	h := WorkingHours{TimeZone: "Pacific/Auckland", Dated: map[Date][]TimeWindow{
		d("2026-11-25"): {{From: 600, To: 700}},
		d("2026-11-26"): {{From: 600, To: 700}},
		d("2026-11-27"): {},
		d("2026-12-24"): {{From: 780, To: 1020}, {From: 540, To: 720}},
	}}
	h.Weekly[time.Monday] = []TimeWindow{{From: 780, To: 1020}, {From: 540, To: 720}}
	// 2026-11-27 11:00 UTC is already the 28th in Auckland: yesterday is the 27th.
	got := h.Normalized(time.Date(2026, 11, 27, 11, 0, 0, 0, time.UTC))
	if len(got.Dated) != 2 || got.Dated[d("2026-11-27")] == nil || got.Dated[d("2026-12-24")][0].From != 540 {
		t.Errorf("dated days kept: %v", got.Dated)
	}
	if got.Weekly[time.Monday][0].From != 540 || h.Weekly[time.Monday][0].From != 780 {
		t.Errorf("Monday %v (and the original %v): want sorted, the original untouched", got.Weekly[time.Monday], h.Weekly[time.Monday])
	}
}

// TestWorkingHoursValidate: each bad value is BAD_USER_INPUT; touching
// windows and a window ending at midnight are fine.
func TestWorkingHoursValidate(t *testing.T) {
	good := func() WorkingHours {
		h := WorkingHours{TimeZone: "Europe/Paris"}
		h.Weekly[time.Monday] = []TimeWindow{{From: 540, To: 720}, {From: 720, To: 1440}}
		return h
	}
	if h := good(); h.Validate("workingHours") != nil {
		t.Fatalf("good hours refused: %v", h.Validate("workingHours"))
	}
	many := map[Date][]TimeWindow{}
	for i := range MaxDatedDays + 1 {
		many[Date{2027, 1, 1}.AddDays(i)] = nil
	}
	for name, change := range map[string]func(h *WorkingHours){
		"no zone":    func(h *WorkingHours) { h.TimeZone = "" },
		"not a zone": func(h *WorkingHours) { h.TimeZone = "Mars/Olympus" },
		"overlap": func(h *WorkingHours) {
			h.Weekly[time.Friday] = []TimeWindow{{From: 540, To: 700}, {From: 600, To: 800}}
		},
		"empty window":        func(h *WorkingHours) { h.Weekly[time.Friday] = []TimeWindow{{From: 540, To: 540}} },
		"past midnight":       func(h *WorkingHours) { h.Weekly[time.Friday] = []TimeWindow{{From: 1380, To: 1500}} },
		"negative":            func(h *WorkingHours) { h.Weekly[time.Friday] = []TimeWindow{{From: -60, To: 60}} },
		"too many windows":    func(h *WorkingHours) { h.Weekly[time.Friday] = make([]TimeWindow, MaxWindowsPerDay+1) },
		"too many dated days": func(h *WorkingHours) { h.Dated = many },
		"a bad dated day":     func(h *WorkingHours) { h.Dated = map[Date][]TimeWindow{{2027, 1, 1}: {{From: 600, To: 500}}} },
	} {
		h := good()
		change(&h)
		if err := h.Validate("workingHours"); ErrorCode(err) != CodeInvalid {
			t.Errorf("%s: got %v, want BAD_USER_INPUT", name, err)
		}
	}
}
