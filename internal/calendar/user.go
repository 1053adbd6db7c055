package calendar

import (
	"context"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxNameLength bounds user and calendar names, in characters.
const MaxNameLength = 200

// User is a person who signs in. Email is unique across users (case-insensitive);
// Identity is the OAuth/OIDC identity the user signs in with.
type User struct {
	ID       string
	Name     string
	Email    string
	Identity Identity
	// Preferences share the user's version: changing them bumps it.
	Preferences Preferences
	Version     int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Identity is an external sign-in identity: the token issuer and its subject.
type Identity struct {
	Provider string // the token's issuer
	Subject  string // the issuer's stable ID for the person
}

// Validate checks that both parts are present and sane.
func (id Identity) Validate() error {
	if id.Provider == "" || id.Subject == "" {
		return Errorf(CodeUnauthenticated, "token lacks an issuer or subject")
	}
	if len(id.Provider) > 512 || len(id.Subject) > 512 {
		return Errorf(CodeUnauthenticated, "token issuer or subject is too long")
	}
	return nil
}

// SignUp is what the first sign-in of an identity tells about the person.
type SignUp struct {
	Identity Identity
	Email    string
	Name     string
	// EmailUnverified is set when the token's issuer says it has not verified
	// the email: such a token may sign in an existing user, never create one,
	// or anyone could claim someone else's address.
	EmailUnverified bool
}

// Normalize validates the sign-up and returns it with the email normalized and a
// name derived from the email when the token carried none.
func (s SignUp) Normalize() (SignUp, error) {
	if err := s.Identity.Validate(); err != nil {
		return s, err
	}
	if s.EmailUnverified {
		return s, Errorf(CodeUnauthenticated, "your identity provider has not verified the email in your token: verify it there, then sign in again")
	}
	email, err := NormalizeEmail(s.Email)
	if err != nil {
		return s, Errorf(CodeUnauthenticated, "token has no usable email claim: %s", ErrorMessage(err))
	}
	s.Email = email
	s.Name = displayName(s.Name, email)
	return s, nil
}

// displayName makes a valid name out of whatever a token carried: control
// characters dropped, trimmed, cut to MaxNameLength, and the email's local part
// when nothing is left. A token's name is a hint, never a reason to refuse sign-in.
func displayName(name, email string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(truncate(strings.TrimSpace(name), MaxNameLength))
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	return name
}

// ProfileUpdate is a partial update of the viewer's own profile.
type ProfileUpdate struct {
	ExpectedVersion int
	Name            Patch[string]
}

// Apply validates the update and returns u with it applied.
func (p ProfileUpdate) Apply(u User) (User, error) {
	if p.Name.Set {
		name := strings.TrimSpace(p.Name.Value)
		if err := ValidateName("name", name); err != nil {
			return u, err
		}
		u.Name = name
	}
	return u, nil
}

// NormalizeEmail validates a bare email address and returns it trimmed and
// lower-cased, the form uniqueness is enforced on.
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", Invalidf("email", "email is required")
	}
	if len(s) > 254 {
		return "", Invalidf("email", "email is longer than 254 characters")
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s || addr.Name != "" {
		return "", Invalidf("email", "%q is not an email address", s)
	}
	return s, nil
}

// ValidateName checks a display name: 1 to MaxNameLength characters, no control
// characters. field is the input field the error names.
func ValidateName(field, name string) error {
	if name == "" {
		return Invalidf(field, "%s must not be empty", field)
	}
	if !utf8.ValidString(name) {
		return Invalidf(field, "%s must be valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		return Invalidf(field, "%s is %d characters long; the limit is %d", field, n, MaxNameLength)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return Invalidf(field, "%s must not contain control characters", field)
		}
	}
	return nil
}

func truncate(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// UserService manages users. Implementations take the signed-in user from the
// context (see ViewerID) where an operation acts for one.
type UserService interface {
	// ResolveIdentity returns the ID of the user who signs in with s.Identity,
	// creating that user on first use (created reports it). Concurrent first
	// uses of one identity create exactly one user. Errors:
	// CodeUnauthenticated (unusable claims), CodeAlreadyExists (another user
	// has the email).
	ResolveIdentity(ctx context.Context, s SignUp) (userID string, created bool, err error)

	// UpdateProfile changes the viewer's profile. Errors: CodeUnauthenticated,
	// CodeInvalid, CodeVersionConflict, CodeNotFound.
	UpdateProfile(ctx context.Context, upd ProfileUpdate) (*User, error)

	// ChangeEmail changes the viewer's email to the one their sign-in token
	// carries, verified by its issuer (calgraph does not verify addresses
	// itself, and members are added by email); the uniqueness of emails moves
	// with it in one write. Errors: CodeUnauthenticated, CodeInvalid (not the
	// token's verified email), CodeAlreadyExists, CodeVersionConflict.
	ChangeEmail(ctx context.Context, email string, expectedVersion int) (*User, error)

	// DeleteAccount deletes the viewer's account, confirmed by their email:
	// their memberships go, and each calendar they are the last owner of is
	// deleted. It returns the user as they were and the calendars deleted.
	// Errors: CodeUnauthenticated, CodeInvalid (not confirmed).
	DeleteAccount(ctx context.Context, confirmEmail string) (*User, []string, error)
}
