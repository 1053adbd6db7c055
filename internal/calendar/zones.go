package calendar

import (
	"sync"
	"time"
)

// zones holds every time zone loaded so far, by name. time.LoadLocation
// reads and parses the zone's data on every call, and a view would load its
// zones several times per calendar. Only names that loaded are kept, so the
// cache is bounded by the time zone database (about 600 names).
var zones sync.Map // string → *time.Location

// LoadLocation is time.LoadLocation, remembered. Callers must have refused
// "" and "Local" (ValidateTimeZone does): those name the server's own zone.
func LoadLocation(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}
