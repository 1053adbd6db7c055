package ddbdiff

import (
	"math/rand/v2"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The key universe is small so that writes collide: a few partitions, a few
// sort keys, and index keys drawn from pools just as small.
var (
	partitions  = []string{"p0", "p1", "p2"}
	sortKeys    = []string{"a", "a#1", "a#2", "b", "b#1", "c"}
	gsiPKs      = []string{"g0", "g1"}
	gsiSKs      = []string{"x", "x#1", "x#2", "y"}
	lsiSKs      = []string{"l0", "l1", "l1#a", "l2"}
	numPKs      = []string{"q0", "q1"}
	numSKs      = []string{"-10", "-1.5", "0", "1", "1.5", "2", "10", "100", "1000"}
	numSKSpelt  = []string{"-0", "1.50", "1E3", "0.0", "01", "2.000", "-1.50", "1e1"} // other spellings of the same keys
	strings1    = []string{"", "a", "ab", "abc", "b", "x y", "ü", "a#1", "10", "9"}
	numbers     = []string{"0", "-0", "1e10", "1.500", "12345678901234567890123456789012345678", "-12345678901234567890123456789012345678", "-7", "3.14", "100", "0.001", "1E-130", "9.9999999999999999999999999999999999999E+125", "2", "10"}
	setStrings  = []string{"a", "b", "c", "ab", ""}
	setNumbers  = []string{"1", "2", "3.5", "-1", "100", "1E2"} // 100 twice: a set of both is refused
	binaries    = [][]byte{{}, {0}, {1, 2}, {0xff}, {1}}
	setBinaries = [][]byte{{1}, {2}, {3, 4}, {0xff}}
	mapKeys     = []string{"x", "y", "z"}
)

// Attribute names of the main table. The plain attributes usually hold their
// own type (s a string, n a number ...) but sometimes another, so that
// comparisons across types, ADD on a string and the like come up.
var (
	plainAttrs = []string{"s", "n", "b", "f", "z", "l", "m", "ss", "ns", "bs"}
	indexAttrs = []string{"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "GSI4PK", "LSI1SK", "LSI2SK"}
	// paths reach into the nested values too.
	nestedPaths = []string{"m.x", "m.y", "m.x.y", "l[0]", "l[1]", "l[5]", "m.x[0]", "l[0].x"}
)

const (
	attrTTL   = "expiresAt"
	numPK     = "P"
	numSK     = "N"
	numBinary = "bin"
)

// values draws attribute values from r.
type values struct{ r *rand.Rand }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func (v values) chance(p float64) bool { return v.r.Float64() < p }

func s(x string) types.AttributeValue { return &types.AttributeValueMemberS{Value: x} }
func n(x string) types.AttributeValue { return &types.AttributeValueMemberN{Value: x} }

// typed returns a value of the attribute's usual type, or now and then of any type.
func (v values) typed(attr string) types.AttributeValue {
	if v.chance(0.15) {
		return v.any(0)
	}
	return v.exact(attr)
}

// exact returns a value of the attribute's usual type.
func (v values) exact(attr string) types.AttributeValue {
	switch attr {
	case "s":
		return s(pick(v.r, strings1))
	case "n":
		return n(pick(v.r, numbers))
	case "b":
		return &types.AttributeValueMemberB{Value: pick(v.r, binaries)}
	case "f":
		return &types.AttributeValueMemberBOOL{Value: v.chance(0.5)}
	case "z":
		return &types.AttributeValueMemberNULL{Value: true}
	case "l":
		return v.list(0)
	case "m":
		return v.mapValue(0)
	case "ss":
		return &types.AttributeValueMemberSS{Value: distinct(v.r, setStrings)}
	case "ns":
		return &types.AttributeValueMemberNS{Value: distinct(v.r, setNumbers)}
	case "bs":
		return &types.AttributeValueMemberBS{Value: distinct(v.r, setBinaries)}
	}
	return v.any(0)
}

// any returns a value of any type; depth bounds the nesting.
func (v values) any(depth int) types.AttributeValue {
	kinds := 10
	if depth >= 3 {
		kinds = 5 // scalars only
	}
	switch v.r.IntN(kinds) {
	case 0:
		return s(pick(v.r, strings1))
	case 1:
		return n(pick(v.r, numbers))
	case 2:
		return &types.AttributeValueMemberB{Value: pick(v.r, binaries)}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: v.chance(0.5)}
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}
	case 5, 6:
		return v.list(depth)
	case 7, 8:
		return v.mapValue(depth)
	default:
		return v.typed(pick(v.r, []string{"ss", "ns", "bs"}))
	}
}

func (v values) list(depth int) types.AttributeValue {
	l := &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
	for range v.r.IntN(4) {
		l.Value = append(l.Value, v.any(depth+1))
	}
	return l
}

func (v values) mapValue(depth int) types.AttributeValue {
	m := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	for _, k := range mapKeys {
		if v.chance(0.4) {
			m.Value[k] = v.any(depth + 1)
		}
	}
	return m
}

// distinct returns one to three different elements of xs.
func distinct[T any](r *rand.Rand, xs []T) []T {
	idx := r.Perm(len(xs))[:1+r.IntN(3)]
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// mainKey and numKey return a random key of each table.
func (v values) mainKey() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": s(pick(v.r, partitions)), "SK": s(pick(v.r, sortKeys))}
}

func (v values) numKey() map[string]types.AttributeValue {
	sk := pick(v.r, numSKs)
	if v.chance(0.2) {
		sk = pick(v.r, numSKSpelt)
	}
	return map[string]types.AttributeValue{numPK: s(pick(v.r, numPKs)), numSK: n(sk)}
}

// mainItem returns an item of the main table: some plain attributes, some
// index keys (so it lands in some indexes and not others), sometimes a TTL in
// the far future (a past one would let the reference delete it at any moment).
func (v values) mainItem() map[string]types.AttributeValue {
	item := v.mainKey()
	for _, a := range plainAttrs {
		if v.chance(0.4) {
			item[a] = v.typed(a)
		}
	}
	for _, a := range indexAttrs {
		if v.chance(0.35) {
			item[a] = s(v.indexValue(a))
		}
	}
	if v.chance(0.1) {
		item[attrTTL] = n("4102444800")
	}
	return item
}

func (v values) indexValue(attr string) string {
	switch {
	case strings.HasPrefix(attr, "LSI"):
		return pick(v.r, lsiSKs)
	case strings.HasSuffix(attr, "PK"):
		return pick(v.r, gsiPKs)
	}
	return pick(v.r, gsiSKs)
}

func (v values) numItem() map[string]types.AttributeValue {
	item := v.numKey()
	if v.chance(0.7) {
		item[numBinary] = &types.AttributeValueMemberB{Value: pick(v.r, binaries)}
	}
	if v.chance(0.5) {
		item["n"] = n(pick(v.r, numbers))
	}
	if v.chance(0.3) {
		item["m"] = v.mapValue(1)
	}
	return item
}
