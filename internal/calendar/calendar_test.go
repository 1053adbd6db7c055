package calendar_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calgraph/calgraph/internal/calendar"
)

func TestNormalizeEmail(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ada@Example.COM", "ada@example.com"},
		{"  bob@example.com ", "bob@example.com"},
		{"o'neil+tag@sub.example.org", "o'neil+tag@sub.example.org"},
		{"", ""},
		{"no-at-sign", ""},
		{"Ada <ada@example.com>", ""},
		{"a@b@c", ""},
		{strings.Repeat("a", 250) + "@x.io", ""},
	}
	for _, tt := range tests {
		got, err := calendar.NormalizeEmail(tt.in)
		if got != tt.want || (tt.want == "") != (err != nil) {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if err != nil && calendar.ErrorField(err) != "email" {
			t.Errorf("NormalizeEmail(%q): got field %q, want email", tt.in, calendar.ErrorField(err))
		}
	}
}

func TestValidators(t *testing.T) {
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"name", calendar.ValidateName("name", "Team ☕"), true},
		{"empty name", calendar.ValidateName("name", ""), false},
		{"control character", calendar.ValidateName("name", "a\x00b"), false},
		{"200 runes", calendar.ValidateName("name", strings.Repeat("é", 200)), true},
		{"201 runes", calendar.ValidateName("name", strings.Repeat("é", 201)), false},
		{"invalid UTF-8", calendar.ValidateName("name", "\xff"), false},
		{"color", calendar.ValidateColor("color", "#a1B2c3"), true},
		{"short color", calendar.ValidateColor("color", "#abc"), false},
		{"named color", calendar.ValidateColor("color", "blue"), false},
		{"zone", calendar.ValidateTimeZone("tz", "America/Argentina/Buenos_Aires"), true},
		{"UTC", calendar.ValidateTimeZone("tz", "UTC"), true},
		{"Local", calendar.ValidateTimeZone("tz", "Local"), false},
		{"unknown zone", calendar.ValidateTimeZone("tz", "Europe/Atlantis"), false},
		{"path in zone", calendar.ValidateTimeZone("tz", "../../etc/passwd"), false},
		{"uuid", calendar.ValidateID("id", "01a1fcc8-75fa-782f-9d9d-f5de6d3755c6"), true},
		{"uuid in upper case", calendar.ValidateID("id", "01A1FCC8-75FA-782F-9D9D-F5DE6D3755C6"), false},
		{"key injection", calendar.ValidateID("id", "01a1fcc8-75fa-782f-9d9d-f5de6d375#MB"), false},
		{"role", calendar.ValidateRole("role", calendar.RoleWriter), true},
		{"bad role", calendar.ValidateRole("role", "ADMIN"), false},
		{"page", calendar.Page{First: 100}.Validate(), true},
		{"empty page", calendar.Page{First: 0}.Validate(), false},
	}
	for _, tt := range tests {
		if (tt.err == nil) != tt.ok {
			t.Errorf("%s: got %v, want ok=%v", tt.name, tt.err, tt.ok)
		}
		if tt.err != nil && calendar.ErrorCode(tt.err) != calendar.CodeInvalid {
			t.Errorf("%s: got code %s, want invalid", tt.name, calendar.ErrorCode(tt.err))
		}
	}
}

func TestRolePermissions(t *testing.T) {
	want := map[calendar.Role][3]bool{
		calendar.RoleOwner:  {true, true, true},
		calendar.RoleWriter: {true, true, false},
		calendar.RoleReader: {true, false, false},
		"":                  {false, false, false},
	}
	for role, can := range want {
		for i, a := range []calendar.Action{calendar.ActionRead, calendar.ActionWriteEntries, calendar.ActionManage} {
			if got := role.Can(a); got != can[i] {
				t.Errorf("%q.Can(%s) = %v, want %v", role, a, got, can[i])
			}
		}
	}
	if got := calendar.RolesAllowed(calendar.ActionManage); !cmp.Equal(got, []calendar.Role{calendar.RoleOwner}) {
		t.Errorf("RolesAllowed(manage) = %v, want [OWNER]", got)
	}
}

func TestCalendarBuildAndApply(t *testing.T) {
	c, err := calendar.NewCalendar{Name: "  Home  "}.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := calendar.Calendar{Name: "Home", Color: calendar.DefaultColor, TimeZone: calendar.DefaultTimeZone}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("Build (-want +got):\n%s", diff)
	}
	tests := []struct {
		name  string
		upd   calendar.CalendarUpdate
		want  calendar.Calendar
		field string
	}{
		{"nothing", calendar.CalendarUpdate{}, want, ""},
		{"description then clear", calendar.CalendarUpdate{Description: calendar.Set("")}, want, ""},
		{"rename", calendar.CalendarUpdate{Name: calendar.Set("Away")},
			calendar.Calendar{Name: "Away", Color: calendar.DefaultColor, TimeZone: "UTC"}, ""},
		{"long description", calendar.CalendarUpdate{Description: calendar.Set(strings.Repeat("d", 2001))}, calendar.Calendar{}, "description"},
		{"bad zone", calendar.CalendarUpdate{TimeZone: calendar.Set("")}, calendar.Calendar{}, "timeZone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.upd.Apply(c)
			if tt.field != "" {
				if calendar.ErrorField(err) != tt.field {
					t.Fatalf("got %v, want an error about %s", err, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("Apply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSignUpNormalize(t *testing.T) {
	tests := []struct {
		in       calendar.SignUp
		wantName string
		wantErr  bool
	}{
		{calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "s"}, Email: "Ada@X.org", Name: "Ada"}, "Ada", false},
		{calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "s"}, Email: "ada@x.org"}, "ada", false},
		{calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "s"}, Email: "ada@x.org", Name: "\x00\x01 "}, "ada", false},
		{calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "s"}, Email: "ada@x.org", Name: strings.Repeat("n", 300)}, strings.Repeat("n", 200), false},
		{calendar.SignUp{Identity: calendar.Identity{Provider: "p"}, Email: "ada@x.org"}, "", true},
		{calendar.SignUp{Identity: calendar.Identity{Provider: "p", Subject: "s"}}, "", true},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got, err := tt.in.Normalize()
			if tt.wantErr {
				if calendar.ErrorCode(err) != calendar.CodeUnauthenticated {
					t.Fatalf("got %v, want an unauthenticated error", err)
				}
				return
			}
			if err != nil || got.Name != tt.wantName {
				t.Fatalf("got %q, %v; want name %q", got.Name, err, tt.wantName)
			}
		})
	}
}

func TestErrorHelpers(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", calendar.Invalidf("color", "bad color %q", "x"))
	if calendar.ErrorCode(err) != calendar.CodeInvalid || calendar.ErrorField(err) != "color" || calendar.ErrorMessage(err) != `bad color "x"` {
		t.Fatalf("got %s %q %q", calendar.ErrorCode(err), calendar.ErrorField(err), calendar.ErrorMessage(err))
	}
	plain := errors.New("AccessDeniedException: arn:aws:dynamodb:table/secret")
	if calendar.ErrorCode(plain) != calendar.CodeInternal || strings.Contains(calendar.ErrorMessage(plain), "secret") {
		t.Fatalf("a non-domain error must be internal with a generic message, got %q", calendar.ErrorMessage(plain))
	}
}
