package memlimit

import (
	"io/fs"
	"testing"
)

func TestContainer(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  int64
		ok    bool
	}{
		{"cgroup v2 limit", map[string]string{Files[0]: "536870912\n"}, 512 << 20, true},
		{"cgroup v2 without one", map[string]string{Files[0]: "max\n", Files[1]: "268435456"}, 0, false},
		{"cgroup v1 limit", map[string]string{Files[1]: "268435456\n"}, 256 << 20, true},
		{"cgroup v1 without one", map[string]string{Files[1]: "9223372036854771712\n"}, 0, false},
		{"no cgroup files", nil, 0, false},
		{"garbage", map[string]string{Files[0]: "lots"}, 0, false},
		{"zero", map[string]string{Files[0]: "0"}, 0, false},
	} {
		got, ok := Container(func(name string) ([]byte, error) {
			if s, found := tt.files[name]; found {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		})
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %d %v, want %d %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	if s := Soft(512 << 20); s > 512<<20*9/10 || s < 512<<20*8/10 {
		t.Errorf("soft limit under 512 MiB: %d", s)
	}
}
