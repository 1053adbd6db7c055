package availability

import (
	"time"

	"github.com/calgraph/calgraph/internal/calendar"
)

// Limits of one request, which bound its answer: at most
// MaxRange / MinStep starts (8,928), each with at most MaxParticipants
// states.
const (
	MaxParticipants = 50
	MaxRange        = 31 * 24 * time.Hour
	MinStep         = 5 * time.Minute
	MaxDuration     = 24 * time.Hour
	MaxBuffer       = 24 * time.Hour
	MaxNotice       = 366 * 24 * time.Hour
)

// Validate says what is wrong with r, if anything, as a BAD_USER_INPUT
// naming the field.
func (r Request) Validate() error {
	if len(r.Groups) == 0 {
		return calendar.Invalidf("participants", "name at least one participant who must attend")
	}
	n := len(r.Optional)
	for _, g := range r.Groups {
		if len(g.Participants) == 0 {
			return calendar.Invalidf("participants", "a group of participants is empty")
		}
		if g.AtLeast < 0 || g.AtLeast > len(g.Participants) {
			return calendar.Invalidf("atLeast", "atLeast must be between 0 (all of them) and the group's %d participants, got %d", len(g.Participants), g.AtLeast)
		}
		n += len(g.Participants)
	}
	if n > MaxParticipants {
		return calendar.Invalidf("participants", "at most %d participants, got %d", MaxParticipants, n)
	}
	switch {
	case !r.From.Before(r.To):
		return calendar.Invalidf("range", "the range must end after it starts")
	case r.To.Sub(r.From) > MaxRange:
		return calendar.Invalidf("range", "the range may be at most %d days", int(MaxRange/(24*time.Hour)))
	case r.Duration < time.Minute || r.Duration > MaxDuration || r.Duration%time.Minute != 0:
		return calendar.Invalidf("duration", "the duration must be whole minutes, from 1 minute to %d hours", int(MaxDuration/time.Hour))
	case r.Duration > r.To.Sub(r.From):
		return calendar.Invalidf("duration", "the duration is longer than the range")
	case r.Step < MinStep || r.Step%time.Minute != 0 || (24*time.Hour)%r.Step != 0:
		return calendar.Invalidf("step", "the step must be whole minutes that divide a day (5, 10, 15, 20, 30, 60, ...), at least %d", int(MinStep/time.Minute))
	case r.BufferBefore < 0 || r.BufferAfter < 0 || r.BufferBefore > MaxBuffer || r.BufferAfter > MaxBuffer:
		return calendar.Invalidf("buffer", "buffers must be between 0 and %d hours", int(MaxBuffer/time.Hour))
	case r.MinNotice < 0 || r.MinNotice > MaxNotice:
		return calendar.Invalidf("minimumNotice", "the minimum notice must be between 0 and %d days", int(MaxNotice/(24*time.Hour)))
	case r.Zone == nil:
		return calendar.Invalidf("timeZone", "a time zone is needed to place the starts")
	}
	for _, p := range r.participants() {
		if p.Hours != nil {
			if err := p.Hours.Validate("workingHours"); err != nil {
				return err
			}
		}
	}
	return nil
}
