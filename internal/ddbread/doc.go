// Package ddbread sends the read calls on a view's path — GetItem,
// BatchGetItem and Query — to DynamoDB without the SDK's per-call machinery.
//
// The SDK spends more CPU on a call than the call's own work: a stack of some
// thirty middlewares, a reflective JSON decoder into AttributeValues and the
// stack growth of both. A week view makes dozens of such calls, so calgraph
// sends these three itself: one signed HTTP request, one pass of a fast JSON
// parser straight into AttributeValues. Everything else about a call comes from
// the SDK client it is made from, so the two agree:
//
//   - the HTTP client's transport settings (dialer, TLS configuration, proxy,
//     connection bounds and idle timeout), any HTTP client wrapped around it
//     (a test's fault injector, the store's clock), credentials, region and
//     endpoint (resolved once by the SDK's resolver);
//   - the retryer: the same attempts, backoff, retry quota (calgraph's has
//     none) and classification of errors (throttling, 5xx, broken
//     connections);
//   - the client's Initialize-step middlewares (its APIOptions), run around
//     each call with the operation's name and input, so recorders, latency
//     models and fault hooks see these calls as they see the SDK's.
//
// Three things differ on purpose. The calls go on connections of the client's
// own, each written and read on the calling goroutine rather than handed to
// net/http's two goroutines per connection (conns.go); a call that needs a
// proxy, or whose SDK client has an HTTP client other than the SDK's own
// beneath its wrappers, goes through that HTTP client as it is. Reads are
// idempotent, so when a kept-alive connection turns out closed the call is
// sent again at once on a new connection instead of failing into the
// retryer's backoff (issue 10's second-long stalls); the requests are marked
// replayable for net/http too, which does the same. And the answer's CRC32
// header is not checked: the SDK checks it only for plain-HTTP integrity,
// which TLS already gives against DynamoDB and which DynamoDB Local gets
// wrong.
//
// Inputs are the SDK's own input types; the fields a read can carry are
// encoded, and one this package does not know (Select, AttributesToGet,
// ReturnConsumedCapacity, ...) is refused with an error rather than ignored.
package ddbread
