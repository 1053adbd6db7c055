package httpapi

import (
	"net/http"
	"net/url"
	"strings"
)

// Origins decides which browser origins may call the API: the one matcher
// behind CORS and WebSocket upgrades alike, so that a page that may POST may
// also subscribe. A pattern is an origin ("https://app.example"), an origin
// with one "*" standing for any run of characters ("http://localhost:*",
// "https://*.example.com"), or "*" for every origin; matching ignores case.
// These are rs/cors's rules, which the patterns were written for, except that
// no pattern at all allows no origin (rs/cors would allow every one).
type Origins struct {
	all   bool
	exact []string
	wild  []wildcard
}

type wildcard struct{ prefix, suffix string }

// NewOrigins reads patterns (see Origins).
func NewOrigins(patterns []string) Origins {
	var o Origins
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		prefix, suffix, wild := strings.Cut(p, "*")
		switch {
		case p == "*":
			o.all = true
		case wild:
			o.wild = append(o.wild, wildcard{prefix, suffix})
		case p != "":
			o.exact = append(o.exact, p)
		}
	}
	return o
}

// Allow reports whether a page of origin (an Origin header's value) may call
// the API.
func (o Origins) Allow(origin string) bool {
	if o.all {
		return true
	}
	origin = strings.ToLower(origin)
	for _, e := range o.exact {
		if origin == e {
			return true
		}
	}
	for _, w := range o.wild {
		if len(origin) >= len(w.prefix)+len(w.suffix) && strings.HasPrefix(origin, w.prefix) && strings.HasSuffix(origin, w.suffix) {
			return true
		}
	}
	return false
}

// AllowWebSocket reports whether r, a WebSocket upgrade, may go ahead: one
// without an Origin does not come from a browser page (browsers always send
// it), one from the server's own host is not cross-origin, and any other
// needs Allow. Browsers do not apply CORS to WebSockets: this check is what
// holds them to the same list.
func (o Origins) AllowWebSocket(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return o.Allow(origin)
}
