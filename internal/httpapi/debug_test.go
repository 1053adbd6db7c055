package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestDebugHandler(t *testing.T) {
	srv := httptest.NewServer(DebugHandler())
	defer srv.Close()

	res, err := http.Get(srv.URL + "/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var vars struct {
		GoroutinesCreated *uint64 `json:"goroutines_created"`
		Memstats          struct{ Mallocs uint64 }
	}
	if err := json.NewDecoder(res.Body).Decode(&vars); err != nil {
		t.Fatal(err)
	}
	if vars.GoroutinesCreated == nil || *vars.GoroutinesCreated == 0 || vars.Memstats.Mallocs == 0 {
		t.Fatalf("counters missing: %+v", vars)
	}

	res, err = http.Get(srv.URL + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("pprof: status %d", res.StatusCode)
	}
}
