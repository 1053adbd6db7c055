package dynamo

import (
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// A series' master keeps, beside the summary of its attendees' series
// answers, their occurrence answers' shares (calendar.Attendance.Shares) as
// top-level number attributes, one per key and count: ADD works on
// top-level attributes only, and ADD is what lets concurrent answers add
// up without reading each other. A key's attributes are named
// ao#<O|F><original start>#<count> (O: THIS, F: THIS_AND_FOLLOWING); its
// "n" attribute (NEEDS_ACTION) is written, 0 or not, by every write of the
// key, so that it says the key exists. attKeys counts the keys, which
// calendar.MaxSeriesAnswerKeys bounds; a master rewritten whole (an edit
// of the series) keeps only the keys whose shares are not zero, and a write
// that brings a key to zero removes it (shareWrites).

// sharePrefix starts the name of a share attribute.
const sharePrefix = "ao#"

// attrAttKeys counts a master's share keys.
const attrAttKeys = "attKeys"

// shareFields are the counts of a share, by the suffix of their attribute
// (waitlists are not kept on series: they have no capacity).
var shareFields = []struct {
	suffix string
	count  func(*calendar.AttendeeSummary) *int
}{
	{"n", func(s *calendar.AttendeeSummary) *int { return &s.NeedsAction }},
	{"a", func(s *calendar.AttendeeSummary) *int { return &s.Accepted }},
	{"t", func(s *calendar.AttendeeSummary) *int { return &s.Tentative }},
	{"d", func(s *calendar.AttendeeSummary) *int { return &s.Declined }},
	{"g", func(s *calendar.AttendeeSummary) *int { return &s.AcceptedGuests }},
}

// shareKeyName is the middle of a key's attribute names.
func shareKeyName(k calendar.AnswerKey) string {
	b, _ := k.MarshalText() // never fails
	return string(b)
}

// shareAttr is the attribute of one count of key k.
func shareAttr(k calendar.AnswerKey, suffix string) string {
	return sharePrefix + shareKeyName(k) + "#" + suffix
}

// readShare adds share attribute name = av to shares; ok is false when
// the name is not one.
func readShare(shares map[calendar.AnswerKey]calendar.AttendeeSummary, name string, av types.AttributeValue) (ok bool, err error) {
	rest, ok := strings.CutPrefix(name, sharePrefix)
	if !ok {
		return false, nil
	}
	key, suffix, _ := strings.Cut(rest, "#")
	var k calendar.AnswerKey
	if err := k.UnmarshalText([]byte(key)); err != nil {
		return true, err
	}
	n, err := nAttr(av)
	if err != nil {
		return true, err
	}
	s := shares[k]
	for _, f := range shareFields {
		if f.suffix == suffix {
			*f.count(&s) += n
		}
	}
	shares[k] = s
	return true, nil
}

// plainEntryRecord is entryRecord without its marshaller.
type plainEntryRecord entryRecord

// MarshalDynamoDBAttributeValue writes r with its shares' attributes: the
// keys whose shares are not zero (with their "n", which says they exist).
func (r entryRecord) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	av, err := attributevalue.Marshal(plainEntryRecord(r))
	if err != nil || len(r.Shares) == 0 && len(r.Resets) == 0 {
		return av, err
	}
	m := av.(*types.AttributeValueMemberM).Value
	for orig, mark := range r.Resets {
		m[resetAttr(orig)] = number(int64(mark))
	}
	kept := 0
	for k, s := range r.Shares {
		if s == (calendar.AttendeeSummary{}) {
			continue
		}
		kept++
		for _, f := range shareFields {
			if n := *f.count(&s); n != 0 || f.suffix == "n" {
				m[shareAttr(k, f.suffix)] = number(int64(n))
			}
		}
	}
	if kept > 0 {
		m[attrAttKeys] = number(int64(kept))
	} else {
		delete(m, attrAttKeys)
	}
	return av, nil
}

// shareWrites returns what adds the shares of d to a master's update,
// and the condition they need: a key the master did not have (as read) is
// new, and counts against calendar.MaxSeriesAnswerKeys; one it had must
// still be there. A key d brings to zero goes from the master (its
// attributes removed, attKeys less one) on condition that its counts are
// as read, so that keys do not pile up as answers come and go (a
// concurrent write to that key makes this one read again). Errors:
// CodeInvalid past the bound.
func shareWrites(master *calendar.Entry, d map[calendar.AnswerKey]calendar.AttendeeSummary) (func(expression.UpdateBuilder) expression.UpdateBuilder, expression.ConditionBuilder, error) {
	var cond expression.ConditionBuilder
	fresh, gone := 0, map[calendar.AnswerKey]bool{}
	for k, delta := range d {
		marker := expression.Name(shareAttr(k, "n"))
		was, had := master.Attendance.Shares[k]
		switch {
		case !had:
			cond, fresh = and(cond, expression.AttributeNotExists(marker)), fresh+1
		case addSummaries(was, delta) == (calendar.AttendeeSummary{}):
			gone[k] = true
			for _, f := range shareFields {
				name, n := expression.Name(shareAttr(k, f.suffix)), *f.count(&was)
				c := expression.Equal(name, expression.Value(n))
				if n == 0 && f.suffix != "n" {
					c = expression.Or(expression.AttributeNotExists(name), c)
				}
				cond = and(cond, c)
			}
		default:
			cond = and(cond, expression.AttributeExists(marker))
		}
	}
	if had := len(master.Attendance.Shares); fresh > 0 && had+fresh-len(gone) > calendar.MaxSeriesAnswerKeys {
		return nil, cond, calendar.Invalidf("scope", "this series holds answers to %d occurrences apart, the most it keeps: answer ALL or THIS_AND_FOLLOWING instead", had)
	}
	if fresh > len(gone) {
		cond = and(cond, numberAtMost(attrAttKeys, calendar.MaxSeriesAnswerKeys-fresh+len(gone)))
	}
	add := func(upd expression.UpdateBuilder) expression.UpdateBuilder {
		for k, s := range d {
			for _, f := range shareFields {
				switch n := *f.count(&s); {
				case gone[k]:
					upd = upd.Remove(expression.Name(shareAttr(k, f.suffix)))
				case n != 0 || f.suffix == "n":
					upd = upd.Add(expression.Name(shareAttr(k, f.suffix)), expression.Value(n))
				}
			}
		}
		if n := fresh - len(gone); n != 0 {
			upd = upd.Add(expression.Name(attrAttKeys), expression.Value(n))
		}
		return upd
	}
	return add, cond, nil
}

// and is a.And(b) where a may be unset.
func and(a, b expression.ConditionBuilder) expression.ConditionBuilder {
	if !a.IsSet() {
		return b
	}
	return a.And(b)
}

// occurrenceAnswerRecord is the stored form of a calendar.OccurrenceAnswer,
// in its attendee's item.
type occurrenceAnswerRecord struct {
	From             string `dynamodbav:"from"`
	Following        bool   `dynamodbav:"following,omitempty"`
	Response         string `dynamodbav:"response"`
	Comment          string `dynamodbav:"comment,omitempty"`
	AdditionalGuests int    `dynamodbav:"additionalGuests,omitempty"`
	RespondedAt      string `dynamodbav:"respondedAt,omitempty"`
	ProposedStart    string `dynamodbav:"proposedStart,omitempty"`
	ProposedEnd      string `dynamodbav:"proposedEnd,omitempty"`
	Moves            int    `dynamodbav:"moves,omitempty"`
}

func newOccurrenceAnswerRecords(as []calendar.OccurrenceAnswer) []occurrenceAnswerRecord {
	var out []occurrenceAnswerRecord
	for _, o := range as {
		out = append(out, occurrenceAnswerRecord{
			From: formatTime(o.Key.From), Following: o.Key.Following, Response: string(o.Response), Comment: o.Comment,
			AdditionalGuests: o.AdditionalGuests, RespondedAt: formatTime(o.RespondedAt),
			ProposedStart: formatTime(o.ProposedStart), ProposedEnd: formatTime(o.ProposedEnd), Moves: o.Moves,
		})
	}
	return out
}

func (r occurrenceAnswerRecord) answer() (calendar.OccurrenceAnswer, error) {
	o := calendar.OccurrenceAnswer{Key: calendar.AnswerKey{Following: r.Following}, Response: calendar.Response(r.Response),
		Comment: r.Comment, AdditionalGuests: r.AdditionalGuests, Moves: r.Moves}
	for _, f := range []struct {
		raw string
		dst *time.Time
	}{{r.From, &o.Key.From}, {r.RespondedAt, &o.RespondedAt}, {r.ProposedStart, &o.ProposedStart}, {r.ProposedEnd, &o.ProposedEnd}} {
		if f.raw == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f.raw)
		if err != nil {
			return o, err
		}
		*f.dst = t
	}
	return o, nil
}

// UnmarshalDynamoDBAttributeValue reads r with its shares' attributes, as
// decodeEntryRecord does.
func (r *entryRecord) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	if err := attributevalue.Unmarshal(av, (*plainEntryRecord)(r)); err != nil {
		return err
	}
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return nil
	}
	for name, v := range m.Value {
		if strings.HasPrefix(name, resetPrefix) {
			if err := readReset(r, name, v); err != nil {
				return err
			}
			continue
		}
		if !strings.HasPrefix(name, sharePrefix) {
			continue
		}
		if r.Shares == nil {
			r.Shares = map[calendar.AnswerKey]calendar.AttendeeSummary{}
		}
		if _, err := readShare(r.Shares, name, v); err != nil {
			return err
		}
	}
	return nil
}
