package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A user's working hours are an item of their own beside the user item
// (workingHoursKey), not attributes of it: the user item is read by every
// request's sign-in, the hours only by what asks for them. They change with
// the user's preferences, in the transaction that raises the user's
// version, and go with the account. At most 7 + MaxDatedDays days of at most
// MaxWindowsPerDay windows, and days before yesterday are dropped at every
// write: under 10 KB whatever the user does, and usually about 100 bytes.

// workingHoursRecord is the item: each day's windows as "from-to" minutes
// joined by commas ("540-720,780-1020"; "" for none).
type workingHoursRecord struct {
	PK         string            `dynamodbav:"PK"`
	SK         string            `dynamodbav:"SK"`
	EntityType string            `dynamodbav:"entityType"`
	UserID     string            `dynamodbav:"userId,omitempty"`     // a user's
	CalendarID string            `dynamodbav:"calendarId,omitempty"` // or a resource calendar's
	TimeZone   string            `dynamodbav:"timeZone"`
	Weekly     []string          `dynamodbav:"weekly"` // 7, Sunday first (time.Weekday)
	Dated      map[string]string `dynamodbav:"dated,omitempty"`
	UpdatedAt  time.Time         `dynamodbav:"updatedAt"`
}

func newWorkingHoursRecord(userID string, h *calendar.WorkingHours, now time.Time) workingHoursRecord {
	k := workingHoursKey(userID)
	r := workingHoursRecord{PK: k.PK, SK: k.SK, EntityType: entityWorkingHours, UserID: userID, TimeZone: h.TimeZone, UpdatedAt: now}
	for _, ws := range h.Weekly {
		r.Weekly = append(r.Weekly, windowsText(ws))
	}
	for d, ws := range h.Dated {
		if r.Dated == nil {
			r.Dated = map[string]string{}
		}
		r.Dated[d.String()] = windowsText(ws)
	}
	return r
}

func (r workingHoursRecord) hours() (*calendar.WorkingHours, error) {
	h := &calendar.WorkingHours{TimeZone: r.TimeZone}
	if len(r.Weekly) != 7 {
		return nil, fmt.Errorf("working hours of %s: %d weekdays", r.UserID, len(r.Weekly))
	}
	for wd, text := range r.Weekly {
		ws, err := readWindows(text)
		if err != nil {
			return nil, fmt.Errorf("working hours of %s: %w", r.UserID, err)
		}
		h.Weekly[wd] = ws
	}
	for day, text := range r.Dated {
		d, err := calendar.ReadDate(day)
		if err != nil {
			return nil, fmt.Errorf("working hours of %s: %w", r.UserID, err)
		}
		ws, err := readWindows(text)
		if err != nil {
			return nil, fmt.Errorf("working hours of %s: %w", r.UserID, err)
		}
		if h.Dated == nil {
			h.Dated = map[calendar.Date][]calendar.TimeWindow{}
		}
		h.Dated[d] = ws
	}
	return h, nil
}

func windowsText(ws []calendar.TimeWindow) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = strconv.Itoa(w.From) + "-" + strconv.Itoa(w.To)
	}
	return strings.Join(parts, ",")
}

func readWindows(text string) ([]calendar.TimeWindow, error) {
	ws := []calendar.TimeWindow{}
	if text == "" {
		return ws, nil
	}
	for part := range strings.SplitSeq(text, ",") {
		from, to, ok := strings.Cut(part, "-")
		f, err1 := strconv.Atoi(from)
		t, err2 := strconv.Atoi(to)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("windows %q", text)
		}
		ws = append(ws, calendar.TimeWindow{From: f, To: t})
	}
	return ws, nil
}

// WorkingHours implements calendar.PreferencesService: userID's working
// hours, nil when they have set none (always working).
func (s *Store) WorkingHours(ctx context.Context, userID string) (*calendar.WorkingHours, error) {
	it, found, err := s.getItem(ctx, workingHoursKey(userID))
	if err != nil || !found {
		return nil, err
	}
	r, err := unmarshal[workingHoursRecord](it)
	if err != nil {
		return nil, err
	}
	return r.hours()
}

// workingHoursWrite returns the write of a user's new working hours: a Put
// of them as normalized at now, or the item's deletion for nil.
func workingHoursWrite(userID string, h *calendar.WorkingHours, now time.Time) txOp {
	if h == nil {
		return opDelete(workingHoursKey(userID), noCondition(), nil)
	}
	n := h.Normalized(now)
	return opPut(workingHoursKey(userID), newWorkingHoursRecord(userID, &n, now), noCondition(), nil)
}

// UserIDs implements calendar.PreferencesService: a BatchGetItem of the
// emails' items.
func (s *Store) UserIDs(ctx context.Context, emails []string) (map[string]string, error) {
	keys := make([]itemKey, len(emails))
	for i, e := range emails {
		keys[i] = emailKey(e)
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	for _, e := range emails {
		if id := stringAttr(found[emailKey(e)], "userId"); id != "" {
			ids[e] = id
		}
	}
	return ids, nil
}

// HoursOf implements calendar.PreferencesService: one BatchGetItem of the
// users' working hours and the calendars' opening hours items.
func (s *Store) HoursOf(ctx context.Context, userIDs, calendarIDs []string) (map[string]*calendar.WorkingHours, map[string]*calendar.WorkingHours, error) {
	var keys []itemKey
	for _, id := range userIDs {
		keys = append(keys, workingHoursKey(id))
	}
	for _, id := range calendarIDs {
		keys = append(keys, openingHoursKey(id))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	users, cals := map[string]*calendar.WorkingHours{}, map[string]*calendar.WorkingHours{}
	for _, it := range found {
		r, err := unmarshal[workingHoursRecord](it)
		if err != nil {
			return nil, nil, err
		}
		h, err := r.hours()
		if err != nil {
			return nil, nil, err
		}
		if r.CalendarID != "" {
			cals[r.CalendarID] = h
		} else {
			users[r.UserID] = h
		}
	}
	return users, cals, nil
}

// SetOpeningHours implements calendar.OpeningHoursService: the item
// CAL#<id>/HOURS put (or deleted) under the owner's role, in a transaction
// that checks the calendar is still there. The calendar's version does not
// change: the hours are no field of the calendar item.
func (s *Store) SetOpeningHours(ctx context.Context, calendarID string, h *calendar.WorkingHours) (*calendar.Calendar, error) {
	acc, err := s.access(ctx, calendarID, calendar.ActionManage)
	if err != nil {
		return nil, err
	}
	if !acc.calendar.IsResource {
		return nil, calendar.Invalidf("openingHours", "only a resource calendar (isResource) has opening hours")
	}
	if h != nil {
		if err := h.Validate("openingHours"); err != nil {
			return nil, err
		}
	}
	w := newWrite()
	w.Idempotent(ctx)
	w.Guard(roleCheck(calendarID, acc.viewer, calendar.ActionManage))
	w.Guard(calendarStillThere(calendarID, 0))
	k := openingHoursKey(calendarID)
	if h == nil {
		w.Delete(k, noCondition(), nil)
	} else {
		now := s.timestamp()
		n := h.Normalized(now)
		r := newWorkingHoursRecord("", &n, now)
		r.PK, r.SK, r.EntityType, r.CalendarID = k.PK, k.SK, entityOpeningHours, calendarID
		w.Put(k, r, noCondition(), nil)
	}
	if err := s.commit(ctx, w); err != nil {
		return nil, fmt.Errorf("set the opening hours of calendar %s: %w", calendarID, err)
	}
	return acc.calendar, nil
}

// checkOpeningHours reports opening hours that do not read back as valid or
// name another calendar. A calendar that stopped being a resource
// (updateCalendar) keeps them, unused until it is one again.
func (c *checker) checkOpeningHours(cal calendarRecord, it item) {
	r, err := unmarshal[workingHoursRecord](it)
	if err != nil {
		c.problem("calendar %s: opening hours: %v", cal.ID, err)
		return
	}
	h, err := r.hours()
	if err == nil {
		err = h.Validate("openingHours")
	}
	switch {
	case err != nil:
		c.problem("calendar %s: opening hours: %v", cal.ID, err)
	case r.CalendarID != cal.ID:
		c.problem("calendar %s: opening hours of %q", cal.ID, r.CalendarID)
	}
}
