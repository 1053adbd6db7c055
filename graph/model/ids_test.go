package model_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/calgraph/calgraph/graph/model"
)

// TestGlobalIDEncodesTheTypeAndKey holds GlobalID to its definition,
// base64url("<Type>:<key>"), for keys that fit its scratch space and longer
// ones, and to its one allocation.
func TestGlobalIDEncodesTheTypeAndKey(t *testing.T) {
	for _, key := range []string{"", "01a22563-dc62-7156-b7bd-3f66b072f65e", "cal:user", strings.Repeat("é", 200)} {
		want := base64.RawURLEncoding.EncodeToString([]byte(model.KindEntry + ":" + key))
		got := model.GlobalID(model.KindEntry, key)
		if got != want {
			t.Errorf("GlobalID(Entry, %q) = %q, want %q", key, got, want)
		}
		if len(key) > 100 {
			continue // longer than DecodeGID accepts
		}
		if kind, k, err := model.DecodeGID("id", got); err != nil || kind != model.KindEntry || k != key {
			t.Errorf("DecodeGID(%q) = %q, %q, %v; want Entry, %q", got, kind, k, err, key)
		}
	}
	key := "01a22563-dc62-7156-b7bd-3f66b072f65e"
	if n := testing.AllocsPerRun(100, func() { _ = model.GlobalID(model.KindCalendar, key) }); n != 1 {
		t.Errorf("GlobalID allocates %v times, want 1", n)
	}
}
