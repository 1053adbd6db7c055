package ical

import (
	"cmp"
	"slices"
	"strings"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/calgraph/calgraph/internal/calendar"
)

// fields reads the fields a component gives, each Set when its property is
// there: SUMMARY (noTitle when empty), DESCRIPTION, LOCATION, COLOR (only a
// "#RRGGBB" one: RFC 7986 also allows CSS color names, which calgraph does
// not store), CATEGORIES and, when the component has VALARMs, the reminders
// among them whose TRIGGER is relative to related ("START" or "END").
func fields(c *goical.Component, related string) calendar.EntryUpdate {
	var u calendar.EntryUpdate
	if p := c.Props.Get(goical.PropSummary); p != nil {
		u.Title = calendar.Set(cmp.Or(strings.TrimSpace(text(p)), noTitle))
	}
	if p := c.Props.Get(goical.PropDescription); p != nil {
		u.Description = calendar.Set(text(p))
	}
	if p := c.Props.Get(goical.PropLocation); p != nil {
		u.Location = calendar.Set(text(p))
	}
	if p := c.Props.Get(goical.PropColor); p != nil {
		if color := strings.TrimSpace(text(p)); calendar.ValidateColor("color", color) == nil {
			u.Color = calendar.Set(color)
		}
	}
	if ps := c.Props.Values(goical.PropCategories); len(ps) > 0 {
		u.Tags = calendar.Set(tags(ps))
	}
	if t, ok := transparencyOf(c); ok {
		u.Transparency = calendar.Set(t)
	}
	if p := c.Props.Get(goical.PropClass); p != nil {
		// CONFIDENTIAL (RFC 5545: show the time only) is read as PRIVATE:
		// calgraph's PRIVATE shows others only the time.
		switch strings.ToUpper(strings.TrimSpace(text(p))) {
		case "PRIVATE", "CONFIDENTIAL":
			u.Visibility = calendar.Set(calendar.VisibilityPrivate)
		}
	}
	var alarms []*goical.Component
	for _, child := range c.Children {
		if child.Name == goical.CompAlarm {
			alarms = append(alarms, child)
		}
	}
	if len(alarms) > 0 {
		u.Reminders = calendar.Set(reminders(alarms, related))
	}
	return u
}

// text reads a TEXT property whole. go-ical's Prop.Text stops at the first
// unescaped comma, which lax producers leave in SUMMARY and DESCRIPTION, so
// the list is joined again; a malformed escape, which go-ical refuses, leaves
// the raw value rather than losing the property.
func text(p *goical.Prop) string {
	l, err := p.TextList()
	if err != nil {
		return p.Value
	}
	return strings.Join(l, ",")
}

// tags reads every CATEGORIES property's list, trimmed, without empty or
// repeated names.
func tags(ps []goical.Prop) []string {
	var out []string
	for _, p := range ps {
		l, err := p.TextList()
		if err != nil {
			l = strings.Split(p.Value, ",")
		}
		for _, t := range l {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// reminders returns the minutes before the start (or due time) of the
// alarms whose TRIGGER is a duration relative to related and not after it,
// rounded up to whole minutes, sorted, and at most calendar.MaxReminders of
// them (the nearest). Absolute triggers (VALUE=DATE-TIME), triggers after
// the start and ones further ahead than calgraph allows are left out.
func reminders(alarms []*goical.Component, related string) []int {
	var out []int
	for _, a := range alarms {
		p := a.Props.Get(goical.PropTrigger)
		if p == nil || !strings.EqualFold(cmp.Or(p.Params.Get(goical.ParamRelated), "START"), related) {
			continue
		}
		dur, err := p.Duration() // fails for an absolute trigger
		if err != nil || dur > 0 {
			continue
		}
		if m := int((-dur + time.Minute - 1) / time.Minute); m <= calendar.MaxReminderMinutes {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return out[:min(len(out), calendar.MaxReminders)]
}

// transparencyOf reads how an event counts in free/busy time: Outlook's busy
// status when it has one calgraph knows (FREE, BUSY, TENTATIVE, OOF), else
// TRANSP (TRANSPARENT is FREE, OPAQUE BUSY); ok is false with neither (the
// entry then takes its kind's default: a whole-day event is FREE, where RFC
// 5545 would say OPAQUE, as calgraph's own feeds write it explicitly).
func transparencyOf(c *goical.Component) (calendar.Transparency, bool) {
	if p := c.Props.Get(busyStatus); p != nil {
		switch strings.ToUpper(strings.TrimSpace(p.Value)) {
		case "FREE":
			return calendar.TransparencyFree, true
		case "BUSY":
			return calendar.TransparencyBusy, true
		case "TENTATIVE":
			return calendar.TransparencyTentative, true
		case "OOF":
			return calendar.TransparencyOutOfOffice, true
		}
	}
	if p := c.Props.Get(goical.PropTransparency); p != nil {
		switch strings.ToUpper(strings.TrimSpace(p.Value)) {
		case "TRANSPARENT":
			return calendar.TransparencyFree, true
		case "OPAQUE":
			return calendar.TransparencyBusy, true
		}
	}
	return "", false
}
