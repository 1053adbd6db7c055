package dynamo

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// TestStatsTreesCountLikeAList: for marks at random positions, some on
// node boundaries, some before 1970, every tree answers "at or after x",
// "between a and b" and "before x" exactly as counting a list does, with
// each mark counted in at most one node per level and no node holding more
// children than its level has.
func TestStatsTreesCountLikeAList(t *testing.T) {
	for _, tree := range statsTrees {
		t.Run(tree.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(tree.name)+len(tree.spans))))
			// Positions at every level's scale: on its boundaries, before
			// 1970, and anywhere after a day in 2024.
			base := int64(20000) * (msDay / tree.unit)
			pick := func() int64 {
				s := tree.spans[rng.IntN(len(tree.spans))]
				if s == 0 {
					s = tree.childSpan(0)
				}
				switch rng.IntN(3) {
				case 0:
					return (base/s + int64(rng.IntN(5)-2)) * s
				case 1:
					return -rng.Int64N(3 * s)
				}
				return base + rng.Int64N(3*s)
			}
			var marks []int64
			counts := statsCounts{}
			for range 3000 {
				x := pick()
				n := 1 + rng.IntN(3)
				for range n {
					marks = append(marks, x)
				}
				counts.addMark(tree, x, n)
			}
			for node, children := range counts {
				for child := range children {
					if !tree.hasChild(node.level, child) {
						t.Fatalf("node %v counts child %d", node, child)
					}
				}
			}
			list := func(from, to int64) int {
				n := 0
				for _, m := range marks {
					if m >= from && m < to {
						n++
					}
				}
				return n
			}
			const far = int64(1) << 60
			for range 2000 {
				a := pick()
				b := a + int64(rng.IntN(int(8*msDay/tree.unit)))
				if rng.IntN(3) == 0 {
					b = a + 7*msDay/tree.unit
				}
				if tree.rooted {
					if got, want := counts.before(tree, a), list(-far, a); got != want {
						t.Fatalf("before %d: got %d, want %d", a, got, want)
					}
					continue
				}
				if got, want := counts.between(tree, a, b), list(a, b); got != want {
					t.Fatalf("between %d and %d: got %d, want %d", a, b, got, want)
				}
			}
		})
	}
}

// TestStatsPaths: how many nodes a mark is counted in, which is what a
// write adds for it.
func TestStatsPaths(t *testing.T) {
	at := func(s string) calendar.Mark {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return calendar.Mark{At: tm}
	}
	on := func(s string) calendar.Mark {
		d, err := calendar.ReadDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return calendar.Mark{Day: d}
	}
	for _, tc := range []struct {
		starts bool
		m      calendar.Mark
		want   int
	}{
		{true, at("2026-06-15T00:00:00Z"), 1},      // its day
		{true, at("2026-06-15T09:00:00Z"), 1},      // its day
		{true, at("2026-06-15T09:15:00Z"), 2},      // day and hour
		{true, at("2026-06-15T09:15:30Z"), 3},      // and minute
		{true, at("2026-06-15T09:15:30.5Z"), 4},    // and second
		{true, at("2026-06-15T09:15:30.123Z"), 5},  // and 100 ms
		{true, on("2026-06-15"), 1},                // its 100 days
		{false, at("2026-06-15T17:00:00Z"), 4},     // root, 10,000 days, 100 days, day
		{false, at("2026-06-15T17:30:00Z"), 5},     // and hour
		{false, at("2026-06-15T17:30:00.001Z"), 8}, // every level
		{false, at("1969-12-31T23:59:59.999Z"), 8}, // before 1970 too
		{false, at("1970-01-01T00:00:00Z"), 1},     // the root alone
		{false, on("2026-06-15"), 3},               // root, 10,000 days, 100 days
		{false, on("1970-01-01"), 1},               // the root alone
	} {
		t.Run(fmt.Sprint(tc.starts, tc.m), func(t *testing.T) {
			tree, x := markPosition(tc.starts, tc.m)
			if got := len(tree.path(x)); got != tc.want {
				t.Errorf("%s: counted in %d nodes, want %d", tree.name, got, tc.want)
			}
		})
	}
}

// TestStatsReadNodes: a read names at most 31 nodes, whatever the moment.
func TestStatsReadNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	most := 0
	for range 5000 {
		now := time.UnixMilli(rng.Int64N(4e12)).Add(time.Duration(rng.IntN(1e6)))
		if rng.IntN(2) == 0 {
			now = now.Truncate(time.Duration(1+rng.IntN(4)) * 24 * time.Hour) // midnights
		}
		most = max(most, len(statsNodesAt(now)))
	}
	if most > 31 {
		t.Errorf("a read names up to %d nodes, want at most 31", most)
	}
}
