"""Reads feeds' series with python-dateutil's rrule module and prints their
occurrences, as parsers.js does with ical.js and rrule.js (same input and
output; "dateutil" is the key). dateutil reads DTSTART, RRULE and EXDATE
lines itself (TZID and VALUE=DATE included); it does not take parameters on
RDATE, whose values are read here in the same zone or as dates.

    apt-get install python3-dateutil   # Debian's 2.8.2, or pip's 2.9.0
    python3 parsers.py < cases.json

With the argument "people" it reads organizers and attendees instead, with
python-icalendar (see people below):

    apt-get install python3-icalendar  # Debian's 4.0.3
    python3 parsers.py people < docs.json
"""
import json
import sys
from datetime import datetime, timezone

from dateutil import tz
from dateutil.rrule import rrulestr


def occurrences(ics, until):
    text = ics.replace("\r\n ", "").replace("\r\n\t", "").split("\r\n")
    event = text[text.index("BEGIN:VEVENT"):text.index("END:VEVENT")]  # not the VTIMEZONEs' DTSTARTs
    lines = [l for l in event if l.split(":")[0].split(";")[0] in ("DTSTART", "RRULE", "RDATE", "EXDATE")]
    dated = any(l.startswith("DTSTART;VALUE=DATE:") for l in lines)
    rdates = [l for l in lines if l.startswith("RDATE")]
    rules = rrulestr("\n".join(l for l in lines if not l.startswith("RDATE")), forceset=True, tzids=tz.gettz)
    for line in rdates:
        params, values = line.split(":", 1)
        zone = tz.UTC
        for p in params.split(";")[1:]:
            if p.startswith("TZID="):
                zone = tz.gettz(p[len("TZID="):])
        for v in values.split(","):
            if dated:
                rules.rdate(datetime.strptime(v, "%Y%m%d"))
            elif v.endswith("Z"):
                rules.rdate(datetime.strptime(v, "%Y%m%dT%H%M%SZ").replace(tzinfo=tz.UTC))
            else:
                rules.rdate(datetime.strptime(v, "%Y%m%dT%H%M%S").replace(tzinfo=zone))
    end = datetime.strptime(until, "%Y-%m-%dT%H:%M:%SZ")
    got = []
    for d in rules:
        if d.tzinfo is None:
            if d >= end:
                break
            got.append(d.strftime("%Y-%m-%d") if dated else d.strftime("%Y-%m-%dT%H:%M:%SZ"))
            continue
        u = d.astimezone(timezone.utc).replace(tzinfo=None)
        if u >= end:
            break
        got.append(u.strftime("%Y-%m-%dT%H:%M:%SZ"))
    return got


def people(ics):
    """With the argument "people" (python3 parsers.py people < docs.json),
    python-icalendar reads each VEVENT's ORGANIZER and ATTENDEEs and writes
    the document back, in parsers.js's output form ("python-icalendar" is
    the key). Debian's python3-icalendar 4.0.3 does not implement RFC 6868:
    a CN with ^' or ^^ is read as written, and written back so."""
    import icalendar

    cal = icalendar.Calendar.from_ical(ics)
    out = []

    def email(p):
        s = str(p)
        return s[len("mailto:"):] if s.lower().startswith("mailto:") else s

    for ev in cal.walk("VEVENT"):
        uid = str(ev.get("UID"))
        rid = ev.get("RECURRENCE-ID")
        if rid is not None:
            uid += "@" + rid.to_ical().decode()
        org = ev.get("ORGANIZER")
        if org is not None:
            out.append("%s ORGANIZER %s CN=%s" % (uid, email(org), org.params.get("CN", "")))
        atts = ev.get("ATTENDEE", [])
        for a in atts if isinstance(atts, list) else [atts]:
            p = a.params
            out.append("%s ATTENDEE %s CN=%s PARTSTAT=%s ROLE=%s RSVP=%s X-NUM-GUESTS=%s" % (
                uid, email(a), p.get("CN", ""), p.get("PARTSTAT", ""), p.get("ROLE", ""), p.get("RSVP", ""),
                p.get("X-NUM-GUESTS", "")))
    return {"people": out, "ics": cal.to_ical().decode()}


cases = json.load(sys.stdin)
if sys.argv[1:] == ["people"]:
    print(json.dumps({c["name"]: {"python-icalendar": people(c["ics"])} for c in cases}, indent=1))
else:
    print(json.dumps({c["name"]: {"dateutil": occurrences(c["ics"], c["until"])} for c in cases}, indent=1))
