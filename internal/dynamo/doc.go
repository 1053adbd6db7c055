// Package dynamo is calgraph's store: the single DynamoDB table behind every run
// mode (embedded engine, DynamoDB Local, AWS), reached through aws-sdk-go-v2.
//
// Layout: keys.go holds every key shape; keyquery.go builds every Query's
// input; records.go the storage records and their mapping to domain types;
// batch.go, tx.go and errors.go the only raw BatchGetItem, BatchWriteItem and
// TransactWriteItems calls and the SDK-error translation; one file per
// aggregate implements the calendar package's service interfaces.
// ACCESS_PATTERNS.md lists every key and every access pattern with its operation.
//
// # How a write is built
//
// Every write is a write value (write.go) that the store method builds with
// one call per thing its transaction holds, and commits (tx.go); commit adds
// nothing the method did not ask for. CreateEntry, for example, reads:
//
//	w := newWrite()
//	w.Idempotent(ctx)                        // the request's idempotency marker, first, if it has one
//	w.Guard(roleCheck(…))                    // the viewer may write entries (a ConditionCheck)
//	w.Guard(calendarStillThere(…))           // the calendar exists (its item, where the revision rises);
//	                                         // for its first series, an Update of it and w.LogCalendar instead
//	w.Add(entryWrites(&e, …, notExists(), …)…) // the entry item, if not there yet, and its pieces
//	w.LogEntry(e.CalendarID, e.ID)           // its change record, and the calendar's revision raised
//	w.Tally(acc.viewer, nil, &e)             // the updates of its creator's stats items
//	s.book(ctx, w, …)                        // on a resource calendar, w.Book(its bookings) first
//
// So its transaction holds, in order: the marker, the role check, the
// calendar's revision raise (joined with its check), the entry and its
// pieces, the bookings, the stats updates and the change record.
// write.Plan lists any write's actions as text; write_plan_test.go pins
// every public write's. write.Size counts the actions against DynamoDB's
// 100 and write.Room is what is left: writes that split work (countedDeletes,
// applySeriesEdit, SeedEntries) ask it. Commit retries cancellations,
// explains a failed condition with its action's explanation, and tells the
// commit hook (live delivery) which logs the write added to. Store.Check
// finds any object changed without its change record.
//
// # Why one package
//
// The store stays one package although it is large. A transaction holds an
// aggregate's items, their change records, stats tallies, bookings and the
// idempotency marker together, and the write value is where they meet: the
// change log, stats or bookings as packages of their own would each need
// the write value, the item codec and the key shapes exported to them, and a
// reader would follow a write across four packages instead of one function.
// Files are split by concern instead (the aggregates; changes.go, sync.go
// and clock.go for the change log; stats*.go; slots.go; viewcache.go). The
// view cache, which only reads, is the one part that could leave; it stays
// because it caches the store's own range reads and member pages, keyed by
// the calendar revision that the write value's Log calls raise.
package dynamo
