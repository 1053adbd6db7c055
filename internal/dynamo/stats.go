package dynamo

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Stats: what each write changes in its users' calendar.Tally is added, in
// the write's own transaction (commit, from the entries its Tally calls name;
// write.go), to small items of each user's partition, so that a write
// and its counts commit or fail together and concurrent writers never read
// them:
//
//   - the totals item (statsTotalsKey): events and tasks, by ADD, and the
//     latest creation and completion (Unix ms), by SET on condition that
//     the one kept is not later (commit drops a moment that lost);
//   - the nodes of four trees (stats_tree.go) counting one-off events by
//     start and open one-off tasks by due time, at instants and on days,
//     by ADD: one update per node whose counters change.
//
// No item grows with what the user holds: a node has at most 100 counters
// and the totals four numbers. A write of one entry adds at most one action
// per node on the paths of its old and new start or due time (2 for a
// quarter-hour start, 5 for a due time at a whole minute; 5 and 8 at most)
// and one for the totals.
//
// Reading (stats_read.go) is one TransactGetItems of at most 34 items,
// serializable with the writes, so the counts are exact at every instant;
// the clock moving needs no write. The item a user's stats were kept in
// before (statsKey) is read with them and folded into the trees
// (stats_legacy.go).
const (
	attrEvents        = "events"
	attrTasks         = "tasks"
	attrLastCreated   = "lastCreated"
	attrLastCompleted = "lastCompleted"
)

// statsTotalsRecord is a user's totals item as read; writes change it by
// ADD and a conditional SET (totalsUpdate).
type statsTotalsRecord struct {
	Events        int   `dynamodbav:"events"`
	Tasks         int   `dynamodbav:"tasks"`
	LastCreated   int64 `dynamodbav:"lastCreated"`   // Unix ms, 0 for none
	LastCompleted int64 `dynamodbav:"lastCompleted"` // Unix ms, 0 for none
}

// statsOps returns the updates that add ts to their users' items, in user
// order, then node order: each user's nodes, then their totals.
func statsOps(ts map[string]*calendar.Tally) []txOp {
	var ops []txOp
	for _, user := range slices.Sorted(maps.Keys(ts)) {
		t := ts[user]
		counts := tallyCounts(t)
		for _, node := range sortedNodes(counts) {
			ops = append(ops, nodeUpdate(user, node, counts[node]))
		}
		if t.Events != 0 || t.Tasks != 0 || !t.Created.IsZero() || !t.Completed.IsZero() {
			ops = append(ops, totalsUpdate(user, t))
		}
	}
	return ops
}

// tallyCounts is what t adds to the nodes of its user's trees.
func tallyCounts(t *calendar.Tally) statsCounts {
	c := statsCounts{}
	for _, marks := range []struct {
		starts bool
		counts map[calendar.Mark]int
	}{{true, t.Starts}, {false, t.Dues}} {
		for m, n := range marks.counts {
			tree, x := markPosition(marks.starts, m)
			c.addMark(tree, x, n)
		}
	}
	c.prune()
	return c
}

func sortedNodes(c statsCounts) []statsNode {
	nodes := slices.Collect(maps.Keys(c))
	slices.SortFunc(nodes, func(a, b statsNode) int {
		return cmp.Or(strings.Compare(a.tree.name, b.tree.name), cmp.Compare(a.level, b.level), cmp.Compare(a.index, b.index))
	})
	return nodes
}

// updateBuilder collects the parts of an update expression.
type updateBuilder struct {
	names      map[string]string
	values     map[string]types.AttributeValue
	sets, adds []string
}

func newUpdate(entityType string) *updateBuilder {
	u := &updateBuilder{names: map[string]string{}, values: map[string]types.AttributeValue{}}
	u.set("entityType", &types.AttributeValueMemberS{Value: entityType})
	return u
}

// placeholders names attribute name and a value for it.
func (u *updateBuilder) placeholders(name string, v types.AttributeValue) (n, p string) {
	i := strconv.Itoa(len(u.names))
	n, p = "#a"+i, ":a"+i
	u.names[n], u.values[p] = name, v
	return n, p
}

func (u *updateBuilder) set(name string, v types.AttributeValue) {
	n, p := u.placeholders(name, v)
	u.sets = append(u.sets, n+" = "+p)
}

func (u *updateBuilder) add(name string, v types.AttributeValue) {
	n, p := u.placeholders(name, v)
	u.adds = append(u.adds, n+" "+p)
}

// update returns the update of key, with condition cond ("" for none).
func (u *updateBuilder) update(key itemKey, cond string) *types.Update {
	expr := "SET " + strings.Join(u.sets, ", ")
	if len(u.adds) > 0 {
		expr += " ADD " + strings.Join(u.adds, ", ")
	}
	up := &types.Update{Key: key.av(), UpdateExpression: aws.String(expr),
		ExpressionAttributeNames: u.names, ExpressionAttributeValues: u.values}
	if cond != "" {
		up.ConditionExpression = aws.String(cond)
		up.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return up
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// nodeUpdate adds counts to a node of user's. It has no condition: it
// cannot fail.
func nodeUpdate(user string, node statsNode, counts map[int64]int) txOp {
	u := newUpdate(entityStatsNode)
	for _, child := range slices.Sorted(maps.Keys(counts)) {
		u.add(countAttr(child), number(int64(counts[child])))
	}
	k := statsNodeKey(user, node)
	op := txOp{key: k}
	op.action.Update = u.update(k, "")
	return op
}

// totalsUpdate adds t's totals to user's totals item and sets its moments,
// on condition that the item keeps none later.
func totalsUpdate(user string, t *calendar.Tally) txOp {
	u := newUpdate(entityStatsTotal)
	if t.Events != 0 {
		u.add(attrEvents, number(int64(t.Events)))
	}
	if t.Tasks != 0 {
		u.add(attrTasks, number(int64(t.Tasks)))
	}
	var conds []string
	for _, m := range []struct {
		name string
		at   time.Time
	}{{attrLastCreated, t.Created}, {attrLastCompleted, t.Completed}} {
		if m.at.IsZero() {
			continue
		}
		n, p := u.placeholders(m.name, number(m.at.UnixMilli()))
		u.sets = append(u.sets, n+" = "+p)
		conds = append(conds, "(attribute_not_exists("+n+") OR "+n+" <= "+p+")")
	}
	k := statsTotalsKey(user)
	op := txOp{key: k}
	op.action.Update = u.update(k, strings.Join(conds, " AND "))
	return op
}

// momentsLost handles a user's totals update whose condition failed: the
// item (old, as it was, or read again if the engine did not return it)
// keeps a later creation or completion than the write's, which the write
// then leaves out. It reports whether it left one out.
func (s *Store) momentsLost(ctx context.Context, counted map[string]*calendar.Tally, key itemKey, old item) (bool, error) {
	if len(old) == 0 {
		it, _, err := s.getItem(ctx, key)
		if err != nil {
			return false, err
		}
		old = it
	}
	return dropLostMoments(counted, strings.TrimPrefix(key.PK, userPartition("")), old), nil
}

// dropLostMoments drops from ts the moments of the user whose totals item
// old is (as it was when their update's condition failed) that it already
// keeps or passed, and reports whether it dropped any.
func dropLostMoments(ts map[string]*calendar.Tally, user string, old item) bool {
	t := ts[user]
	if t == nil {
		return false
	}
	r, err := unmarshal[statsTotalsRecord](old)
	if err != nil {
		return false
	}
	dropped := false
	for _, m := range []struct {
		kept int64
		at   *time.Time
	}{{r.LastCreated, &t.Created}, {r.LastCompleted, &t.Completed}} {
		if !m.at.IsZero() && m.at.UnixMilli() < m.kept {
			*m.at, dropped = time.Time{}, true
		}
	}
	return dropped
}
