package dynamo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// decodeEntryRecord is unmarshal[entryRecord] without reflection: range
// views decode every entry they read, and attributevalue's reflective decoder
// was a tenth of a view's CPU. It reads exactly what attributevalue would from
// the items entryRecords writes (TestEntryDecoderMatchesAttributeValue holds
// it to that, field by field); attributes it does not know are ignored, as
// attributevalue ignores them.
func decodeEntryRecord(it item) (entryRecord, error) {
	var r entryRecord
	for name, av := range it {
		var err error
		switch name {
		case "PK":
			r.PK, err = sAttr(av)
		case "SK":
			r.SK, err = sAttr(av)
		case "LSI1SK":
			r.LSI1SK, err = sAttr(av)
		case "LSI2SK":
			r.LSI2SK, err = sAttr(av)
		case "GSI5PK":
			r.Wake, err = sAttr(av)
		case "GSI5SK":
			r.WakeAt, err = sAttr(av)
		case "reachEnd":
			r.ReachEnd, err = sAttr(av)
		case "entityType":
			r.EntityType, err = sAttr(av)
		case "piece":
			r.Piece, err = nAttr(av)
		case "pieces":
			r.Pieces, err = nAttr(av)
		case "id":
			r.ID, err = sAttr(av)
		case "calendarId":
			r.CalendarID, err = sAttr(av)
		case "kind":
			r.Kind, err = sAttr(av)
		case "title":
			r.Title, err = sAttr(av)
		case "description":
			r.Description, err = sAttr(av)
		case "location":
			r.Location, err = sAttr(av)
		case "color":
			r.Color, err = sAttr(av)
		case "tags":
			r.Tags, err = ssAttr(av)
		case "reminders":
			r.Reminders, err = nsAttr(av)
		case "transp":
			r.Transp, err = sAttr(av)
		case "vis":
			r.Vis, err = sAttr(av)
		case "start":
			r.Start, err = sAttr(av)
		case "end":
			r.End, err = sAttr(av)
		case "timeZone":
			r.TimeZone, err = sAttr(av)
		case "localStart":
			r.LocalStart, err = sAttr(av)
		case "startDate":
			r.StartDate, err = sAttr(av)
		case "endDate":
			r.EndDate, err = sAttr(av)
		case "completed":
			r.Completed, err = boolAttr(av)
		case "completedAt":
			r.CompletedAt, err = sAttr(av)
		case "icalUid":
			r.ICalUID, err = sAttr(av)
		case "sequence":
			r.Sequence, err = nAttr(av)
		case "version":
			r.Version, err = nAttr(av)
		case "createdAt":
			r.CreatedAt, err = timeAttr(av)
		case "updatedAt":
			r.UpdatedAt, err = timeAttr(av)
		case "rrule":
			r.Rule, err = sAttr(av)
		case "rdates":
			r.RDates, err = listAttr(av)
		case "exdates":
			r.ExDates, err = listAttr(av)
		case "createdBy":
			r.CreatedBy, err = sAttr(av)
		case "updatedBy":
			r.UpdatedBy, err = sAttr(av)
		case "previousSeriesId":
			r.PreviousSeriesID, err = sAttr(av)
		case "gen":
			r.Gen, err = sAttr(av)
		case "xrev":
			r.Xrev, err = nAttr(av)
		case "seriesStart":
			r.SeriesStart, err = sAttr(av)
		case "seriesId":
			r.SeriesID, err = sAttr(av)
		case "originalStart":
			r.OriginalStart, err = sAttr(av)
		case "originalEnd":
			r.OriginalEnd, err = sAttr(av)
		case "cancelled":
			r.Cancelled, err = boolAttr(av)
		case "overrides":
			r.Overrides, err = ssAttr(av)
		case "organizer":
			r.Organizer, err = sAttr(av)
		case "capacity":
			r.Capacity, err = nAttr(av)
		case "waitlist":
			r.Waitlist, err = boolAttr(av)
		case "hideAttendees":
			r.HideAttendees, err = boolAttr(av)
		case "attNeedsAction":
			r.AttNeedsAction, err = nAttr(av)
		case "attAccepted":
			r.AttAccepted, err = nAttr(av)
		case "attTentative":
			r.AttTentative, err = nAttr(av)
		case "attDeclined":
			r.AttDeclined, err = nAttr(av)
		case "attWaitlisted":
			r.AttWaitlisted, err = nAttr(av)
		case "attGuests":
			r.AttGuests, err = nAttr(av)
		case "attTickets":
			r.AttTickets, err = nAttr(av)
		case "attHeads":
			r.AttHeads, err = nAttr(av)
		case "attRev":
			r.AttRev, err = nAttr(av)
		case attrAttEpoch:
			r.AttEpoch, err = nAttr(av)
		case attrAttKeys:
			r.AttKeys, err = nAttr(av)
		case "holds":
			r.Holds, err = ssAttr(av)
		case attrAttMoves:
			r.AttMoves, err = nAttr(av)
		default:
			if strings.HasPrefix(name, resetPrefix) {
				err = readReset(&r, name, av)
			} else if strings.HasPrefix(name, sharePrefix) {
				if r.Shares == nil {
					r.Shares = map[calendar.AnswerKey]calendar.AttendeeSummary{}
				}
				_, err = readShare(r.Shares, name, av)
			}
		}
		if err != nil {
			return r, fmt.Errorf("unmarshal dynamo.entryRecord: %s: %w", name, err)
		}
	}
	return r, nil
}

func sAttr(av types.AttributeValue) (string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return "", nil
	}
	return "", fmt.Errorf("a %T is not a string", av)
}

func nAttr(av types.AttributeValue) (int, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		return strconv.Atoi(v.Value)
	case *types.AttributeValueMemberNULL:
		return 0, nil
	}
	return 0, fmt.Errorf("a %T is not a number", av)
}

func boolAttr(av types.AttributeValue) (bool, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberBOOL:
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return false, nil
	}
	return false, fmt.Errorf("a %T is not a boolean", av)
}

func timeAttr(av types.AttributeValue) (time.Time, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return time.Parse(time.RFC3339Nano, v.Value)
	case *types.AttributeValueMemberNULL:
		return time.Time{}, nil
	}
	return time.Time{}, fmt.Errorf("a %T is not a time", av)
}

func ssAttr(av types.AttributeValue) ([]string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberSS:
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return nil, nil
	}
	return nil, fmt.Errorf("a %T is not a string set", av)
}

func nsAttr(av types.AttributeValue) ([]int, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberNS:
		out := make([]int, len(v.Value))
		for i, n := range v.Value {
			var err error
			if out[i], err = strconv.Atoi(n); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *types.AttributeValueMemberNULL:
		return nil, nil
	}
	return nil, fmt.Errorf("a %T is not a number set", av)
}

func listAttr(av types.AttributeValue) ([]string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberL:
		out := make([]string, len(v.Value))
		for i, e := range v.Value {
			var err error
			if out[i], err = sAttr(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *types.AttributeValueMemberNULL:
		return nil, nil
	}
	return nil, fmt.Errorf("a %T is not a list", av)
}
