package dynamo_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"
	"testing"

	"github.com/calgraph/calgraph/internal/calendar"
)

func TestMembershipWritesByRole(t *testing.T) {
	ops := []struct {
		name      string
		ownerWant calendar.Code
		do        func(f *fixture, r roles, ctx context.Context) error
	}{
		{"add member", -1, func(f *fixture, r roles, ctx context.Context) error {
			_, _, err := f.store.AddMember(ctx, r.cal.ID, "newcomer@example.com", calendar.RoleReader)
			return err
		}},
		{"change role", -1, func(f *fixture, r roles, ctx context.Context) error {
			_, _, err := f.store.ChangeRole(ctx, r.readerM.Key(), calendar.RoleWriter, r.readerM.Version)
			return err
		}},
		{"remove member", -1, func(f *fixture, r roles, ctx context.Context) error {
			return f.store.RemoveMember(ctx, r.readerM.Key(), r.readerM.Version)
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.roles()
			f.user("newcomer@example.com")
			for _, a := range r.actors(op.ownerWant) {
				t.Run(a.name, func(t *testing.T) {
					err := op.do(f, r, a.ctx)
					if a.want >= 0 {
						wantCode(t, err, a.want)
					} else if err != nil {
						t.Fatalf("got %v, want success", err)
					}
				})
			}
		})
	}
}

func TestAddMemberInput(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	tests := []struct {
		name  string
		email string
		role  calendar.Role
		want  calendar.Code
	}{
		{"unknown email", "nobody@example.com", calendar.RoleReader, calendar.CodeNotFound},
		{"bad email", "nobody", calendar.RoleReader, calendar.CodeInvalid},
		{"bad role", "outsider@example.com", "ADMIN", calendar.CodeInvalid},
		{"already a member", "writer@example.com", calendar.RoleReader, calendar.CodeAlreadyExists},
		{"the owner themself", "OWNER@example.com", calendar.RoleReader, calendar.CodeAlreadyExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := f.store.AddMember(r.owner, r.cal.ID, tt.email, tt.role)
			wantCode(t, err, tt.want)
		})
	}
	if got := f.countEntities()["MEMBERSHIP"]; got != 3 {
		t.Errorf("got %d memberships, want the 3 the calendar started with", got)
	}
}

func TestLastOwner(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	_, err := f.store.LeaveCalendar(r.owner, r.cal.ID, r.ownerM.Version)
	wantCode(t, err, calendar.CodeLastOwner)
	_, _, err = f.store.ChangeRole(r.owner, r.ownerM.Key(), calendar.RoleReader, r.ownerM.Version)
	wantCode(t, err, calendar.CodeLastOwner)
	wantCode(t, f.store.RemoveMember(r.owner, r.ownerM.Key(), r.ownerM.Version), calendar.CodeLastOwner)

	promoted, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleOwner, r.writerM.Version)
	if err != nil {
		t.Fatalf("promote writer: %v", err)
	}
	if _, err := f.store.LeaveCalendar(r.owner, r.cal.ID, r.ownerM.Version); err != nil {
		t.Fatalf("owner leaves with another owner left: %v", err)
	}
	wantCode(t, f.store.RemoveMember(r.writer, promoted.Key(), promoted.Version), calendar.CodeLastOwner)
	_, err = f.store.LeaveCalendar(r.reader, r.cal.ID, 9)
	wantCode(t, err, calendar.CodeVersionConflict)
	if _, err := f.store.LeaveCalendar(r.reader, r.cal.ID, r.readerM.Version); err != nil {
		t.Fatalf("reader leaves: %v", err)
	}
	_, err = f.store.LeaveCalendar(r.reader, r.cal.ID, r.readerM.Version)
	wantCode(t, err, calendar.CodeNotFound)
}

func TestConcurrentDemotionsKeepAnOwner(t *testing.T) {
	f := newFixture(t)
	r := f.roles()
	second, _, err := f.store.ChangeRole(r.owner, r.writerM.Key(), calendar.RoleOwner, r.writerM.Version)
	if err != nil {
		t.Fatal(err)
	}
	// Each owner demotes the other at the same time: one of them must fail.
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() { _, _, errs[0] = f.store.ChangeRole(r.owner, second.Key(), calendar.RoleReader, second.Version) })
	wg.Go(func() {
		_, _, errs[1] = f.store.ChangeRole(r.writer, r.ownerM.Key(), calendar.RoleReader, r.ownerM.Version)
	})
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch calendar.ErrorCode(err) {
		case calendar.CodeLastOwner, calendar.CodeNotFound, calendar.CodeForbidden:
		default:
			if err != nil {
				t.Errorf("unexpected error %v", err)
			}
		}
		if err == nil {
			ok++
		}
	}
	if ok != 1 {
		t.Fatalf("got %d successful demotions (errors %v), want exactly 1", ok, errs)
	}
	owners := 0
	page, err := f.store.MembershipsOfCalendar(r.reader, calendar.ReadScope{}, &calendar.Calendar{ID: r.cal.ID}, calendar.Page{First: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Memberships {
		if m.Role == calendar.RoleOwner {
			owners++
		}
	}
	if owners != 1 {
		t.Fatalf("got %d owners, want 1", owners)
	}
}

func TestMembershipPages(t *testing.T) {
	f := newFixture(t)
	ada := f.user("ada@example.com")
	bob := f.user("bob@example.com")
	want := map[string]bool{}
	for i := range 25 {
		want[f.calendarOf(ada, fmt.Sprint("cal ", i)).ID] = true
	}
	f.calendarOf(bob, "bob's")
	var got []string
	page := calendar.Page{First: 10}
	for pages := 1; ; pages++ {
		res, err := f.store.MembershipsOfUser(ada, viewer(t, ada), page)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, m := range res.Memberships {
			got = append(got, m.CalendarID)
		}
		if !res.HasNextPage {
			if pages != 3 {
				t.Errorf("got %d pages, want 3", pages)
			}
			break
		}
		page.After = res.Cursors[len(res.Cursors)-1]
	}
	if len(got) != 25 {
		t.Fatalf("got %d calendars, want 25", len(got))
	}
	for i, id := range got {
		if !want[id] || (i > 0 && got[i-1] >= id) {
			t.Fatalf("calendar %d %s: unknown or out of order", i, id)
		}
	}

	first, err := f.store.MembershipsOfUser(ada, viewer(t, ada), calendar.Page{First: 1})
	if err != nil {
		t.Fatal(err)
	}
	cursor := first.Cursors[0]
	bad := []struct{ name, after string }{
		{"garbage", "!!!"},
		{"not JSON", base64.RawURLEncoding.EncodeToString([]byte("nope"))},
		{"empty object", base64.RawURLEncoding.EncodeToString([]byte("{}"))},
		{"another user's partition", cursor},
		{"forged table key", base64.RawURLEncoding.EncodeToString([]byte(
			`{"GSI1PK":"USER#` + viewer(t, ada) + `","GSI1SK":"CAL#x","PK":"CAL#y","SK":"MEMBER#z"}`))},
		{"too long", string(make([]byte, 5000))},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			who := viewer(t, ada)
			if b.name == "another user's partition" {
				who = viewer(t, bob)
			}
			_, err := f.store.MembershipsOfUser(ada, who, calendar.Page{First: 5, After: b.after})
			wantCode(t, err, calendar.CodeInvalid)
		})
	}
	for _, n := range []int{0, -1, 101} {
		_, err := f.store.MembershipsOfUser(ada, viewer(t, ada), calendar.Page{First: n})
		wantCode(t, err, calendar.CodeInvalid)
	}
}
