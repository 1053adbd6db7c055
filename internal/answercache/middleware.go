package answercache

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/calgraph/calgraph/internal/calendar"
	"github.com/calgraph/calgraph/internal/reqinfo"
)

// maxKeyedBody is the largest request body keyed on; larger ones (an
// operation of thousands of tokens) run uncached.
const maxKeyedBody = 32 << 10

// Middleware answers GraphQL requests from c when it holds the same
// request's answer and its reads are unchanged, and otherwise runs next with
// the reads recorded, keeping the answer when everyone agreed it may be
// (see the package documentation). Put it inside the sign-in (it keys on
// the viewer) and inside the edge's compression (it serves the coding that
// chose, Accept-Encoding as the edge leaves it). A nil c passes through.
func (c *Cache) Middleware(next http.Handler) http.Handler {
	if c == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodPost || isUpgrade(r) {
			next.ServeHTTP(w, r)
			return
		}
		body, whole := readBody(r)
		if !whole {
			c.miss(ReasonUnreadBody)
			next.ServeHTTP(w, r)
			return
		}
		k := keyOf(r, body)
		missed := ReasonAbsent
		if e, ok := c.get(k); ok {
			same, err := c.src.Unchanged(r.Context(), e.reads)
			switch {
			case err == nil && same:
				c.hit()
				c.serve(w, r, e)
				return
			case err != nil:
				missed = ReasonCheckFailed
			default:
				c.drop(e)
				missed = ReasonChanged
			}
		}
		c.run(w, r, k, next, missed)
	})
}

// run serves r by next with its reads recorded, and keeps the answer when
// it may. It counts one miss: why the answer could not be kept, or else
// missed (why it was not served from the cache).
func (c *Cache) run(w http.ResponseWriter, r *http.Request, k key, next http.Handler, missed string) {
	rec := &recording{}
	ctx, rs := c.src.Record(context.WithValue(r.Context(), ctxKey{}, rec))
	cw := &capture{ResponseWriter: w}
	next.ServeHTTP(cw, r.WithContext(ctx))
	why := rec.verdict(rs)
	if why == "" {
		why = cw.verdict()
	}
	if why == "" {
		e := &entry{key: k, contentType: cw.Header().Get("Content-Type"), body: cw.body.Bytes(),
			encoded: map[string][]byte{}, reads: rs, operation: reqinfo.From(r.Context()).Operation()}
		if !c.put(e) {
			why = ReasonResponse
		}
	}
	c.miss(cmp.Or(why, missed))
}

// serve writes e's answer as next would have: its media type, in the coding
// the edge chose when it is worth it.
func (c *Cache) serve(w http.ResponseWriter, r *http.Request, e *entry) {
	info := reqinfo.From(r.Context())
	info.SetOperation(e.operation)
	if id := calendar.ViewerOf(r.Context()).ID; id != "" {
		info.SetUser(id)
	}
	body := e.body
	h := w.Header()
	h.Set("Content-Type", e.contentType)
	if enc := r.Header.Get("Accept-Encoding"); enc != "" {
		if b := c.encoded(e, enc); b != nil {
			body = b
			h.Set("Content-Encoding", enc)
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// readBody reads a POST's body whole (at most maxKeyedBody), and puts it
// back for next; whole is false when it is larger (next still reads it all).
func readBody(r *http.Request) (body []byte, whole bool) {
	if r.Method != http.MethodPost || r.Body == nil {
		return nil, true
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxKeyedBody+1))
	if err != nil || len(b) > maxKeyedBody {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, true
}

// keyOf names everything that can change the answer besides what the
// request reads: the viewer whole (as the token gave it), the method, the
// media type asked for (Accept) and sent (Content-Type: a POST without
// application/json is refused, graph/request.go), the URL's query (GET's
// operation) and the body (POST's), each length-prefixed so that no two
// requests share a key. These are every request header the GraphQL
// handler reads; a new one must be added here.
func keyOf(r *http.Request, body []byte) key {
	v := calendar.ViewerOf(r.Context())
	h := sha256.New()
	var n [8]byte
	field := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	errText := ""
	if v.Err != nil {
		errText = v.Err.Error()
	}
	signedUp := "0"
	if v.SignedUp {
		signedUp = "1"
	}
	for _, s := range []string{v.ID, v.Identity.Provider, v.Identity.Subject, v.Email,
		strconv.FormatInt(v.Expiry.UnixNano(), 10), signedUp, errText,
		r.Method, strings.Join(r.Header.Values("Accept"), ","), strings.Join(r.Header.Values("Content-Type"), ","),
		r.URL.RawQuery, string(body)} {
		field(s)
	}
	var k key
	h.Sum(k[:0])
	return k
}

func isUpgrade(r *http.Request) bool {
	return r.Header.Get("Upgrade") != ""
}

// capture passes a response through and keeps a copy of it.
type capture struct {
	http.ResponseWriter
	status  int
	body    bytes.Buffer
	flushed bool
}

func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if c.body.Len() <= maxAnswer {
		c.body.Write(b)
	}
	return c.ResponseWriter.Write(b)
}

// Flush passes a flush through; a flushed answer (@defer's parts) is not kept.
func (c *capture) Flush() {
	c.flushed = true
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// maxAnswer is the largest answer copied (the cache's own bound, a share of
// its bytes, is usually smaller).
const maxAnswer = 4 << 20

// verdict is why the response may not be kept: anything but a whole 200
// body of JSON. (What was copied is what next wrote, before the edge's
// compression, which sets Content-Encoding on the same header: that is not
// next's doing.)
func (c *capture) verdict() string {
	h := c.Header()
	if c.status != http.StatusOK || c.flushed || c.body.Len() > maxAnswer ||
		!strings.Contains(h.Get("Content-Type"), "json") {
		return ReasonResponse
	}
	return ""
}
