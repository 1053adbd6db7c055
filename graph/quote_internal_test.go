package graph

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// TestQuotedWritesAsGqlgen: quoted and stringList write the bytes gqlgen's
// MarshalString and string lists write, for strings that need escaping,
// that are not UTF-8, and 5,000 random ones; and quoted costs no
// allocation for a constant, stringList none to write.
func TestQuotedWritesAsGqlgen(t *testing.T) {
	cases := []string{"", "a", "Stand-up", `say "hi"`, `back\slash`, "tab\there", "cr\rlf\n", "\x00\x01\x1f\x7f",
		"é ü 日本", "\xff\xfe broken \xc3", "\u2028\u2029", strings.Repeat(`"`, 40)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) == 0 { // more of the bytes that need escaping
				b[i] = "\"\\\n\t\r\x00\x1f"[rng.IntN(7)]
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var want, got bytes.Buffer
		graphql.MarshalString(s).MarshalGQL(&want)
		quoted(s).MarshalGQL(&got)
		if got.String() != want.String() {
			t.Fatalf("%q: quoted wrote %s, gqlgen writes %s", s, got.String(), want.String())
		}
	}
	for _, l := range [][]string{nil, {}, {"a"}, cases[:12], cases[100:140]} {
		want := make(graphql.Array, len(l))
		for i, s := range l {
			want[i] = graphql.MarshalString(s)
		}
		var w, g bytes.Buffer
		want.MarshalGQL(&w)
		stringList(l).MarshalGQL(&g)
		if g.String() != w.String() {
			t.Errorf("%q: stringList wrote %s, gqlgen writes %s", l, g.String(), w.String())
		}
	}
	if n := testing.AllocsPerRun(100, func() { marshalerSink = quoted("TimedEntry") }); n != 0 {
		t.Errorf("quoted of a constant allocates %v times, want 0", n)
	}
	var buf bytes.Buffer
	buf.Grow(1 << 10)
	l := stringList(cases[:12])
	if n := testing.AllocsPerRun(100, func() { buf.Reset(); l.MarshalGQL(&buf) }); n != 0 {
		t.Errorf("stringList allocates %v times to write, want 0", n)
	}
}
