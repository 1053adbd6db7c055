// Package ddbjson converts between DynamoDB items and the text of DynamoDB's
// JSON export format, the format calgraph's export and import subcommands and its
// embedded-mode snapshot file use.
//
// An item is written in the DynamoDB JSON wire format, where every attribute
// value is an object with exactly one key naming its type:
//
//	{"PK":{"S":"USER#1"},"version":{"N":"3"},"tags":{"SS":["a","b"]},
//	 "blob":{"B":"aGVsbG8="},"flag":{"BOOL":true},"none":{"NULL":true},
//	 "m":{"M":{"x":{"L":[{"S":"y"},{"N":"1.5"}]}}}}
//
// MarshalItem and UnmarshalItem convert one such object. A file holds one item
// per line, each line being {"Item":{...}} followed by "\n", exactly like the
// files of DynamoDB's export to S3 (DYNAMODB_JSON). Writer writes such files and
// Reader reads them.
//
// Parsing is strict because the input comes from users: values are checked
// against DynamoDB's own rules (number syntax, precision and range, non-empty
// sets without duplicates, base64 binaries, NULL only true, non-empty attribute
// names, at most 32 levels of nesting), and a file whose last line has no
// trailing newline is reported as truncated. Marshaling applies the same rules,
// so everything Writer writes, Reader reads back unchanged.
package ddbjson
