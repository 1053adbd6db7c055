// Reads feeds' series with two independent iCalendar readers and prints
// their occurrences: ical.js 2.2.1 (Mozilla's, a port of libical, which
// Thunderbird uses) and rrule.js 2.8.1 (the RRULE library most JavaScript
// calendars use). Input on stdin: [{name, ics, until}], a VCALENDAR with
// one series each, its VTIMEZONEs included, and the instant to stop before.
// Output: {name: {"ical.js": [...], "rrule.js": [...] | null}}, instants in
// UTC ("2026-01-05T09:00:00Z"), or dates ("2026-01-05") for a series of
// whole days.
//
// rrule.js reads only RRULE, DTSTART, RDATE and EXDATE lines, and not
// VALUE=DATE: a date is given to it in its own plain form (20260105). It
// reads UNTIL of a rule with TZID as a wall clock, not as the UTC instant
// RFC 5545 says (a Paris rule with UNTIL at its last occurrence's instant
// loses that occurrence), so series in a zone other than UTC are left to
// ical.js (and dateutil: parsers.py).
//
//	npm install rrule@2.8.1 ical.js@2.2.1
//	node parsers.js < cases.json
const ICAL = require('ical.js');
const { rrulestr } = require('rrule');

const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = {};
for (const { name, ics, until } of input) {
  if (process.argv[2] === 'people') {
    out[name] = { 'ical.js': peopleWithICALjs(ics) };
    continue;
  }
  const end = new Date(until);
  out[name] = { 'ical.js': withICALjs(ics, end), 'rrule.js': withRRulejs(ics, end) };
}
console.log(JSON.stringify(out, null, 1));

// With the argument "people" (node parsers.js people < docs.json, input
// [{name, ics}]), ical.js reads each VEVENT's ORGANIZER and ATTENDEEs
// instead, and writes the document back as it holds it:
// {name: {"ical.js": {people: ["<UID> ORGANIZER <email> CN=<cn>",
// "<UID> ATTENDEE <email> CN=… PARTSTAT=… ROLE=… RSVP=… X-NUM-GUESTS=…"],
// ics}}}, a parameter the property lacks shown empty, and an override's
// <UID> followed by @<its RECURRENCE-ID as written>.
function peopleWithICALjs(ics) {
  const cal = new ICAL.Component(ICAL.parse(ics));
  const people = [];
  const param = (p, name) => { const v = p.getParameter(name); return v === null || v === undefined ? '' : String(v); };
  const email = p => String(p.getFirstValue()).replace(/^mailto:/i, '');
  for (const ev of cal.getAllSubcomponents('vevent')) {
    const rid = ev.getFirstPropertyValue('recurrence-id');
    const uid = ev.getFirstPropertyValue('uid') + (rid ? '@' + rid.toICALString() : '');
    for (const p of ev.getAllProperties('organizer')) {
      people.push(`${uid} ORGANIZER ${email(p)} CN=${param(p, 'cn')}`);
    }
    for (const p of ev.getAllProperties('attendee')) {
      people.push(`${uid} ATTENDEE ${email(p)} CN=${param(p, 'cn')} PARTSTAT=${param(p, 'partstat')} ROLE=${param(p, 'role')}` +
        ` RSVP=${param(p, 'rsvp')} X-NUM-GUESTS=${param(p, 'x-num-guests')}`);
    }
  }
  return { people, ics: cal.toString() };
}

function withICALjs(ics, end) {
  const cal = new ICAL.Component(ICAL.parse(ics));
  for (const tz of cal.getAllSubcomponents('vtimezone')) {
    ICAL.TimezoneService.register(tz);
  }
  const event = new ICAL.Event(cal.getFirstSubcomponent('vevent'));
  const it = event.iterator();
  const got = [];
  for (let t = it.next(); t && got.length < 1000; t = it.next()) {
    const d = t.toJSDate();
    if (d >= end) break;
    got.push(t.isDate ? t.toString() : d.toISOString().replace('.000Z', 'Z'));
  }
  return got;
}

function withRRulejs(ics, end) {
  const all = ics.replace(/\r\n[ \t]/g, '').split('\r\n');
  const event = all.slice(all.indexOf('BEGIN:VEVENT'), all.indexOf('END:VEVENT'));
  const lines = event.filter(l => /^(DTSTART|RRULE|RDATE|EXDATE)[:;]/.test(l));
  if (lines.some(l => l.includes('TZID='))) return null;
  const dated = lines.some(l => l.startsWith('DTSTART;VALUE=DATE:'));
  const set = rrulestr(lines.map(l => l.replace(';VALUE=DATE:', ':')).join('\n'), { forceset: true });
  return set.between(new Date(-8640000000000000), end, true).filter(d => d < end)
    .map(d => dated ? d.toISOString().slice(0, 10) : d.toISOString().replace('.000Z', 'Z'));
}
