package calendar

// ReadScope is what a request's reads hand the store beside the keys: its
// request budget and whether the view cache may answer. A request's loaders
// hold one, given them when they are made (one request, one scope), and pass
// it to the EntryReader and Reader methods that use it; nothing else
// reaches the store through the context.
//
// Budget bounds the entries the request's views read (Budget.Reserve, page
// by page) and return. It charges a view's range reads only: the reads a
// write, a feed, a resource's slots or a deletion make are sized by their
// own limits, not by what the request asked to see. Nil means no bound.
//
// Cached says whether the store's view cache may answer the request's views
// and member pages, and keep what they read. A mutation's reads never come
// from it: its resolvers may read a calendar before the mutation's own
// write (the write's access check, a payload's view of the calendar), and
// a view cached at that calendar's revision would not show the write the
// request just made. Queries and each delivery of a subscription may use
// it: they write nothing, so whatever revision they read the calendar at is
// the newest they can have caused. (A query's sign-in may create the
// viewer's account, but before the query reads anything: what it reads
// comes after that write.) The GraphQL layer decides it from the
// operation's type (graph's requestScope); the zero ReadScope reads
// uncached and unbounded, as a store's own callers do.
type ReadScope struct {
	Budget *Budget
	Cached bool
}
