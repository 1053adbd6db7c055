package graph

import (
	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"

	"github.com/calgraph/calgraph/graph/model"
	"github.com/calgraph/calgraph/internal/calendar"
)

// Complexity counts what an operation makes the server fetch and build, not
// how many fields it names: a field of an object type costs 1 (one object,
// read through a loader batch), a scalar or enum field nothing, a connection
// multiplies its children by `first`, and a range view costs viewComplexity
// plus its children (the entries themselves are bounded by the request
// budget). So every documented maximum is accepted whatever fields a client
// selects — `calendars(first: 100)` with `members(first: 100)` is about
// 40,000 — and MaxComplexity still stops a request that would build
// hundreds of thousands of objects.
func complexityLimit() graphql.HandlerExtension {
	return extension.FixedComplexityLimit(MaxComplexity, complexity.WithFixedScalarValue(0))
}

// setComplexity prices connections and views.
func setComplexity(cfg *Config) {
	cfg.Complexity.Viewer.Calendars = func(child int, first *int, after *string, _ *bool) int {
		return connectionComplexity(child, first, after)
	}
	cfg.Complexity.Calendar.Members = connectionComplexity
	cfg.Complexity.Calendar.Entries = func(child int, _ model.TimeRangeInput, _ *string, _ *model.EntryFilter, _ *bool) int {
		return viewComplexity + child
	}
	cfg.Complexity.Viewer.Agenda = func(child int, _ model.TimeRangeInput, _ *string, _ []string, _ *model.EntryFilter, _, _ *bool) int {
		return viewComplexity + child
	}
	// A search reads its calendars as a view does, and returns a connection.
	cfg.Complexity.Viewer.Search = func(child int, _ string, _ []string, _ *model.TimeRangeInput, _ *model.EntryFilter, first *int, after *string) int {
		return viewComplexity + connectionComplexity(child, first, after)
	}
}

func connectionComplexity(child int, first *int, _ *string) int {
	n := calendar.DefaultPageSize
	if first != nil && *first > 0 {
		n = *first
	}
	return 1 + child*n
}
