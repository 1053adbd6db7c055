package calendar

// Patch is one field of a partial update (not to be confused with the change
// log's ObjectChange: a Patch is what a client asks to change). Set is false when the client omitted the
// field, so "leave it alone" differs from "set it to the zero value" (or, with a
// pointer T, from "set it to null").
type Patch[T any] struct {
	Set   bool
	Value T
}

// Set returns a Patch that sets the field to v.
func Set[T any](v T) Patch[T] { return Patch[T]{Set: true, Value: v} }

// Page asks for one page of a connection: at most First items after the opaque
// cursor After (empty for the first page).
type Page struct {
	First int
	After string
}

// Page size limits for every connection.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// Validate checks First against the limits.
func (p Page) Validate() error {
	if p.First < 1 || p.First > MaxPageSize {
		return Invalidf("first", "first must be between 1 and %d, got %d", MaxPageSize, p.First)
	}
	return nil
}

// ValidateID checks the form of an object ID: the store generates UUIDs, and any
// other text is refused before it can reach a key.
func ValidateID(field, id string) error {
	if len(id) != 36 {
		return Invalidf(field, "%s is not a valid ID", field)
	}
	for i, r := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return Invalidf(field, "%s is not a valid ID", field)
			}
		case !('0' <= r && r <= '9' || 'a' <= r && r <= 'f'):
			return Invalidf(field, "%s is not a valid ID", field)
		}
	}
	return nil
}
