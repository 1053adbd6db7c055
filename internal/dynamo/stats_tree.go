package dynamo

import (
	"strconv"
	"strings"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Stats trees. A user's one-off events and open one-off tasks are counted
// by position (an instant in Unix milliseconds, or a day numbered from
// 1970-01-01) in trees of small items, so that no item grows with what the
// user holds and any "how many at or after x" is read from a few items.
//
// A tree has levels of nodes; a node at level l covers spans[l] positions
// and holds one counter per child (a node of the next level, or a single
// position under the last level): at most 100 counters, whatever the user
// holds. A rooted tree's level 0 is one node over every position; otherwise
// level-0 nodes are spans[0] long and a read takes the ones it needs.
//
// A mark at x is counted in its level-0 node and, below it, in each node
// that x lies strictly inside: a node that starts at x counts nothing of it,
// nor do the nodes under it. A quarter-hour start is counted in two nodes
// (its day and hour), a due time at a whole minute in five. Then the marks
// at or after x are, summed over the nodes on x's own path (statsTree.path):
// the counters of the children after x's, plus, in the last node of the
// path, the counter of x's child. The marks of x's child that the next node
// leaves out are the ones at the child's start, before x.
type statsTree struct {
	name   string  // in the nodes' keys
	starts bool    // it counts event starts, which reads need only from yesterday on
	unit   int64   // milliseconds per position
	rooted bool    // level 0 is one node over everything
	spans  []int64 // positions a node of each level covers (spans[0] unused when rooted)
}

const (
	msSecond = 1000
	msMinute = 60 * msSecond
	msHour   = 60 * msMinute
	msDay    = 24 * msHour
)

// The four trees: event starts and task due times, at instants (positions
// in milliseconds) and on days (positions in days). Starts are only read
// within the upcoming window, so their trees start at days (or 100 days);
// due times are read back to the beginning, so theirs have a root.
var (
	startsAt = &statsTree{name: "SI", starts: true, unit: 1, spans: []int64{msDay, msHour, msMinute, msSecond, 100}}
	startsOn = &statsTree{name: "SD", starts: true, unit: msDay, spans: []int64{100}}
	duesAt   = &statsTree{name: "DI", unit: 1, rooted: true, spans: []int64{0, 10000 * msDay, 100 * msDay, msDay, msHour, msMinute, msSecond, 100}}
	duesOn   = &statsTree{name: "DD", unit: msDay, rooted: true, spans: []int64{0, 10000, 100}}

	statsTrees = []*statsTree{startsAt, startsOn, duesAt, duesOn}
)

// statsNode is one node of a tree: its level and its index among the nodes
// of that level (floor(position / span); 0 for a root).
type statsNode struct {
	tree  *statsTree
	level int
	index int64
}

// nodeCount is one counter of a node: its child's index in the node.
type nodeCount struct {
	node  statsNode
	child int64
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// childSpan is how many positions a child of a level-l node covers.
func (t *statsTree) childSpan(l int) int64 {
	if l+1 < len(t.spans) {
		return t.spans[l+1]
	}
	return 1
}

// at is the counter of x's child in x's node at level l.
func (t *statsTree) at(l int, x int64) nodeCount {
	c := floorDiv(x, t.childSpan(l))
	if t.rooted && l == 0 {
		return nodeCount{statsNode{t, 0, 0}, c}
	}
	n := floorDiv(x, t.spans[l])
	return nodeCount{statsNode{t, l, n}, c - n*(t.spans[l]/t.childSpan(l))}
}

// path is the counters a mark at x adds to: its level-0 node's, and each
// deeper node's while x lies strictly inside it.
func (t *statsTree) path(x int64) []nodeCount {
	out := []nodeCount{t.at(0, x)}
	for l := 1; l < len(t.spans) && x-floorDiv(x, t.spans[l])*t.spans[l] != 0; l++ {
		out = append(out, t.at(l, x))
	}
	return out
}

// hasChild reports whether a level-l node has a child numbered child (a
// root has any).
func (t *statsTree) hasChild(l int, child int64) bool {
	return t.rooted && l == 0 || child >= 0 && child < t.spans[l]/t.childSpan(l)
}

// childEnd is where child of n ends, in Unix milliseconds (n not a root).
func (n statsNode) childEnd(child int64) int64 {
	return (n.index*n.tree.spans[n.level] + (child+1)*n.tree.childSpan(n.level)) * n.tree.unit
}

// statsCounts holds counters read or to be added, by node and child.
type statsCounts map[statsNode]map[int64]int

func (c statsCounts) add(nc nodeCount, n int) {
	if c[nc.node] == nil {
		c[nc.node] = map[int64]int{}
	}
	c[nc.node][nc.child] += n
}

// addMark counts n marks at x in t.
func (c statsCounts) addMark(t *statsTree, x int64, n int) {
	for _, nc := range t.path(x) {
		c.add(nc, n)
	}
}

// prune drops counters of 0 and nodes left without any.
func (c statsCounts) prune() {
	for node, counts := range c {
		for child, n := range counts {
			if n == 0 {
				delete(counts, child)
			}
		}
		if len(counts) == 0 {
			delete(c, node)
		}
	}
}

// atOrAfter is how many marks at or after x the level-0 node holding x
// counts (for a rooted tree, the whole tree).
func (c statsCounts) atOrAfter(t *statsTree, x int64) int {
	p := t.path(x)
	n := 0
	for i, nc := range p {
		for child, k := range c[nc.node] {
			if child > nc.child || child == nc.child && i == len(p)-1 {
				n += k
			}
		}
	}
	return n
}

// total is how many marks node counts.
func (c statsCounts) total(node statsNode) int {
	n := 0
	for _, k := range c[node] {
		n += k
	}
	return n
}

// between is how many marks of a tree without a root lie in [a, b).
func (c statsCounts) between(t *statsTree, a, b int64) int {
	first, last := t.at(0, a).node, t.at(0, b).node
	n := c.atOrAfter(t, a) - c.atOrAfter(t, b)
	for i := first.index + 1; i <= last.index; i++ {
		n += c.total(statsNode{t, 0, i})
	}
	return n
}

// before is how many marks of a rooted tree lie before x.
func (c statsCounts) before(t *statsTree, x int64) int {
	return c.total(statsNode{t, 0, 0}) - c.atOrAfter(t, x)
}

// betweenNodes are the nodes between(a, b) reads: the level-0 nodes from
// a's to b's and the rest of both paths.
func (t *statsTree) betweenNodes(a, b int64) []statsNode {
	var out []statsNode
	for i := t.at(0, a).node.index; i <= t.at(0, b).node.index; i++ {
		out = append(out, statsNode{t, 0, i})
	}
	for _, x := range []int64{a, b} {
		for _, nc := range t.path(x)[1:] {
			out = append(out, nc.node)
		}
	}
	return out
}

// pathNodes are the nodes atOrAfter(x) and before(x) read.
func (t *statsTree) pathNodes(x int64) []statsNode {
	var out []statsNode
	for _, nc := range t.path(x) {
		out = append(out, nc.node)
	}
	return out
}

// markPosition is where m is counted: its tree, and its position there.
func markPosition(starts bool, m calendar.Mark) (*statsTree, int64) {
	switch {
	case starts && m.At.IsZero():
		return startsOn, dayNumber(m.Day)
	case starts:
		return startsAt, m.At.UnixMilli()
	case m.At.IsZero():
		return duesOn, dayNumber(m.Day)
	}
	return duesAt, m.At.UnixMilli()
}

// dayNumber numbers d from 1970-01-01 (0).
func dayNumber(d calendar.Date) int64 {
	return floorDiv(time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Unix(), 24*60*60)
}

// ceilMilli is the first whole millisecond at or after t: a mark (kept to
// the millisecond) is at or after t exactly when it is at or after that.
func ceilMilli(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}

// countAttr names the attribute of a node's counter for child.
func countAttr(child int64) string { return "c" + strconv.FormatInt(child, 10) }

// decodeNode adds the counters of a node item to c.
func (c statsCounts) decodeNode(node statsNode, it item) error {
	for name, av := range it {
		rest, ok := strings.CutPrefix(name, "c")
		if !ok {
			continue
		}
		child, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			continue
		}
		n, err := nAttr(av)
		if err != nil {
			return err
		}
		c.add(nodeCount{node, child}, n)
	}
	return nil
}
