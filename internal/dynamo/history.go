package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/calgraph/calgraph/internal/calendar"
)

// historyKept is how many records of its history an entry or series keeps:
// its last historyKept changes at most (fewer when a split jumped its seq),
// each in its ring slot (historyKey), so that the history of an entry
// edited every minute for years is still historyKept items, and keeping it
// bounded costs no read, scan or delete. Records are under 64 KB each
// (calendar.MaxHistoryValue), so one history is at most 3.2 MB and
// typically a few KB.
const historyKept = 50

// historyRecord is a history record as stored: one item per record.
type historyRecord struct {
	PK            string         `dynamodbav:"PK"`
	SK            string         `dynamodbav:"SK"`
	EntityType    string         `dynamodbav:"entityType"`
	Root          string         `dynamodbav:"root"` // the entry's or series' ID
	Seq           int            `dynamodbav:"seq"`
	Prev          int            `dynamodbav:"prev,omitempty"` // the seq this record follows; 0 when it begins
	At            time.Time      `dynamodbav:"at"`
	By            string         `dynamodbav:"by,omitempty"`
	Action        string         `dynamodbav:"action"`
	OriginalStart string         `dynamodbav:"originalStart,omitempty"`
	Changes       []storedChange `dynamodbav:"changes,omitempty"`
}

// storedChange is a calendar.FieldChange as stored.
type storedChange struct {
	Field     string  `dynamodbav:"f"`
	Before    *string `dynamodbav:"b,omitempty"`
	After     *string `dynamodbav:"a,omitempty"`
	Truncated bool    `dynamodbav:"t,omitempty"`
}

// historyOps returns the Puts of the records w writes, stamped at unless
// they say when they were made.
func historyOps(w *write, at time.Time) []txOp {
	var ops []txOp
	for _, h := range w.histories() {
		r := h.stored(at)
		ops = append(ops, opPut(itemKey{r.PK, r.SK}, r, noCondition(), nil))
	}
	return ops
}

// stored is h as its item holds it, made at at unless h says when.
func (h historyChange) stored(at time.Time) historyRecord {
	r := historyRecord{Root: h.rootID, Seq: h.seq, Prev: h.prev, At: cmp.Or(h.at, at), By: h.actor, Action: string(h.action)}
	r.EntityType = entityHistory
	k := historyKey(h.calendarID, h.rootID, h.seq%historyKept)
	r.PK, r.SK = k.PK, k.SK
	if !h.originalStart.IsZero() {
		r.OriginalStart = h.originalStart.UTC().Format(time.RFC3339)
	}
	for _, c := range calendar.EntryChanges(h.was, h.is) {
		r.Changes = append(r.Changes, storedChange(c))
	}
	return r
}

// record returns r as the domain has it.
func (r historyRecord) record() *calendar.HistoryRecord {
	out := &calendar.HistoryRecord{Seq: r.Seq, At: r.At, By: r.By, Action: calendar.HistoryAction(r.Action)}
	out.OriginalStart, _ = time.Parse(time.RFC3339, r.OriginalStart)
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, calendar.FieldChange(c))
	}
	return out
}

// EntryHistory implements calendar.HistoryService: the viewer's access
// (with the entry) and the entry's history are read at once, a BatchGetItem
// and a Query side by side, so that a view's histories cost one wave.
func (s *Store) EntryHistory(ctx context.Context, key calendar.EntryKey, p calendar.Page) (*calendar.HistoryPage, error) {
	if err := validEntryKey(key); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	after := 0
	if p.After != "" {
		n, err := strconv.Atoi(p.After)
		if err != nil || n < 1 {
			return nil, calendar.Invalidf("after", "after is not a cursor of this history")
		}
		after = n
	}
	var acc *access
	var records []historyRecord
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		acc, err = s.access(gctx, key.CalendarID, calendar.ActionRead, entryKey(key.CalendarID, key.EntryID))
		return err
	})
	g.Go(func() (err error) {
		records, err = s.historyRecords(gctx, key.CalendarID, key.EntryID)
		return err
	})
	if err := g.Wait(); err != nil {
		if calendar.ErrorCode(err) == calendar.CodeForbidden {
			return nil, errEntryNotFound() // a FREE_BUSY member reads no entry, so no history
		}
		return nil, err
	}
	r, e, err := entryRecordOfItem(acc.items[entryKey(key.CalendarID, key.EntryID)])
	if err != nil {
		return nil, err
	}
	if !e.SeesDetails(acc.viewer, acc.member.Role, false) {
		return nil, errEntryNotFound()
	}
	if len(records) == 0 && derivedCreated(e, r.Version+r.Xrev) {
		records = []historyRecord{createdRecord(e).stored(time.Time{})}
	}
	return historyPage(currentHistory(records), after, p.First), nil
}

// historyRecords reads an entry's or series' history items, strongly
// consistent (a write's record is read by the next request), newest first.
func (s *Store) historyRecords(ctx context.Context, calendarID, rootID string) ([]historyRecord, error) {
	in := keyQuery{pkAttr: attrPK, partition: calendarPartition(calendarID), sk: skPrefix(attrSK, historyPrefix(rootID)),
		consistent: true}.input(s.table)
	var out []historyRecord
	for {
		page, err := s.reads.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("read history of %s: %w", rootID, err)
		}
		for _, it := range page.Items {
			r, err := unmarshal[historyRecord](it)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	slices.SortFunc(out, func(a, b historyRecord) int { return b.Seq - a.Seq })
	return out, nil
}

// currentHistory keeps, of records newest first, those of the entry's stay
// in this calendar: up to and including the newest that begins it
// (calendar.HistoryAction.Begins); older ones are of an earlier stay.
func currentHistory(records []historyRecord) []historyRecord {
	for i, r := range records {
		if calendar.HistoryAction(r.Action).Begins() {
			return records[:i+1]
		}
	}
	return records
}

// historyPage is the page of records (newest first) after seq after (0:
// from the newest), first long.
func historyPage(records []historyRecord, after, first int) *calendar.HistoryPage {
	if after > 0 {
		i, _ := slices.BinarySearchFunc(records, after, func(r historyRecord, seq int) int { return seq - r.Seq })
		for i < len(records) && records[i].Seq >= after {
			i++
		}
		records = records[i:]
	}
	p := &calendar.HistoryPage{HasNextPage: len(records) > first}
	for _, r := range records[:min(first, len(records))] {
		p.Records = append(p.Records, r.record())
	}
	if n := len(p.Records); n > 0 {
		p.EndCursor = strconv.Itoa(p.Records[n-1].Seq)
	}
	return p
}
