package dynamo

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// item is one DynamoDB item as the SDK represents it.
type item = map[string]types.AttributeValue

// Storage records: what is written to the table, separate from the domain types so
// that keys and bookkeeping never leak into the domain. Empty optional attributes
// are omitted rather than stored as empty values.

type userRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	GSI3PK     string    `dynamodbav:"GSI3PK,omitempty"`
	GSI3SK     string    `dynamodbav:"GSI3SK,omitempty"`
	EntityType string    `dynamodbav:"entityType"`
	ID         string    `dynamodbav:"id"`
	Name       string    `dynamodbav:"name"`
	Email      string    `dynamodbav:"email"`
	Provider   string    `dynamodbav:"provider,omitempty"`
	Subject    string    `dynamodbav:"subject,omitempty"`
	Version    int       `dynamodbav:"version"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
	UpdatedAt  time.Time `dynamodbav:"updatedAt"`
	preferencesRecord
}

// preferencesRecord holds a user's preferences on the user item. Unset values
// (absent on users created before preferences existed) read as the defaults.
type preferencesRecord struct {
	TimeZone         string `dynamodbav:"prefTimeZone,omitempty"`
	WeekStart        string `dynamodbav:"prefWeekStart,omitempty"`
	DurationMinutes  int    `dynamodbav:"prefDefaultDurationMinutes,omitempty"`
	DefaultReminders []int  `dynamodbav:"prefDefaultReminders,omitempty,numberset"`
	Theme            string `dynamodbav:"prefTheme,omitempty"`
	// Added later: absent means the default.
	IncrementMinutes     int   `dynamodbav:"prefCalendarIncrementMinutes,omitempty"`
	AutoArchive          bool  `dynamodbav:"prefAutoArchive,omitempty"`
	ArchiveDelayHours    int   `dynamodbav:"prefAutoArchiveDelayHours,omitempty"`
	BrowserNotifications *bool `dynamodbav:"prefBrowserNotifications,omitempty"`
	SoundNotifications   *bool `dynamodbav:"prefSoundNotifications,omitempty"`
}

func newPreferencesRecord(p calendar.Preferences) preferencesRecord {
	return preferencesRecord{
		TimeZone: p.TimeZone, WeekStart: strings.ToUpper(p.WeekStart.String()),
		DurationMinutes: int(p.DefaultDuration / time.Minute), DefaultReminders: p.DefaultReminders, Theme: string(p.Theme),
		IncrementMinutes: int(p.CalendarIncrement / time.Minute), AutoArchive: p.AutoArchive,
		ArchiveDelayHours: int(p.ArchiveDelay / time.Hour), BrowserNotifications: &p.BrowserNotifications,
		SoundNotifications: &p.SoundNotifications,
	}
}

func (r preferencesRecord) preferences() calendar.Preferences {
	p := calendar.DefaultPreferences()
	p.TimeZone, p.DefaultReminders = r.TimeZone, r.DefaultReminders
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(r.WeekStart, d.String()) {
			p.WeekStart = d
		}
	}
	if r.DurationMinutes > 0 {
		p.DefaultDuration = time.Duration(r.DurationMinutes) * time.Minute
	}
	if r.Theme != "" {
		p.Theme = calendar.Theme(r.Theme)
	}
	if r.IncrementMinutes > 0 {
		p.CalendarIncrement = time.Duration(r.IncrementMinutes) * time.Minute
	}
	if r.ArchiveDelayHours > 0 {
		p.ArchiveDelay = time.Duration(r.ArchiveDelayHours) * time.Hour
	}
	p.AutoArchive = r.AutoArchive
	if r.BrowserNotifications != nil {
		p.BrowserNotifications = *r.BrowserNotifications
	}
	if r.SoundNotifications != nil {
		p.SoundNotifications = *r.SoundNotifications
	}
	return p
}

// guardRecord reserves a unique value (an email, an identity) for one user.
type guardRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	UserID     string `dynamodbav:"userId"`
}

type calendarRecord struct {
	PK          string    `dynamodbav:"PK"`
	SK          string    `dynamodbav:"SK"`
	EntityType  string    `dynamodbav:"entityType"`
	ID          string    `dynamodbav:"id"`
	Name        string    `dynamodbav:"name"`
	Color       string    `dynamodbav:"color"`
	Description string    `dynamodbav:"description,omitempty"`
	TimeZone    string    `dynamodbav:"timeZone"`
	IsResource  bool      `dynamodbav:"isResource"`
	Version     int       `dynamodbav:"version"`
	CreatedAt   time.Time `dynamodbav:"createdAt"`
	UpdatedAt   time.Time `dynamodbav:"updatedAt"`

	// NeverHeldSeries is written by CreateCalendar and removed, never set
	// again, by the first write of a series in the calendar (seriesArrive).
	NeverHeldSeries bool `dynamodbav:"neverHeldSeries,omitempty"`

	// HasHolds is set, never cleared, by the first hold on the calendar
	// (booking.go).
	HasHolds bool `dynamodbav:"hasHolds,omitempty"`

	// Rev is raised by every write to the calendar's entries, series and
	// memberships (revisions.go); never written by a Put of the record.
	Rev int64 `dynamodbav:"rev,omitempty"`
}

// ownerTallyRecord counts a calendar's owners; see ownerTallyKey.
type ownerTallyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"entityType"`
	CalendarID string `dynamodbav:"calendarId"`
	Owners     int    `dynamodbav:"owners"`
}

type membershipRecord struct {
	PK         string    `dynamodbav:"PK"`
	SK         string    `dynamodbav:"SK"`
	GSI1PK     string    `dynamodbav:"GSI1PK"`
	GSI1SK     string    `dynamodbav:"GSI1SK"`
	EntityType string    `dynamodbav:"entityType"`
	CalendarID string    `dynamodbav:"calendarId"`
	UserID     string    `dynamodbav:"userId"`
	Role       string    `dynamodbav:"role"`
	Version    int       `dynamodbav:"version"`
	CreatedAt  time.Time `dynamodbav:"createdAt"`
	UpdatedAt  time.Time `dynamodbav:"updatedAt"`
	settingsRecord
}

func newUserRecord(u *calendar.User) userRecord {
	k := userKey(u.ID)
	r := userRecord{
		PK: k.PK, SK: k.SK, EntityType: entityUser,
		ID: u.ID, Name: u.Name, Email: u.Email,
		Provider: u.Identity.Provider, Subject: u.Identity.Subject,
		Version: u.Version, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
		preferencesRecord: newPreferencesRecord(u.Preferences),
	}
	if u.Identity.Provider != "" {
		ik := identityIndexKey(u.Identity.Provider, u.Identity.Subject, u.ID)
		r.GSI3PK, r.GSI3SK = ik.PK, ik.SK
	}
	return r
}

func (r userRecord) user() *calendar.User {
	return &calendar.User{
		ID: r.ID, Name: r.Name, Email: r.Email,
		Identity:    calendar.Identity{Provider: r.Provider, Subject: r.Subject},
		Preferences: r.preferences(),
		Version:     r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

func newGuardRecord(k itemKey, entityType, userID string) guardRecord {
	return guardRecord{PK: k.PK, SK: k.SK, EntityType: entityType, UserID: userID}
}

func newCalendarRecord(c *calendar.Calendar) calendarRecord {
	k := calendarKey(c.ID)
	return calendarRecord{
		PK: k.PK, SK: k.SK, EntityType: entityCalendar,
		ID: c.ID, Name: c.Name, Color: c.Color, Description: c.Description,
		TimeZone: c.TimeZone, IsResource: c.IsResource,
		Version: c.Version, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		NeverHeldSeries: c.NeverHeldSeries,
	}
}

func (r calendarRecord) calendar() *calendar.Calendar {
	return &calendar.Calendar{
		ID: r.ID, Name: r.Name, Color: r.Color, Description: r.Description,
		TimeZone: r.TimeZone, IsResource: r.IsResource,
		Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		NeverHeldSeries: r.NeverHeldSeries, HasHolds: r.HasHolds,
		Revision: r.Rev + 1, // known, from the read (0 would mean unknown)
	}
}

func newOwnerTallyRecord(calendarID string, owners int) ownerTallyRecord {
	k := ownerTallyKey(calendarID)
	return ownerTallyRecord{PK: k.PK, SK: k.SK, EntityType: entityOwnerTally, CalendarID: calendarID, Owners: owners}
}

func newMembershipRecord(m *calendar.Membership) membershipRecord {
	k := membershipKey(m.CalendarID, m.UserID)
	ik := membershipIndexKey(m.CalendarID, m.UserID)
	return membershipRecord{
		PK: k.PK, SK: k.SK, GSI1PK: ik.PK, GSI1SK: ik.SK, EntityType: entityMembership,
		CalendarID: m.CalendarID, UserID: m.UserID, Role: string(m.Role),
		Version: m.Version, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
	}
}

func (r membershipRecord) membership() *calendar.Membership {
	s := r.settings()
	return &calendar.Membership{
		CalendarID: r.CalendarID, UserID: r.UserID, Role: calendar.Role(r.Role),
		Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Settings: &s,
	}
}

// marshal turns a record into an item.
func marshal(record any) (item, error) {
	it, err := attributevalue.MarshalMap(record)
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", record, err)
	}
	return it, nil
}

// unmarshal decodes an item into a record of type R.
func unmarshal[R any](it item) (R, error) {
	var r R
	if err := attributevalue.UnmarshalMap(it, &r); err != nil {
		return r, fmt.Errorf("unmarshal %T: %w", r, err)
	}
	return r, nil
}

// keyOf reads an item's primary key.
func keyOf(it item) itemKey {
	return itemKey{PK: stringAttr(it, attrPK), SK: stringAttr(it, attrSK)}
}

func stringAttr(it item, name string) string {
	if s, ok := it[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// av returns the key as an SDK key map.
func (k itemKey) av() item {
	return item{
		attrPK: &types.AttributeValueMemberS{Value: k.PK},
		attrSK: &types.AttributeValueMemberS{Value: k.SK},
	}
}
