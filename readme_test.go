package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// TestREADMEFirstSession runs the README's first session against a running
// server as its reader would: Bob's token from the token command, his sign-in
// with the section's inline query, then every operation of every ```graphql
// block in order, signed in as the dev user, with $cal and $room set to the
// calendars created before and the <…> placeholders filled from earlier
// answers. Every operation must succeed and answer what the prose promises.
func TestREADMEFirstSession(t *testing.T) {
	section := readmeSection(t, "README.md", "### A first session")
	env := settings(t, t.TempDir(), true)
	srv := serve(t, env)
	defer srv.stop()
	s := &readmeSession{t: t, url: srv.url, dev: srv.token, seen: map[string]int{}}
	bob := strings.TrimSpace(mustRun(t, env, "token", "-email", "bob@example.com"))

	signIn := regexp.MustCompile("`(\\{[^`]*\\})`").FindStringSubmatch(section)
	if signIn == nil {
		t.Fatal("the first session shows no inline query for Bob's sign-in")
	}
	if data := s.post(bob, signIn[1], nil); jsonString(data, "viewer.user.id") == "" {
		t.Fatalf("Bob's sign-in %s: got %v, want his user ID", signIn[1], data)
	}

	blocks := regexp.MustCompile("(?s)```graphql\n(.*?)```").FindAllStringSubmatch(section, -1)
	ran := 0
	for _, block := range blocks {
		for _, op := range splitOperations(t, block[1]) {
			s.run(op)
			ran++
		}
	}
	t.Logf("ran %d operations of %d blocks", ran, len(blocks))
	for _, field := range []string{"createCalendar", "addMember", "viewer", "createEntry", "calendar", "updateEntry", "rotateCalendarFeed", "freeBusy"} {
		if s.seen[field] == 0 {
			t.Errorf("no operation of the first session called %s, want one", field)
		}
	}
}

// readmeSession is what a reader of the first session has at hand between steps.
type readmeSession struct {
	t          *testing.T
	url, dev   string
	cal, room  string // the calendars created so far: the first, then the room
	occurrence string // an occurrence's ID from the last view that showed one
	seen       map[string]int
}

// run sends one operation as the dev user, with its variables and
// placeholders filled in, and checks what it answers.
func (s *readmeSession) run(op readmeOp) {
	s.t.Helper()
	text := regexp.MustCompile(`<[^<>"]+>`).ReplaceAllStringFunc(op.text, func(p string) string {
		switch p {
		case "<calendar id>":
			return s.need(s.cal, p)
		case "<an occurrence's id>":
			return s.need(s.occurrence, p)
		}
		s.t.Fatalf("%s: unknown placeholder %s", op.text, p)
		return ""
	})
	vars := map[string]any{}
	for _, name := range op.vars {
		switch name {
		case "cal":
			vars[name] = s.need(s.cal, "$cal")
		case "room":
			vars[name] = s.need(s.room, "$room")
		default:
			s.t.Fatalf("%s: unknown variable $%s", op.text, name)
		}
	}
	data := s.post(s.dev, text, vars)
	s.seen[op.field]++
	s.check(op.field, text, vars, data)
}

// check holds each answer to what the README says of it, and keeps the IDs
// later steps need.
func (s *readmeSession) check(field, text string, vars map[string]any, data map[string]any) {
	t := s.t
	t.Helper()
	fail := func(want string) { t.Errorf("%s\ngot %v, want %s", text, data, want) }
	switch field {
	case "createCalendar":
		id := jsonString(data, "createCalendar.calendar.id")
		switch {
		case id == "":
			fail("a calendar ID")
		case s.cal == "":
			s.cal = id
			if jsonString(data, "createCalendar.calendar.viewerRole") != "OWNER" {
				fail("the creator as OWNER")
			}
		default:
			s.room = id
		}
	case "addMember":
		if jsonString(data, "addMember.membership.role") != "WRITER" {
			fail("Bob as a WRITER")
		}
	case "viewer":
		all, _ := json.Marshal(data)
		if strings.Contains(text, "members") && !bytes.Contains(all, []byte(`"email":"bob@example.com"`)) {
			fail("Bob among the members")
		}
		if strings.Contains(text, "entries") && !bytes.Contains(all, []byte(`"title":"Standup"`)) {
			fail("the Standup in the week")
		}
	case "createEntry":
		id := jsonString(data, "createEntry.entry.id")
		if id == "" {
			fail("an entry ID")
		}
		if _, ok := vars["room"]; ok {
			s.checkBooking(text, vars, id)
		}
	case "calendar":
		entries, _ := jsonAt(data, "calendar.entries.entries").([]any)
		for _, e := range entries {
			if jsonAt(e, "series.id") != nil && jsonAt(e, "isException") == false {
				s.occurrence = jsonString(e, "id")
				break
			}
		}
		if s.occurrence == "" {
			fail("the series' occurrences")
		}
	case "updateEntry":
		if jsonAt(data, "updateEntry.entry.isException") != true {
			fail("the occurrence moved on its own: isException true")
		}
	case "rotateCalendarFeed":
		s.checkFeed(jsonString(data, "rotateCalendarFeed.url"))
	case "freeBusy":
		busy, _ := json.Marshal(jsonAt(data, "freeBusy.calendars.0.busy"))
		if string(busy) != `[{"end":"2026-11-24T14:00:00Z","start":"2026-11-24T13:00:00Z"}]` {
			fail("the room busy 14:00 to 15:00 Paris time")
		}
	default:
		t.Errorf("%s: no check for %s: add one", text, field)
	}
}

// checkBooking holds the README's promises about a booking with an
// idempotency key: sent again it answers as the first time, and another
// booking of the hour gets SLOT_CONFLICT naming it.
func (s *readmeSession) checkBooking(text string, vars map[string]any, id string) {
	s.t.Helper()
	if again := s.post(s.dev, text, vars); jsonString(again, "createEntry.entry.id") != id {
		s.t.Errorf("the booking sent again: got %v, want entry %s", again, id)
	}
	key := regexp.MustCompile(`idempotencyKey: "[^"]*"`)
	other := key.ReplaceAllString(text, `idempotencyKey: "8a1c6f3e-2fa1-11d2-883f-0016d3cca427"`)
	errs := s.postErr(s.dev, other, vars)
	if got := jsonString(errs, "0.extensions.code"); got != "SLOT_CONFLICT" || jsonString(errs, "0.extensions.conflict.entryId") != id {
		s.t.Errorf("another booking of that hour: got %v, want SLOT_CONFLICT naming %s", errs, id)
	}
}

// checkFeed fetches the feed URL (on this server: the configured public URL
// has port 0) and wants the calendar's series in it.
func (s *readmeSession) checkFeed(feedURL string) {
	s.t.Helper()
	u, err := url.Parse(feedURL)
	if err != nil || u.Path == "" {
		s.t.Fatalf("got feed URL %q, want a URL", feedURL)
	}
	res, err := http.Get(s.url + u.Path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("SUMMARY:Standup")) || !bytes.Contains(body, []byte("RRULE:FREQ=WEEKLY")) {
		s.t.Errorf("GET %s: got %d %.300s, want the calendar with its series", u.Path, res.StatusCode, body)
	}
}

func (s *readmeSession) need(v, what string) string {
	s.t.Helper()
	if v == "" {
		s.t.Fatalf("%s is used before an earlier answer gave it", what)
	}
	return v
}

// post sends an operation that must succeed and returns its data.
func (s *readmeSession) post(token, query string, vars map[string]any) map[string]any {
	s.t.Helper()
	res := s.send(token, query, vars)
	if res.Errors != nil {
		s.t.Fatalf("%s\nfailed: %s", query, res.Errors)
	}
	return res.Data
}

// postErr sends an operation that must fail and returns its errors.
func (s *readmeSession) postErr(token, query string, vars map[string]any) []any {
	s.t.Helper()
	res := s.send(token, query, vars)
	var errs []any
	if err := json.Unmarshal(res.Errors, &errs); err != nil || len(errs) == 0 {
		s.t.Fatalf("%s\ngot data %v, want an error", query, res.Data)
	}
	return errs
}

type readmeResult struct {
	Data   map[string]any  `json:"data"`
	Errors json.RawMessage `json:"errors"`
}

func (s *readmeSession) send(token, query string, vars map[string]any) readmeResult {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, s.url+"/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	client := http.Client{Timeout: 30 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var out readmeResult
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		s.t.Fatalf("%s: %v", query, err)
	}
	return out
}

// readmeOp is one operation of a README block: its text, the name of its
// first root field and the names of the variables it declares.
type readmeOp struct {
	text, field string
	vars        []string
}

// splitOperations cuts a block holding several operations into them.
func splitOperations(t *testing.T, block string) []readmeOp {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: block})
	if err != nil {
		t.Fatalf("README block does not parse: %v\n%s", err, block)
	}
	runes := []rune(block)
	var ops []readmeOp
	for i, op := range doc.Operations {
		end := len(runes)
		if i+1 < len(doc.Operations) {
			end = doc.Operations[i+1].Position.Start
		}
		o := readmeOp{text: strings.TrimSpace(string(runes[op.Position.Start:end]))}
		if f, ok := op.SelectionSet[0].(*ast.Field); ok {
			o.field = f.Name
		}
		for _, v := range op.VariableDefinitions {
			o.vars = append(o.vars, v.Variable)
		}
		ops = append(ops, o)
	}
	return ops
}

// readmeSection returns the text under heading up to the next heading of
// the same or a higher level.
func readmeSection(t *testing.T, path, heading string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", path, heading)
	}
	level := strings.Index(heading, " ")
	end := regexp.MustCompile(fmt.Sprintf(`(?m)^#{1,%d} `, level)).FindStringIndex(section)
	if end != nil {
		section = section[:end[0]]
	}
	return section
}

// jsonAt walks decoded JSON along a path such as "a.0.b".
func jsonAt(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func jsonString(v any, path string) string { s, _ := jsonAt(v, path).(string); return s }
