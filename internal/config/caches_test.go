package config_test

import (
	"testing"

	"github.com/calgraph/calgraph/internal/config"
)

// TestCacheBytes: -cache-bytes bounds the three caches together, split a
// sixth, a sixth and two thirds; a cache set on its own keeps its size; by
// default the total is a quarter of the container's memory limit, or 384
// MiB without one.
func TestCacheBytes(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                string
		container           int64 // 0: none
		env                 map[string]string
		args                []string
		total, view, answer int64
		search              int64
	}{
		{"no container, defaults", 0, nil, nil, 384 * mib, 64 * mib, 64 * mib, 256 * mib},
		{"a 256 MiB container", 256 * mib, nil, nil, 64 * mib, 64 * mib / 6, 64 * mib / 6, 64 * mib / 3 * 2},
		{"a tiny container still gets caches", 32 * mib, nil, nil, 16 * mib, 16 * mib / 6, 16 * mib / 6, 16 * mib / 3 * 2},
		{"a total given", 256 * mib, map[string]string{"CALGRAPH_CACHE_BYTES": "600"}, nil, 600, 100, 100, 400},
		{"one cache on its own", 0, nil, []string{"-answer-cache-bytes", "0"}, 384 * mib, 64 * mib, 0, 256 * mib},
		{"every cache on its own", 0, map[string]string{"CALGRAPH_VIEW_CACHE_BYTES": "7", "CALGRAPH_SEARCH_INDEX_BYTES": "9"},
			[]string{"-answer-cache-bytes", "8"}, 384 * mib, 7, 8, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			was := config.ContainerLimit
			t.Cleanup(func() { config.ContainerLimit = was })
			config.ContainerLimit = func() (int64, bool) { return tt.container, tt.container > 0 }
			c, err := load(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if c.CacheBytes != tt.total || int64(c.ViewCacheBytes) != tt.view || c.AnswerCacheBytes != tt.answer || int64(c.SearchIndexBytes) != tt.search {
				t.Errorf("got total %d, view %d, answer %d, search %d; want %d, %d, %d, %d",
					c.CacheBytes, c.ViewCacheBytes, c.AnswerCacheBytes, c.SearchIndexBytes, tt.total, tt.view, tt.answer, tt.search)
			}
		})
	}
}
