// Package calendar is calgraph's domain: users, calendars and memberships, their
// validation rules, who may do what, the error codes every layer speaks, and the
// service interfaces the adapters implement.
//
// It imports only the standard library. The DynamoDB store, the dataloaders, the
// GraphQL layer and auth all import it; it imports none of them.
//
// # What travels in a context.Context
//
// Request state is passed, not pulled: what changes what a function does is
// one of its parameters, save the few values below, which are every value a
// calgraph package puts in a context (context.WithValue; gqlgen, net/http
// and OpenTelemetry keep their own). TestContextValuesAreNamed finds each
// such call in the repository and fails on one not named here.
//
// Request state, set once where the request enters and only read below:
//   - The Viewer (WithViewer, ViewerOf, ViewerID): who sends the request,
//     built whole by the auth middleware from the request's token (or a
//     WebSocket's connection_init), never changed below it.
//   - The request's loaders (loader.WithLoaders, loader.For): its batches
//     and caches, where gqlgen's resolvers find them (gqlgen's usual place:
//     a resolver gets a context and its arguments, nothing else).
//   - The WebSocket session (graph's sessionOf): the connection's own
//     state (its user, its subscriptions, its timers), shared by gqlgen's
//     transport callbacks and graph's subscription resolvers, which gqlgen
//     hands nothing but a context; it never leaves package graph.
//
// Observations, which never change what a request does:
//   - reqinfo.Info (reqinfo.With, reqinfo.From): what the GraphQL layer
//     learns of a request (its operation, its errors' codes, its user), for
//     the HTTP edge's access log and metrics.
//   - The request ID (httpapi.RequestID), echoed to the client and logged.
//   - The SDK attempt log (internal/dynamo's withAttemptLog): the errors of
//     one DynamoDB call's attempts, which the call's outermost SDK
//     middleware reads to say whether a write that got no answer may have
//     been applied; the SDK's middleware stack passes its steps only a
//     context, and the log lives for that one call.
//   - The URL a request was sent with (telemetry.TraceHTTP): kept while
//     the tracer sees only the request's public path, and given back to the
//     handler.
//   - The read set (internal/dynamo's Store.Record): what a query read
//     from the table, recorded by the store's clients' one middleware for
//     the answer cache; the SDK's middleware stack passes only a context.
//   - The answer cache's verdict (answercache.Mark, answercache.Confirm):
//     a field that reads the clock marks its request's answer uncacheable,
//     and the GraphQL layer confirms a clean query. Like reqinfo, written
//     below and read only by the middleware that put it there, after the
//     answer is made: it decides whether the answer is kept, never what it
//     is.
//
// One back-channel: the idempotent request (IdempotentRequest,
// IdempotencyOf, AfterResult). Once puts it in the context of the mutation
// it runs; it passes down through the resolver to the first write that
// commits, which adds the marker to its transaction (the store's
// write.Idempotent, named in each write's plan), and AfterResult puts off
// work that does not change the result (removing a deleted calendar's
// items) until the outcome is kept. It stays in the context because
// passing it would add to every write of every service a parameter that
// means "nothing" for all but the mutations sent with a key, and one
// mutation may make many writes under one key (an import, a series change
// cut in parts): the first that commits takes the marker, wherever it sits
// in the call tree. What it changes is confined: one more action in the
// write that asks for it, and later work run later.
//
// Gone from the context, and not to come back: the read budget and whether
// the view cache may answer (now an explicit ReadScope that the loaders
// pass to the store), the write-tracking flag (NoteWrite, MayServeCached)
// and the calendars-seen callback (WithCalendarsSeen, SawCalendar: a
// write now returns the calendar it authorized against), and the viewer's
// five separate values (now one Viewer).
package calendar
