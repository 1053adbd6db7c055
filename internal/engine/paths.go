package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/truora/minidyn/interpreter/language"
)

// A document path: the attribute, then map keys and list indexes.
type path = []language.PathElement

// pathOf reads a path expression, resolving #name placeholders.
func (x *exprs) pathOf(e language.Expression) (path, error) {
	env := language.NewEnvironment()
	env.Aliases = x.names
	p, err := language.ExtractPath(e, env)
	if err != nil || len(p) == 0 {
		return nil, fmt.Errorf("not a document path: %s", e)
	}
	return p, nil
}

// describePath writes a path as DynamoDB's messages do: [m, x, [0]].
func describePath(p path) string {
	parts := make([]string, len(p))
	for i, e := range p {
		if e.Kind == language.PathKindListIndex {
			parts[i] = fmt.Sprintf("[%d]", e.Index)
		} else {
			parts[i] = e.Key
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// overlaps reports whether one path is the other or leads into it.
func overlaps(a, b path) bool {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkOverlaps refuses two paths of one expression that overlap, or that
// read one value as a list and as a map, as DynamoDB does for projections
// and updates.
func checkOverlaps(label string, paths []path) error {
	for i, a := range paths {
		for _, b := range paths[:i] {
			if overlaps(a, b) {
				return validationf("Invalid %s: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
					label, describePath(b), describePath(a))
			}
			if conflicts(a, b) {
				return validationf("Invalid %s: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
					label, describePath(b), describePath(a))
			}
		}
	}
	return nil
}

// conflicts reports whether two paths part where one reads a list index and
// the other a map key.
func conflicts(a, b path) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i].Kind != b[i].Kind
		}
	}
	return false
}

// valueAt returns the value at a path of an item, or nil.
func valueAt(it item, p path) *av {
	v, ok := it[p[0].Key]
	if !ok {
		return nil
	}
	for _, e := range p[1:] {
		switch {
		case e.Kind == language.PathKindListIndex && v.L != nil && e.Index < int64(len(v.L)):
			v = v.L[e.Index]
		case e.Kind == language.PathKindMapKey && v.M != nil && v.M[e.Key] != nil:
			v = v.M[e.Key]
		default:
			return nil
		}
	}
	return v
}

// setAt replaces the value at a path that exists in the item; it reports
// whether it did.
func setAt(it item, p path, v *av) bool {
	if len(p) == 1 {
		if _, ok := it[p[0].Key]; !ok {
			return false
		}
		it[p[0].Key] = v
		return true
	}
	parent := valueAt(it, p[:len(p)-1])
	last := p[len(p)-1]
	switch {
	case parent == nil:
		return false
	case last.Kind == language.PathKindListIndex && parent.L != nil && last.Index < int64(len(parent.L)):
		parent.L[last.Index] = v
		return true
	case last.Kind == language.PathKindMapKey && parent.M != nil:
		if _, ok := parent.M[last.Key]; ok {
			parent.M[last.Key] = v
			return true
		}
	}
	return false
}

// putAt sets the value at a path whose parent exists: it replaces the
// value there, adds the key to the parent map, or appends to the parent list
// when the index is past its end (as ADD does in DynamoDB). It reports
// whether it did.
func putAt(it item, p path, v *av) bool {
	if setAt(it, p, v) {
		return true
	}
	if len(p) == 1 {
		it[p[0].Key] = v
		return true
	}
	parent, last := valueAt(it, p[:len(p)-1]), p[len(p)-1]
	switch {
	case parent == nil:
		return false
	case last.Kind == language.PathKindMapKey && parent.M != nil:
		parent.M[last.Key] = v
		return true
	case last.Kind == language.PathKindListIndex && parent.L != nil:
		parent.L = append(parent.L, v)
		return true
	}
	return false
}

// project copies the values at paths of an item into a new item, keeping
// the maps and lists that lead to them (lists keep only the elements
// named, in order, as DynamoDB projects them).
func project(it item, paths []path) item {
	out := item{}
	// Elements of one list come out in the list's order, whatever the
	// order of the paths.
	paths = slices.SortedFunc(slices.Values(paths), comparePaths)
	for _, p := range paths {
		v := valueAt(it, p)
		if v == nil {
			continue
		}
		placeAt(out, it, p, v)
	}
	return out
}

// placeAt builds in out the containers of path p, as they are in src, and
// puts v at its end.
func placeAt(out, src item, p path, v *av) {
	if len(p) == 1 {
		out[p[0].Key] = v
		return
	}
	cur, ok := out[p[0].Key]
	if !ok {
		cur = emptyLike(src[p[0].Key])
		out[p[0].Key] = cur
	}
	srcCur := src[p[0].Key]
	for i, e := range p[1:] {
		last := i == len(p)-2
		var srcNext *av
		if e.Kind == language.PathKindListIndex {
			srcNext = srcCur.L[e.Index]
		} else {
			srcNext = srcCur.M[e.Key]
		}
		var next *av
		if last {
			next = v
		} else {
			next = emptyLike(srcNext)
		}
		if e.Kind == language.PathKindListIndex {
			cur.L = append(cur.L, next)
		} else {
			if existing, ok := cur.M[e.Key]; ok && !last {
				next = existing
			}
			cur.M[e.Key] = next
		}
		cur, srcCur = next, srcNext
	}
}

func comparePaths(a, b path) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		if c := cmp.Compare(int(a[i].Index), int(b[i].Index)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func emptyLike(a *av) *av {
	if a.L != nil {
		return &av{L: []*av{}}
	}
	return &av{M: item{}}
}

// keepNumbers gives numbers of v that equal, at the same place, numbers of
// old the text old had: the interpreter rewrites every number it touches.
func keepNumbers(v, old *av) *av {
	switch {
	case v == nil || old == nil:
		return v
	case v.N != nil && old.N != nil:
		// The interpreter's number is old's read as a float64.
		a, errA := strconv.ParseFloat(*v.N, 64)
		b, errB := strconv.ParseFloat(*old.N, 64)
		if errA == nil && errB == nil && a == b {
			return old
		}
	case v.M != nil && old.M != nil:
		for k, e := range v.M {
			v.M[k] = keepNumbers(e, old.M[k])
		}
	case v.L != nil && old.L != nil:
		for i, e := range v.L {
			if i < len(old.L) {
				v.L[i] = keepNumbers(e, old.L[i])
			}
		}
	case v.NS != nil && old.NS != nil && sameValue(v, old):
		return old // a set DynamoDB Local writes as it was sent (1E+2)
	}
	return v
}

// removeAt deletes the value at a path, when it is there.
func removeAt(it item, p path) {
	if len(p) == 1 {
		delete(it, p[0].Key)
		return
	}
	parent := valueAt(it, p[:len(p)-1])
	last := p[len(p)-1]
	switch {
	case parent == nil:
	case last.Kind == language.PathKindListIndex && parent.L != nil && last.Index < int64(len(parent.L)):
		parent.L = append(parent.L[:last.Index:last.Index], parent.L[last.Index+1:]...)
	case last.Kind == language.PathKindMapKey && parent.M != nil:
		delete(parent.M, last.Key)
	}
}

func isSet(v *av) bool { return v.SS != nil || v.NS != nil || v.BS != nil }

// setMembers lists a set's members as comparable strings (numbers by
// value) and as they are written.
func setMembers(v *av) (keys []string, raw []*string, bin [][]byte) {
	switch {
	case v.SS != nil:
		for _, s := range v.SS {
			keys = append(keys, *s)
		}
		return keys, v.SS, nil
	case v.NS != nil:
		for _, s := range v.NS {
			d, _ := parseDecimal(*s)
			keys = append(keys, d.String())
		}
		return keys, v.NS, nil
	}
	for _, b := range v.BS {
		keys = append(keys, string(b))
	}
	return keys, nil, v.BS
}

// setUnion is ADD of a set: a's members, then b's that a lacks.
func setUnion(a, b *av) *av {
	return setCombine(a, b, true)
}

// setMinus is DELETE of a set: a's members that b lacks; nil when none is left.
func setMinus(a, b *av) *av {
	return setCombine(a, b, false)
}

func setCombine(a, b *av, union bool) *av {
	ka, ra, ba := setMembers(a)
	kb, rb, bb := setMembers(b)
	inB := map[string]bool{}
	for _, k := range kb {
		inB[k] = true
	}
	out := &av{}
	add := func(raw []*string, bin [][]byte, i int) {
		switch {
		case a.SS != nil:
			out.SS = append(out.SS, raw[i])
		case a.NS != nil:
			out.NS = append(out.NS, raw[i])
		default:
			out.BS = append(out.BS, bin[i])
		}
	}
	inA := map[string]bool{}
	for i, k := range ka {
		inA[k] = true
		if union || !inB[k] {
			add(ra, ba, i)
		}
	}
	if union {
		for i, k := range kb {
			if !inA[k] {
				add(rb, bb, i)
				inA[k] = true
			}
		}
	}
	if out.SS == nil && out.NS == nil && out.BS == nil {
		return nil
	}
	if len(out.NS) != len(a.NS) {
		// A number set that changes is written anew, every member in its
		// plain form (1E+2 as 100), as DynamoDB Local writes it; one that
		// does not change keeps its text.
		for i, n := range out.NS {
			d, _ := parseDecimal(*n)
			s := d.String()
			out.NS[i] = &s
		}
	}
	return out
}
