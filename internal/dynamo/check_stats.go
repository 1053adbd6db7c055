package dynamo

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// statsSeen is what the table holds of one user's stats.
type statsSeen struct {
	totals, legacy item
	nodes          statsCounts
}

// addStats files one of a user's stats items.
func (c *checker) addStats(it item) error {
	user := strings.TrimPrefix(stringAttr(it, attrPK), userPartition(""))
	seen := c.stats[user]
	if seen == nil {
		seen = &statsSeen{nodes: statsCounts{}}
		c.stats[user] = seen
	}
	switch sk := stringAttr(it, attrSK); stringAttr(it, "entityType") {
	case entityStats:
		seen.legacy = it
	case entityStatsTotal:
		seen.totals = it
	default:
		node, ok := parseStatsNodeKey(sk)
		if !ok {
			c.problem("user %s: stats node %s has a key no tree has", user, sk)
			return nil
		}
		return seen.nodes.decodeNode(node, it)
	}
	return nil
}

// count adds an entry or series item to its creator's expected tally,
// whatever its calendar's state: a calendar's deletion removes each with
// its count.
func (c *checker) count(it item) {
	e, ok := countedEntry(it)
	if !ok {
		return
	}
	ch := calendar.TallyChange("", nil, e)
	if t := ch[e.CreatedBy]; t != nil {
		t.Created = time.Time{}
	}
	calendar.MergeTallies(c.counted, ch)
	if e.Kind != calendar.KindTask && e.PreviousSeriesID == "" && e.CreatedAt.After(c.created[e.CreatedBy]) {
		c.created[e.CreatedBy] = e.CreatedAt
	}
}

// checkStats compares each user's stats items (the legacy item's counts
// added to the trees', as a read adds them) with what their entries add up
// to. Counters of starts that end a day or more before now are left out: no
// read reaches them, and a fold or an earlier version's compaction drops
// starts two days past. Stats items of deleted users are left alone: an
// entry of theirs left in a calendar they shared can still change one.
func (c *checker) checkStats() {
	now := time.Now()
	for id := range c.users {
		if c.pending[pendingUser+"#"+id] {
			continue
		}
		seen := c.stats[id]
		if seen == nil {
			seen = &statsSeen{nodes: statsCounts{}}
		}
		got, err := statsFrom(calendar.StatsTimeAt(now, ""), seen.totals, statsCounts{})
		if err != nil {
			c.problem("user %s: %v", id, err)
			continue
		}
		legacy, err := decodeLegacyStats(seen.legacy)
		if err != nil {
			c.problem("user %s: %v", id, err)
			continue
		}
		got = got.Plus(legacy.Stats(now))
		want := c.counted[id]
		if want == nil {
			want = &calendar.Tally{}
		}
		if got.TotalEvents != want.Events || got.TotalTasks != want.Tasks {
			c.problem("user %s: stats count %d events and %d tasks, their entries %d and %d", id, got.TotalEvents, got.TotalTasks, want.Events, want.Tasks)
		}
		if got.LastEventCreated.Before(c.created[id]) {
			c.problem("user %s: stats say the last event was created at %s, but one was at %s", id, got.LastEventCreated, c.created[id])
		}
		counts := seen.nodes // the legacy item's counts go with them
		for _, marks := range []struct {
			starts bool
			counts map[calendar.Mark]int
		}{{true, legacy.Starts}, {false, legacy.Dues}} {
			for m, n := range marks.counts {
				tree, x := markPosition(marks.starts, m)
				counts.addMark(tree, x, n)
			}
		}
		c.compareNodes(id, counts, tallyCounts(want), now.Add(-24*time.Hour).UnixMilli())
	}
}

// compareNodes reports the counters of got that differ from want's, but
// for starts ending at or before horizon (Unix ms), and counters of
// children a node does not have.
func (c *checker) compareNodes(user string, got, want statsCounts, horizon int64) {
	nodes := map[statsNode]bool{}
	for n := range got {
		nodes[n] = true
	}
	for n := range want {
		nodes[n] = true
	}
	for _, node := range sortedNodes(statsCounts(mapOf(nodes))) {
		children := map[int64]bool{}
		for ch := range got[node] {
			children[ch] = true
		}
		for ch := range want[node] {
			children[ch] = true
		}
		for _, child := range slices.Sorted(maps.Keys(children)) {
			if !node.tree.hasChild(node.level, child) {
				c.problem("user %s: stats node %s counts %d at child %d, which it does not have", user, statsNodeKey(user, node).SK, got[node][child], child)
				continue
			}
			if node.tree.starts && node.childEnd(child) <= horizon {
				continue
			}
			if g, w := got[node][child], want[node][child]; g != w {
				c.problem("user %s: stats node %s counts %d at child %d, their entries %d", user, statsNodeKey(user, node).SK, g, child, w)
			}
		}
	}
}

// mapOf turns a set of nodes into counts with no counters, for sortedNodes.
func mapOf(nodes map[statsNode]bool) map[statsNode]map[int64]int {
	out := map[statsNode]map[int64]int{}
	for n := range nodes {
		out[n] = nil
	}
	return out
}
