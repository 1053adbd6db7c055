package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Firing. A fire item that falls due is checked against what is now (the
// occurrence still starts when it was armed for, is not cancelled, the user
// still reads it in full and still has that reminder on it), and then one
// transaction writes the user's alert, on condition that it does not exist
// (its key is the reminder's identity: a reminder fires once, whatever
// arms it again or however many instances try), a record of it in the
// user's log (how the `reminders` subscription and the user's other
// devices hear of it), and deletes the fire item, on condition that its
// claim still holds its lease. Snoozing and dismissing change the alert
// and record it in the log the same way.

// alertRetention is how long an alert is kept after it fell due (DynamoDB's
// TTL, expiresAt): longer than calendar.ArmHorizon, so that arming again can
// always find a reminder it already fired.
const alertRetention = calendar.ArmHorizon + 7*24*time.Hour

// alertRecord is a user's alert.
type alertRecord struct {
	PK            string `dynamodbav:"PK"`
	SK            string `dynamodbav:"SK"`
	EntityType    string `dynamodbav:"entityType"`
	Start         string `dynamodbav:"start"`
	FiredAt       string `dynamodbav:"firedAt"`
	State         string `dynamodbav:"state"`
	SnoozedUntil  string `dynamodbav:"snoozedUntil,omitempty"`
	Fired         int    `dynamodbav:"fired"`
	Version       int    `dynamodbav:"version"`
	ExpiresAt     int64  `dynamodbav:"expiresAt"`
	OriginalStart string `dynamodbav:"-"` // in the key
}

// alert returns the domain alert a record of userID holds.
func (r alertRecord) alert(userID string) (*calendar.Alert, error) {
	id, err := calendar.ParseAlertID("id", r.SK[len(prefixAlert):])
	if err != nil {
		return nil, fmt.Errorf("alert %s/%s: %w", r.PK, r.SK, err)
	}
	a := &calendar.Alert{ID: id, UserID: userID, CalendarID: id.CalendarID, EntryID: id.EntryID,
		OriginalStart: id.OriginalStart, Reminder: id.Reminder, DueAt: id.DueAt,
		State: calendar.AlertState(r.State), Fired: r.Fired, Version: r.Version}
	for _, f := range []struct {
		raw string
		to  *time.Time
	}{{r.Start, &a.Start}, {r.FiredAt, &a.FiredAt}, {r.SnoozedUntil, &a.SnoozedUntil}} {
		if f.raw == "" {
			continue
		}
		if *f.to, err = time.Parse(time.RFC3339Nano, f.raw); err != nil {
			return nil, fmt.Errorf("alert %s/%s: %w", r.PK, r.SK, err)
		}
	}
	return a, nil
}

// fire does a fire item.
func (s *Store) fire(ctx context.Context, d dueRecord, now time.Time) error {
	id, err := calendar.ParseAlertID("alert", d.Alert)
	if err != nil {
		return err
	}
	occ, err := s.stillDue(ctx, d, id)
	if err != nil || occ == nil {
		if err == nil {
			err = s.finishDue(ctx, d)
		}
		return err
	}
	k := alertKey(d.UserID, id)
	rec := alertRecord{PK: k.PK, SK: k.SK, EntityType: entityAlert, Start: d.Start, FiredAt: formatTime(now),
		State: string(calendar.AlertFired), Fired: 1, Version: 1, ExpiresAt: id.DueAt.Add(alertRetention).Unix()}
	w := newWrite()
	w.Put(k, rec, notExists(), func(item) error { return errAlreadyFired })
	w.Delete(itemKey{PK: d.PK, SK: d.SK}, leaseHeld(d.LeaseBy), func(item) error { return errDueLeaseLost })
	w.log(changeRef{userPartition(d.UserID), changedAlert + id.String()})
	a, err := rec.alert(d.UserID)
	if err != nil {
		return err
	}
	hook, err := s.webhookOfAlert(a, occ, now)
	if err != nil {
		return err
	}
	w.Add(hook...)
	switch err := s.commit(ctx, w); {
	case errors.Is(err, errAlreadyFired):
		return s.finishDue(ctx, d)
	case errors.Is(err, errDueLeaseLost):
		return nil
	default:
		return err
	}
}

// errAlreadyFired: the alert a fire item makes exists: the reminder fired.
var errAlreadyFired = errors.New("the reminder fired already")

// stillDue returns the occurrence a fire item's reminder is of, when it is
// still due as armed (nil when not).
func (s *Store) stillDue(ctx context.Context, d dueRecord, id calendar.AlertID) (*calendar.Entry, error) {
	cal, candidates, err := s.readRoot(ctx, d.CalendarID, d.EntryID)
	if err != nil || cal == nil {
		return nil, err
	}
	occ := candidates[0]
	if occ.IsSeries() {
		series := &calendar.Series{Master: occ, Exceptions: candidates[1:]}
		var ok bool
		if occ, ok = series.Occurrence(s.recur, id.OriginalStart); !ok {
			return nil, nil
		}
	} else if !id.OriginalStart.IsZero() {
		return nil, nil
	}
	loc, err := calendar.LoadLocation(cal.TimeZone)
	if err != nil {
		return nil, err
	}
	start, ok := calendar.ReminderStart(occ, loc)
	if !ok || formatTime(start) != d.Start {
		return nil, nil
	}
	if reads, err := s.readsInFull(ctx, d.UserID, occ); err != nil || !reads {
		return nil, err
	}
	people, err := s.reminderPeople(ctx, d.CalendarID, map[string]*calendar.Entry{d.EntryID: candidates[0]}, d.UserID)
	if err != nil {
		return nil, err
	}
	if at := people[d.UserID]; at == nil || !slices.Contains(at(d.EntryID, id.OriginalStart), id.Reminder) {
		return nil, nil
	}
	return occ, nil
}

// readsInFull reports whether userID reads occurrence occ with its
// details: a member who reads its calendar, or someone invited to it, and
// for a private entry one who sees its details (calendar.Entry.SeesDetails).
func (s *Store) readsInFull(ctx context.Context, userID string, occ *calendar.Entry) (bool, error) {
	root := occ.ID
	if occ.SeriesID != "" {
		root = occ.SeriesID
	}
	mk, ak := membershipKey(occ.CalendarID, userID), attendeeKey(occ.CalendarID, root, attendeeWho(userID, ""))
	found, err := s.batchGet(ctx, []itemKey{mk, ak})
	if err != nil {
		return false, err
	}
	role := calendar.Role("")
	if it := found[mk]; it != nil {
		m, err := decodeMembershipRecord(it)
		if err != nil {
			return false, err
		}
		role = m.membership().Role
	}
	invited := found[ak] != nil
	return (role.Can(calendar.ActionRead) || invited) && occ.SeesDetails(userID, role, invited), nil
}

// snoozeRanOut does a snooze item: the alert fires again, unless it was
// dismissed or snoozed to another time meanwhile.
func (s *Store) snoozeRanOut(ctx context.Context, d dueRecord, now time.Time) error {
	id, err := calendar.ParseAlertID("alert", d.Alert)
	if err != nil {
		return err
	}
	at, err := d.at()
	if err != nil {
		return err
	}
	upd := expression.Set(expression.Name("state"), expression.Value(string(calendar.AlertFired))).
		Set(expression.Name("firedAt"), expression.Value(formatTime(now))).
		Add(expression.Name("fired"), expression.Value(1)).
		Add(expression.Name("version"), expression.Value(1)).
		Remove(expression.Name("snoozedUntil"))
	cond := expression.Name("state").Equal(expression.Value(string(calendar.AlertSnoozed))).
		And(expression.Name("snoozedUntil").Equal(expression.Value(formatTime(at))))
	w := newWrite()
	w.Update(alertKey(d.UserID, id), upd, cond, func(item) error { return errAlreadyFired })
	w.Delete(itemKey{PK: d.PK, SK: d.SK}, leaseHeld(d.LeaseBy), func(item) error { return errDueLeaseLost })
	w.log(changeRef{userPartition(d.UserID), changedAlert + id.String()})
	switch err := s.commit(ctx, w); {
	case errors.Is(err, errAlreadyFired):
		return s.finishDue(ctx, d)
	case errors.Is(err, errDueLeaseLost):
		return nil
	default:
		return err
	}
}

// Alert implements calendar.AlertService.
func (s *Store) Alert(ctx context.Context, idText string) (*calendar.Alert, error) {
	_, a, err := s.ownAlert(ctx, idText)
	return a, err
}

// ownAlert reads the viewer's alert of ID idText, strongly, and returns
// the viewer too. Errors: CodeUnauthenticated, CodeInvalid (a malformed
// ID), CodeNotFound (none of the viewer's: another user's is not).
func (s *Store) ownAlert(ctx context.Context, idText string) (string, *calendar.Alert, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return "", nil, err
	}
	id, err := calendar.ParseAlertID("id", idText)
	if err != nil {
		return "", nil, err
	}
	it, found, err := s.getItem(ctx, alertKey(viewer, id))
	if err != nil {
		return "", nil, err
	}
	if !found {
		return "", nil, calendar.Errorf(calendar.CodeNotFound, "reminder not found")
	}
	a, err := decodeAlert(it, viewer)
	return viewer, a, err
}

// decodeAlert decodes an alert item of userID.
func decodeAlert(it item, userID string) (*calendar.Alert, error) {
	r, err := unmarshal[alertRecord](it)
	if err != nil {
		return nil, err
	}
	return r.alert(userID)
}

// SnoozeAlert implements calendar.AlertService.
func (s *Store) SnoozeAlert(ctx context.Context, idText string, minutes *int, until *time.Time) (*calendar.Alert, error) {
	to, err := calendar.SnoozeUntil(s.timestamp(), minutes, until)
	if err != nil {
		return nil, err
	}
	viewer, a, err := s.ownAlert(ctx, idText)
	if err != nil {
		return nil, err
	}
	id := a.ID
	if a.State == calendar.AlertDismissed {
		return nil, calendar.Invalidf("id", "this reminder was dismissed: it cannot be snoozed")
	}
	w := newWrite()
	w.Idempotent(ctx)
	upd := expression.Set(expression.Name("state"), expression.Value(string(calendar.AlertSnoozed))).
		Set(expression.Name("snoozedUntil"), expression.Value(formatTime(to))).
		Add(expression.Name("version"), expression.Value(1))
	w.Update(alertKey(viewer, id), upd, versionIs(a.Version), alertChanged)
	d := newDue(to, dueRecord{Kind: dueSnooze, UserID: viewer, CalendarID: id.CalendarID, EntryID: id.EntryID, Alert: id.String()})
	w.Put(itemKey{PK: d.PK, SK: d.SK}, d, noCondition(), nil)
	if a.State == calendar.AlertSnoozed && !a.SnoozedUntil.Equal(to) {
		w.Delete(dueKey(a.SnoozedUntil, d.ref()), noCondition(), nil)
	}
	w.log(changeRef{userPartition(viewer), changedAlert + id.String()})
	if err := s.commit(ctx, w); err != nil {
		return nil, err
	}
	a.State, a.SnoozedUntil, a.Version = calendar.AlertSnoozed, to, a.Version+1
	return a, nil
}

// DismissAlert implements calendar.AlertService.
func (s *Store) DismissAlert(ctx context.Context, idText string) (*calendar.Alert, error) {
	viewer, a, err := s.ownAlert(ctx, idText)
	if err != nil || a.State == calendar.AlertDismissed {
		return a, err
	}
	id := a.ID
	w := newWrite()
	w.Idempotent(ctx)
	upd := expression.Set(expression.Name("state"), expression.Value(string(calendar.AlertDismissed))).
		Add(expression.Name("version"), expression.Value(1)).
		Remove(expression.Name("snoozedUntil"))
	w.Update(alertKey(viewer, id), upd, versionIs(a.Version), alertChanged)
	if a.State == calendar.AlertSnoozed {
		ref := (&dueRecord{Kind: dueSnooze, UserID: viewer, Alert: id.String()}).ref()
		w.Delete(dueKey(a.SnoozedUntil, ref), noCondition(), nil)
	}
	w.log(changeRef{userPartition(viewer), changedAlert + id.String()})
	if err := s.commit(ctx, w); err != nil {
		return nil, err
	}
	a.State, a.SnoozedUntil, a.Version = calendar.AlertDismissed, time.Time{}, a.Version+1
	return a, nil
}

// alertChanged explains an alert changed by another device in between.
func alertChanged(old item) error {
	if old == nil {
		return calendar.Errorf(calendar.CodeNotFound, "reminder not found")
	}
	return calendar.Errorf(calendar.CodeVersionConflict, "the reminder changed meanwhile (on another device): read it again")
}

// alertsNamed reads the alerts a page of a user's log names, as they are
// now; one gone (past its retention) is left out.
func (s *Store) alertsNamed(ctx context.Context, userID string, objects []string) ([]*calendar.Alert, error) {
	var keys []itemKey
	for _, obj := range objects {
		if text, ok := strings.CutPrefix(obj, changedAlert); ok {
			id, err := calendar.ParseAlertID("alert", text)
			if err != nil {
				return nil, fmt.Errorf("user %s's log: %w", userID, err)
			}
			keys = append(keys, alertKey(userID, id))
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	var out []*calendar.Alert
	for _, k := range keys {
		if it := found[k]; it != nil {
			a, err := decodeAlert(it, userID)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// Alerts implements calendar.AlertService: the viewer's alerts, latest due
// first, without the dismissed ones unless asked.
func (s *Store) Alerts(ctx context.Context, includeDismissed bool, p calendar.Page) (*calendar.AlertPage, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return nil, err
	}
	q := pageQuery{pkAttr: attrPK, skAttr: attrSK, partition: userPartition(viewer), prefix: prefixAlert,
		descending: true, consistent: true, page: p}
	if !includeDismissed {
		q.filter = filter{expr: "#st <> :dismissed", names: map[string]string{"#st": "state"},
			values: item{":dismissed": str(string(calendar.AlertDismissed))}}
	}
	res, err := s.queryPage(ctx, q)
	if err != nil {
		return nil, err
	}
	page := &calendar.AlertPage{Cursors: res.cursors, HasNextPage: res.hasNext}
	for _, it := range res.items {
		a, err := decodeAlert(it, viewer)
		if err != nil {
			return nil, err
		}
		page.Alerts = append(page.Alerts, a)
	}
	return page, nil
}
