package graph_test

import (
	"testing"
)

func TestDeleteAccountThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	tok := e.token("leaving@example.com")
	d := e.must(tok, `{ viewer { user { id } } }`, nil)
	before := str(d, "viewer.user.id")
	cal := str(e.must(tok, `mutation { createCalendar(input: {name: "Mine"}) { calendar { id } } }`, nil), "createCalendar.calendar.id")
	del := `mutation($e: String!) { deleteAccount(input: {confirmEmail: $e}) { deletedUserId deletedCalendarIds } }`
	if r := e.do(tok, del, map[string]any{"e": "wrong@example.com"}); r.code() != "BAD_USER_INPUT" || r.Errors[0].Extensions.Field != "confirmEmail" {
		t.Fatalf("an unconfirmed deletion: %s", r.Raw)
	}
	keyed := `mutation($e: String!) { deleteAccount(input: {confirmEmail: $e, idempotencyKey: "bye"}) { deletedUserId deletedCalendarIds } }`
	d = e.must(tok, keyed, map[string]any{"e": "leaving@example.com"})
	if str(d, "deleteAccount.deletedUserId") != before || len(get(d, "deleteAccount.deletedCalendarIds").([]any)) != 1 ||
		str(d, "deleteAccount.deletedCalendarIds.0") != cal {
		t.Fatalf("deleted %v", d)
	}
	// The same token signs in a new account at once: the old one is
	// forgotten. A retry of the deletion answers as the first time and does
	// not delete the new account.
	whoAmI := `{ viewer { user { id } calendars { edges { node { role } } } } }`
	d = e.must(tok, whoAmI, nil)
	renewed := str(d, "viewer.user.id")
	if renewed == before || len(get(d, "viewer.calendars.edges").([]any)) != 0 {
		t.Fatalf("after deleting the account: %v", d)
	}
	again := e.must(tok, keyed, map[string]any{"e": "leaving@example.com"})
	if str(again, "deleteAccount.deletedUserId") != before {
		t.Fatalf("the retried deletion: %v", again)
	}
	if d = e.must(tok, whoAmI, nil); str(d, "viewer.user.id") != renewed {
		t.Fatalf("the retried deletion deleted the new account: %v, was %s", d, renewed)
	}
}
