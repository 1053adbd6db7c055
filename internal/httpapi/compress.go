package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// compress encodes answers (GraphQL, the SDL, feeds, GraphiQL's assets) as
// gzip or zstd for clients that accept them, with klauspost/compress's
// gzhttp; which one is decided here (preferredEncoding), not by gzhttp,
// whose own choice favours zstd on a tie. Answers under compressMinSize go
// as they are: below about a packet, encoding costs more than it saves.
// Flushes pass through, so @defer's parts still stream.
func compress(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(compressMinSize), gzhttp.EnableZstd(true),
		gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		panic(err) // the options are constants
	}
	gz := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsWebSocket(r) { // nothing to compress; the connection is handed over
			next.ServeHTTP(w, r)
			return
		}
		// gzhttp reads the header: leave it only the coding chosen.
		if enc := preferredEncoding(r.Header.Values("Accept-Encoding")); enc != "" {
			r.Header.Set("Accept-Encoding", enc)
		} else {
			r.Header.Del("Accept-Encoding")
		}
		gz.ServeHTTP(w, r)
	})
}

const compressMinSize = 1024

// preferredEncoding reads Accept-Encoding as RFC 9110 (12.5.3) has it and
// returns "gzip", "zstd" or "" (the answer as it is). The coding with the
// higher q-value wins; "*" gives its q-value to a coding not listed, and
// q=0 refuses one. On a tie gzip wins: every HTTP client decodes it, while
// some list zstd they cannot decode (graphql-codegen under Node 20 sent
// "gzip, deflate, br, zstd" and crashed on a zstd answer), so zstd goes only
// to clients that prefer it or accept nothing else. An element with a
// malformed q-value is left out. "identity;q=0" is not honoured: with no coding acceptable, the
// answer goes as it is rather than as 406, as most servers do.
func preferredEncoding(header []string) string {
	q := map[string]float64{}
	for _, h := range header {
		for _, elem := range strings.Split(h, ",") {
			coding, weight, ok := parseCoding(elem)
			if !ok {
				continue
			}
			if coding == "x-gzip" {
				coding = "gzip"
			}
			q[coding] = weight
		}
	}
	weight := func(coding string) float64 {
		if w, ok := q[coding]; ok {
			return w
		}
		return q["*"] // 0 when absent
	}
	gz, zs := weight("gzip"), weight("zstd")
	switch {
	case gz <= 0 && zs <= 0:
		return ""
	case zs > gz:
		return "zstd"
	default:
		return "gzip"
	}
}

// parseCoding reads one element of Accept-Encoding, "coding;q=0.5": its
// coding in lower case and its q-value, 1 when absent. ok is false for an
// empty element or a q-value that is not a number from 0 to 1.
func parseCoding(elem string) (coding string, q float64, ok bool) {
	params := strings.Split(elem, ";")
	coding = strings.ToLower(strings.TrimSpace(params[0]))
	if coding == "" {
		return "", 0, false
	}
	q = 1
	for _, p := range params[1:] {
		name, value, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || !(v >= 0 && v <= 1) { // NaN fails both
			return "", 0, false
		}
		q = v
	}
	return coding, q, true
}
