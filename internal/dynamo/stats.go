package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Stats: each user's calendar.Tally is one item (statsKey). Every transaction
// that writes entries adds what it changes in their creators' tallies to it
// (transact, from the entries its actions carry as was and is): counts by
// ADD, which commutes, so concurrent writers never need to read it, and a
// write and its tally commit or fail together. Reading the stats is one
// consistent GetItem.
//
// The item's attributes:
//   - events, tasks: numbers;
//   - created, completed: number sets of Unix milliseconds, of which only the
//     largest matters (ADD is a union, so concurrent writers keep the latest);
//   - tz: the user's time zone, copied from their preferences when those are
//     written, so that dated entries are counted by the user's days;
//   - one number per moment entries are counted at: "si<ms>" and "sd<date>"
//     for events' starts, "di<ms>" and "dd<date>" for open tasks' due times.
//
// Counts that reach 0, starts in the past and all but the latest created and
// completed moments are left behind; compactStats removes them after every
// statsCompactEvery-th write of a user that can leave them (per instance), so
// the item holds about one attribute per future event and open task of its
// user, plus at most a few dozen leftovers per instance writing for them. It
// is never done on a read, which stays one GetItem. DynamoDB's 400 KB item
// limit bounds a user to some 20,000 distinct such moments.
const (
	attrEvents    = "events"
	attrTasks     = "tasks"
	attrCreated   = "created"
	attrCompleted = "completed"
	attrZone      = "tz"

	statsCompactEvery = 32
)

// markAttr names the attribute counting entries at m; kind is 's' for starts
// and 'd' for due times.
func markAttr(kind byte, m calendar.Mark) string {
	if m.At.IsZero() {
		return string(kind) + "d" + m.Day.String()
	}
	return string(kind) + "i" + strconv.FormatInt(m.At.UnixMilli(), 10)
}

// parseMarkAttr reads markAttr's names; ok is false for other attributes.
func parseMarkAttr(name string) (kind byte, m calendar.Mark, ok bool) {
	if len(name) < 3 || (name[0] != 's' && name[0] != 'd') {
		return 0, m, false
	}
	switch name[1] {
	case 'i':
		ms, err := strconv.ParseInt(name[2:], 10, 64)
		if err != nil {
			return 0, m, false
		}
		return name[0], calendar.Mark{At: time.UnixMilli(ms).UTC()}, true
	case 'd':
		d, err := calendar.ReadDate(name[2:])
		if err != nil {
			return 0, m, false
		}
		return name[0], calendar.Mark{Day: d}, true
	}
	return 0, m, false
}

// tallies works out what ops change in users' tallies; actor makes the write.
func tallies(actor string, ops []txOp) map[string]*calendar.Tally {
	var out map[string]*calendar.Tally
	for _, op := range ops {
		if op.was == nil && op.is == nil {
			continue
		}
		if out == nil {
			out = map[string]*calendar.Tally{}
		}
		calendar.MergeTallies(out, calendar.TallyChange(actor, op.was, op.is))
	}
	return out
}

// tallyOps returns the updates that add ts to their users' items, in user
// order.
func tallyOps(ts map[string]*calendar.Tally) []txOp {
	ops := make([]txOp, 0, len(ts))
	for _, user := range slices.Sorted(maps.Keys(ts)) {
		ops = append(ops, tallyUpdate(user, ts[user]))
	}
	return ops
}

// tallyUpdate adds t to user's item. It has no condition: it cannot fail.
func tallyUpdate(user string, t *calendar.Tally) txOp {
	names := map[string]string{"#et": "entityType"}
	values := map[string]types.AttributeValue{":et": &types.AttributeValueMemberS{Value: entityStats}}
	var adds []string
	add := func(name string, v types.AttributeValue) {
		n, p := "#a"+strconv.Itoa(len(adds)), ":a"+strconv.Itoa(len(adds))
		names[n], values[p] = name, v
		adds = append(adds, n+" "+p)
	}
	num := func(n int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(n)} }
	if t.Events != 0 {
		add(attrEvents, num(t.Events))
	}
	if t.Tasks != 0 {
		add(attrTasks, num(t.Tasks))
	}
	counts := map[string]int{}
	for m, n := range t.Starts {
		counts[markAttr('s', m)] += n
	}
	for m, n := range t.Dues {
		counts[markAttr('d', m)] += n
	}
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		add(name, num(counts[name]))
	}
	for _, s := range []struct {
		name string
		ts   []time.Time
	}{{attrCreated, t.Created}, {attrCompleted, t.Completed}} {
		if len(s.ts) > 0 {
			add(s.name, &types.AttributeValueMemberNS{Value: millis(s.ts)})
		}
	}
	expr := "SET #et = :et"
	if len(adds) > 0 {
		expr += " ADD " + strings.Join(adds, ", ")
	}
	k := statsKey(user)
	op := txOp{key: k}
	op.action.Update = &types.Update{
		Key: k.av(), UpdateExpression: aws.String(expr),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	}
	return op
}

// millis returns ts as distinct Unix milliseconds, for a number set.
func millis(ts []time.Time) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, strconv.FormatInt(t.UnixMilli(), 10))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// decodeTally reads a stats item (nil for none: nothing counted yet).
func decodeTally(it item) (calendar.Tally, error) {
	t := calendar.Tally{Starts: map[calendar.Mark]int{}, Dues: map[calendar.Mark]int{}}
	for name, av := range it {
		var err error
		switch name {
		case attrEvents:
			t.Events, err = nAttr(av)
		case attrTasks:
			t.Tasks, err = nAttr(av)
		case attrZone:
			t.TimeZone, err = sAttr(av)
		case attrCreated:
			t.Created, err = msSet(av)
		case attrCompleted:
			t.Completed, err = msSet(av)
		default:
			kind, m, ok := parseMarkAttr(name)
			if !ok {
				continue
			}
			var n int
			switch n, err = nAttr(av); {
			case n == 0:
			case kind == 's':
				t.Starts[m] = n
			default:
				t.Dues[m] = n
			}
		}
		if err != nil {
			return t, fmt.Errorf("stats attribute %s: %w", name, err)
		}
	}
	return t, nil
}

func msSet(av types.AttributeValue) ([]time.Time, error) {
	ns, ok := av.(*types.AttributeValueMemberNS)
	if !ok {
		return nil, fmt.Errorf("not a number set")
	}
	out := make([]time.Time, len(ns.Value))
	for i, v := range ns.Value {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = time.UnixMilli(ms).UTC()
	}
	return out, nil
}

// Stats implements calendar.StatsService with one consistent GetItem.
func (s *Store) Stats(ctx context.Context) (calendar.Stats, error) {
	viewer, err := calendar.ViewerID(ctx)
	if err != nil {
		return calendar.Stats{}, err
	}
	it, _, err := s.getItem(ctx, statsKey(viewer))
	if err != nil {
		return calendar.Stats{}, err
	}
	t, err := decodeTally(it)
	if err != nil {
		return calendar.Stats{}, fmt.Errorf("stats of %s: %w", viewer, err)
	}
	return t.Stats(s.now()), nil
}

// compactStats removes from user's item, as read in it, what no count needs
// any more: counts of 0 (if still 0), starts more than two days past (no
// zone's today reaches back further), and all but the latest created and
// completed moments. It is best effort: a write that changed a count it would
// remove makes it do nothing, and a failure is only logged.
func (s *Store) compactStats(ctx context.Context, user string, it item, now time.Time) {
	names, values := map[string]string{}, map[string]types.AttributeValue{}
	var removes, deletes, conds []string
	gone := now.Add(-48 * time.Hour)
	for _, name := range slices.Sorted(maps.Keys(it)) {
		av := it[name]
		n := "#r" + strconv.Itoa(len(names))
		switch name {
		case attrCreated, attrCompleted:
			ns, ok := av.(*types.AttributeValueMemberNS)
			if !ok || len(ns.Value) < 2 {
				continue
			}
			ts, err := msSet(av)
			if err != nil {
				continue
			}
			keep := strconv.FormatInt(slices.MaxFunc(ts, time.Time.Compare).UnixMilli(), 10)
			old := slices.DeleteFunc(slices.Clone(ns.Value), func(v string) bool { return v == keep })
			p := ":d" + strconv.Itoa(len(values))
			names[n], values[p] = name, &types.AttributeValueMemberNS{Value: old}
			deletes = append(deletes, n+" "+p)
			continue
		}
		kind, m, ok := parseMarkAttr(name)
		if !ok {
			continue
		}
		count, err := nAttr(av)
		switch {
		case err != nil:
		case kind == 's' && startGone(m, gone):
			names[n] = name
			removes = append(removes, n)
		case count == 0:
			p := ":z" + strconv.Itoa(len(values))
			names[n], values[p] = name, &types.AttributeValueMemberN{Value: "0"}
			removes = append(removes, n)
			conds = append(conds, n+" = "+p)
		}
	}
	if len(removes) == 0 && len(deletes) == 0 {
		return
	}
	var expr []string
	if len(removes) > 0 {
		expr = append(expr, "REMOVE "+strings.Join(removes, ", "))
	}
	if len(deletes) > 0 {
		expr = append(expr, "DELETE "+strings.Join(deletes, ", "))
	}
	in := &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: statsKey(user).av(), UpdateExpression: aws.String(strings.Join(expr, " ")),
		ExpressionAttributeNames: names,
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	if len(conds) > 0 {
		in.ConditionExpression = aws.String(strings.Join(conds, " AND "))
	}
	if _, err := s.db.UpdateItem(ctx, in); err != nil {
		if _, ok := errors.AsType[*types.ConditionalCheckFailedException](err); !ok {
			s.log.WarnContext(ctx, "compacting a user's stats item", "user", user, "err", err)
		}
	}
}

// startGone reports whether an event start at m is before gone: for a day,
// before gone's UTC date.
func startGone(m calendar.Mark, gone time.Time) bool {
	if m.At.IsZero() {
		return m.Day.Before(calendar.DateOf(gone))
	}
	return m.At.Before(gone)
}

// compactAfterWrite counts, per user, the committed tally changes that can
// leave something behind (a count going down, a moment added), and compacts
// the user's item at every statsCompactEvery-th of them. The counts are this
// instance's, in memory, and forgotten past maxJunkUsers users: each instance
// then compacts an active user's item at least that often.
func (s *Store) compactAfterWrite(ctx context.Context, ts map[string]*calendar.Tally) {
	for user, t := range ts {
		if !leavesJunk(t) || !s.junkWrite(user) {
			continue
		}
		it, found, err := s.getItem(ctx, statsKey(user))
		if err != nil || !found {
			continue
		}
		s.compactStats(ctx, user, it, s.now())
	}
}

// maxJunkUsers bounds the users compactAfterWrite counts at once.
const maxJunkUsers = 10000

// junkWrite counts one write that can leave something behind in user's item
// and reports whether it is time to compact it.
func (s *Store) junkWrite(user string) bool {
	s.junkMu.Lock()
	defer s.junkMu.Unlock()
	if s.junk == nil || len(s.junk) >= maxJunkUsers {
		s.junk = map[string]int{}
	}
	s.junk[user]++
	if s.junk[user] < statsCompactEvery {
		return false
	}
	delete(s.junk, user)
	return true
}

// leavesJunk reports whether adding t can leave an attribute that no count
// needs: a count that may reach 0, or one more creation or completion moment.
func leavesJunk(t *calendar.Tally) bool {
	if len(t.Created) > 0 || len(t.Completed) > 0 {
		return true
	}
	for _, counts := range []map[calendar.Mark]int{t.Starts, t.Dues} {
		for _, n := range counts {
			if n < 0 {
				return true
			}
		}
	}
	return false
}

// zoneOp copies a user's time zone into their stats item.
func zoneOp(user, zone string) txOp {
	k := statsKey(user)
	op := txOp{key: k}
	up := &types.Update{Key: k.av(), ExpressionAttributeNames: map[string]string{"#z": attrZone, "#et": "entityType"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":et": &types.AttributeValueMemberS{Value: entityStats}}}
	if zone == "" {
		up.UpdateExpression = aws.String("SET #et = :et REMOVE #z")
	} else {
		up.UpdateExpression = aws.String("SET #et = :et, #z = :z")
		up.ExpressionAttributeValues[":z"] = &types.AttributeValueMemberS{Value: zone}
	}
	op.action.Update = up
	return op
}
