package dynamo

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// decodeCalendarRecord and decodeMembershipRecord are unmarshal[calendarRecord]
// and unmarshal[membershipRecord] without reflection, as decodeEntryRecord is
// for entries: every view decodes its calendars and the viewer's memberships
// (TestRecordDecodersMatchAttributeValue holds them to attributevalue's
// reading, field by field).

func decodeCalendarRecord(it item) (calendarRecord, error) {
	var r calendarRecord
	for name, av := range it {
		var err error
		switch name {
		case "PK":
			r.PK, err = sAttr(av)
		case "SK":
			r.SK, err = sAttr(av)
		case "entityType":
			r.EntityType, err = sAttr(av)
		case "id":
			r.ID, err = sAttr(av)
		case "name":
			r.Name, err = sAttr(av)
		case "color":
			r.Color, err = sAttr(av)
		case "description":
			r.Description, err = sAttr(av)
		case "timeZone":
			r.TimeZone, err = sAttr(av)
		case "isResource":
			r.IsResource, err = boolAttr(av)
		case "version":
			r.Version, err = nAttr(av)
		case "createdAt":
			r.CreatedAt, err = timeAttr(av)
		case "updatedAt":
			r.UpdatedAt, err = timeAttr(av)
		case attrNeverHeldSeries:
			r.NeverHeldSeries, err = boolAttr(av)
		case attrHasHolds:
			r.HasHolds, err = boolAttr(av)
		case attrRevision:
			r.Rev, err = n64Attr(av)
		}
		if err != nil {
			return r, fmt.Errorf("unmarshal dynamo.calendarRecord: %s: %w", name, err)
		}
	}
	return r, nil
}

func decodeMembershipRecord(it item) (membershipRecord, error) {
	var r membershipRecord
	for name, av := range it {
		var err error
		switch name {
		case "PK":
			r.PK, err = sAttr(av)
		case "SK":
			r.SK, err = sAttr(av)
		case "GSI1PK":
			r.GSI1PK, err = sAttr(av)
		case "GSI1SK":
			r.GSI1SK, err = sAttr(av)
		case "entityType":
			r.EntityType, err = sAttr(av)
		case "calendarId":
			r.CalendarID, err = sAttr(av)
		case "userId":
			r.UserID, err = sAttr(av)
		case "role":
			r.Role, err = sAttr(av)
		case "version":
			r.Version, err = nAttr(av)
		case "createdAt":
			r.CreatedAt, err = timeAttr(av)
		case "updatedAt":
			r.UpdatedAt, err = timeAttr(av)
		default:
			err = decodeSettingsAttr(&r.settingsRecord, name, av)
		}
		if err != nil {
			return r, fmt.Errorf("unmarshal dynamo.membershipRecord: %s: %w", name, err)
		}
	}
	return r, nil
}

// decodeSettingsAttr reads one of a membership's settings attributes into
// r, and ignores any other.
func decodeSettingsAttr(r *settingsRecord, name string, av types.AttributeValue) error {
	var err error
	switch name {
	case attrSetColor:
		r.SetColor, err = sAttr(av)
	case attrSetName:
		r.SetName, err = sAttr(av)
	case attrSetHidden:
		r.SetHidden, err = boolAttr(av)
	case attrSetUnselected:
		r.SetUnselected, err = boolAttr(av)
	case attrSetSortKey:
		r.SetSortKey, err = sAttr(av)
	case attrSetReminders:
		r.SetReminders, err = listAttr(av)
	case attrSetVersion:
		r.SetVersion, err = nAttr(av)
	case attrSetUpdatedAt:
		var t time.Time
		if t, err = timeAttr(av); err == nil && !t.IsZero() {
			r.SetUpdatedAt = &t
		}
	}
	return err
}

func n64Attr(av types.AttributeValue) (int64, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		return strconv.ParseInt(v.Value, 10, 64)
	case *types.AttributeValueMemberNULL:
		return 0, nil
	}
	return 0, fmt.Errorf("a %T is not a number", av)
}
