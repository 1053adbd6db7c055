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

// Before the stats trees, a user's whole tally was one item (statsKey),
// which grew by an attribute per moment their events started and their
// tasks were due. Such an item, left by an earlier version or an import of
// its export, still counts: a read adds it to the trees (its counts are a
// part of the user's, as the trees' are), and nothing of this version
// writes it but the fold, which moves its per-moment counts into the trees
// a few transactions per read (foldLegacyStats). What stays is a small
// item: events, tasks, the latest creation and completion, and the zone
// the user had (no longer read: the user item says).
//
// Its attributes:
//   - events, tasks: numbers;
//   - created, completed: number sets of Unix milliseconds, of which only the
//     largest matters;
//   - tz: the user's time zone then;
//   - one number per moment entries are counted at: "si<ms>" and "sd<date>"
//     for events' starts, "di<ms>" and "dd<date>" for open tasks' due times.
const (
	attrCreated   = "created"
	attrCompleted = "completed"
	attrZone      = "tz"
)

// parseMarkAttr reads the name of a legacy item's per-moment count; ok is
// false for other attributes.
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

// decodeLegacyStats reads a legacy stats item.
func decodeLegacyStats(it item) (calendar.Tally, error) {
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
			t.Created, err = latestOf(av)
		case attrCompleted:
			t.Completed, err = latestOf(av)
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
			return t, fmt.Errorf("legacy stats attribute %s: %w", name, err)
		}
	}
	return t, nil
}

// latestOf reads the largest of a number set of Unix milliseconds.
func latestOf(av types.AttributeValue) (time.Time, error) {
	ns, ok := av.(*types.AttributeValueMemberNS)
	if !ok {
		return time.Time{}, fmt.Errorf("not a number set")
	}
	var l time.Time
	for _, v := range ns.Value {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return time.Time{}, err
		}
		if t := time.UnixMilli(ms).UTC(); t.After(l) {
			l = t
		}
	}
	return l, nil
}

// Folding: each transaction removes up to foldAttrs per-moment counts from
// the legacy item, on condition that each still holds what was read (an
// instance of the earlier version may still add to it), and adds them to
// the trees' nodes (at most foldNodes, for DynamoDB's 100 actions); starts
// more than two days past are removed without (no read reaches back to
// them). A read runs at most foldsPerRead such transactions, so a legacy
// item of 20,000 moments is gone after a few reads, and no read waits long.
const (
	foldAttrs    = 100
	foldNodes    = 98
	foldsPerRead = 8
)

// foldLegacyStats moves up to foldsPerRead transactions' worth of the
// per-moment counts of user's legacy item it into the trees, and removes
// all but the latest of its creation and completion moments. It is best
// effort and changes no count, so a read's answer does not wait for it to
// succeed: a failure is only logged, and the next read goes on.
func (s *Store) foldLegacyStats(ctx context.Context, user string, it item) {
	marks, compact := legacyLeftovers(it)
	gone := s.now().Add(-48 * time.Hour)
	for i := 0; i < foldsPerRead && (len(marks) > 0 || len(compact) > 0); i++ {
		ops, n := foldOps(user, it, marks, compact, gone)
		marks, compact = marks[n:], nil
		in := &dynamodb.TransactWriteItemsInput{}
		for _, op := range ops {
			in.TransactItems = append(in.TransactItems, withTable(op.action, s.table))
		}
		if _, err := s.db.TransactWriteItems(ctx, in); err != nil {
			if _, ok := errors.AsType[*types.TransactionCanceledException](err); !ok {
				s.log.WarnContext(ctx, "folding a user's stats item into the stats trees", "user", user, "err", err)
			}
			return // changed meanwhile or contended: the next read goes on
		}
	}
}

// legacyLeftovers lists what a fold takes from a legacy item: its
// per-moment counts, by name, and by set the elements to delete (all but
// the latest).
func legacyLeftovers(it item) (marks []string, compact map[string][]string) {
	for _, name := range slices.Sorted(maps.Keys(it)) {
		if _, _, ok := parseMarkAttr(name); ok {
			marks = append(marks, name)
		}
	}
	for _, name := range []string{attrCreated, attrCompleted} {
		ns, ok := it[name].(*types.AttributeValueMemberNS)
		if !ok || len(ns.Value) < 2 {
			continue
		}
		latest, err := latestOf(ns)
		if err != nil {
			continue
		}
		keep := strconv.FormatInt(latest.UnixMilli(), 10)
		if compact == nil {
			compact = map[string][]string{}
		}
		compact[name] = slices.DeleteFunc(slices.Clone(ns.Value), func(v string) bool { return v == keep })
	}
	return marks, compact
}

// foldOps builds one fold transaction: the legacy item's update, removing
// the first of marks (each on condition it still holds what it read) and
// deleting the set elements compact lists, and the updates adding the
// removed counts to the nodes of user's trees. It says how many of marks it
// took (at least one, when there are any).
func foldOps(user string, it item, marks []string, compact map[string][]string, gone time.Time) ([]txOp, int) {
	counts := statsCounts{}
	names, values := map[string]string{}, map[string]types.AttributeValue{}
	var removes, conds, deletes []string
	taken := 0
	for _, name := range marks {
		if taken == foldAttrs {
			break
		}
		kind, m, _ := parseMarkAttr(name)
		n, err := nAttr(it[name])
		if err != nil { // left as it is: the read reports it
			taken++
			continue
		}
		if n != 0 && !(kind == 's' && startGone(m, gone)) {
			tree, x := markPosition(kind == 's', m)
			fresh := 0
			for _, nc := range tree.path(x) {
				if counts[nc.node] == nil {
					fresh++
				}
			}
			if taken > 0 && len(counts)+fresh > foldNodes {
				break
			}
			counts.addMark(tree, x, n)
		}
		r, v := "#r"+strconv.Itoa(taken), ":r"+strconv.Itoa(taken)
		names[r], values[v] = name, it[name]
		removes = append(removes, r)
		conds = append(conds, r+" = "+v)
		taken++
	}
	for _, name := range slices.Sorted(maps.Keys(compact)) {
		d, v := "#d"+name, ":d"+name
		names[d], values[v] = name, &types.AttributeValueMemberNS{Value: compact[name]}
		deletes = append(deletes, d+" "+v)
	}
	var expr []string
	if len(removes) > 0 {
		expr = append(expr, "REMOVE "+strings.Join(removes, ", "))
	}
	if len(deletes) > 0 {
		expr = append(expr, "DELETE "+strings.Join(deletes, ", "))
	}
	k := statsKey(user)
	legacy := txOp{key: k}
	legacy.action.Update = &types.Update{Key: k.av(), UpdateExpression: aws.String(strings.Join(expr, " ")),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values}
	if len(conds) > 0 {
		legacy.action.Update.ConditionExpression = aws.String(strings.Join(conds, " AND "))
	}
	ops := []txOp{legacy}
	counts.prune()
	for _, node := range sortedNodes(counts) {
		ops = append(ops, nodeUpdate(user, node, counts[node]))
	}
	return ops, taken
}

// startGone reports whether an event start at m is before gone (for a day,
// before gone's UTC date): no read's window reaches back to it.
func startGone(m calendar.Mark, gone time.Time) bool {
	if m.At.IsZero() {
		return m.Day.Before(calendar.DateOf(gone.UTC()))
	}
	return m.At.Before(gone)
}
