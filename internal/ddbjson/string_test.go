package ddbjson

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendString: a string is written as one JSON string that reads back
// as itself, escaped where JSON requires and nowhere else, whether the bytes
// to escape come first, last, between clean runs or not at all.
func TestAppendString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{"CAL#01a2-77", `"CAL#01a2-77"`},
		{`"`, `"\""`},
		{`a"b\c`, `"a\"b\\c"`},
		{"tab\there\n", `"tab\there\n"`},
		{"\x01x\x1f", `"\u0001x\u001f"`},
		{"été ☕ \U0001F600", `"été ☕ ` + "\U0001F600" + `"`},
		{"</script>", `"</script>"`},
		{strings.Repeat("x", 300) + `\`, `"` + strings.Repeat("x", 300) + `\\"`},
	} {
		if got := string(appendString([]byte("prefix:"), tt.in)); got != "prefix:"+tt.want {
			t.Errorf("appendString(%q) = %s, want %s", tt.in, got, "prefix:"+tt.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "0", "#", `"`, `\`, "\n", "\r", "\t", "\x00", "\x1f", " ", "é", "☕", "\U0001F600", "/"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		in := b.String()
		out := appendString(nil, in)
		var back string
		if err := json.Unmarshal(out, &back); err != nil || back != in {
			t.Fatalf("appendString(%q) = %s, which reads back as %q (%v)", in, out, back, err)
		}
	}
}
