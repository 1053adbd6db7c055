package calendar

import (
	"slices"
	"testing"
)

func TestValidReminders(t *testing.T) {
	cases := []struct {
		name string
		in   []Reminder
		want []Reminder
		bad  bool
	}{
		{"empty", nil, []Reminder{}, false},
		{"default method, sorted, unique", []Reminder{{10, ""}, {60, ReminderWebhook}, {10, ReminderInApp}},
			[]Reminder{{60, ReminderWebhook}, {10, ReminderInApp}}, false},
		{"negative", []Reminder{{-1, ReminderInApp}}, nil, true},
		{"too far", []Reminder{{MaxReminderMinutes + 1, ReminderInApp}}, nil, true},
		{"at the bound", []Reminder{{MaxReminderMinutes, ReminderInApp}}, []Reminder{{MaxReminderMinutes, ReminderInApp}}, false},
		{"bad method", []Reminder{{5, "SMS"}}, nil, true},
		{"too many", []Reminder{{1, ""}, {2, ""}, {3, ""}, {4, ""}, {5, ""}, {6, ""}}, nil, true},
	}
	for _, c := range cases {
		got, err := ValidReminders("reminders", c.in)
		if c.bad {
			if ErrorCode(err) != CodeInvalid {
				t.Errorf("%s: got %v, %v; want a validation error", c.name, got, err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) || len(got) > 0 && !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
