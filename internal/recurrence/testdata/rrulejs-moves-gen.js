// Expands series before and after a move of their timing (scope ALL) with
// rrule.js, as an independent reference: each case's rule from its start,
// and the moved rule from the moved start, the same number of times. A move
// shifts every occurrence alike, so the nth before lands on the nth after.
const { RRule } = require('rrule');
const cases = [
  ['hourly, half an hour later', '20260105T090000Z', 'FREQ=HOURLY;COUNT=48', '20260105T093000Z', 'FREQ=HOURLY;COUNT=48'],
  ['every 3 hours, a day and 2 hours later', '20260105T090000Z', 'FREQ=HOURLY;INTERVAL=3;COUNT=40', '20260106T110000Z', 'FREQ=HOURLY;INTERVAL=3;COUNT=40'],
  ['three times a day, a day later', '20260105T090000Z', 'FREQ=DAILY;BYHOUR=9,13,17;COUNT=30', '20260106T090000Z', 'FREQ=DAILY;BYHOUR=9,13,17;COUNT=30'],
  ['three times a day, an hour later', '20260105T090000Z', 'FREQ=DAILY;BYHOUR=9,13,17;COUNT=30', '20260105T100000Z', 'FREQ=DAILY;BYHOUR=10,14,18;COUNT=30'],
  ['every 90 minutes, 45 minutes earlier', '20260105T090000Z', 'FREQ=MINUTELY;INTERVAL=90;COUNT=20', '20260105T081500Z', 'FREQ=MINUTELY;INTERVAL=90;COUNT=20'],
  ['weekdays at 9 and 17, a week and an hour later', '20260105T090000Z', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9,17;BYMINUTE=0;COUNT=20',
    '20260112T100000Z', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=10,18;BYMINUTE=0;COUNT=20'],
  ['quarter hours from 9 to 12, 10 minutes later', '20260105T090000Z', 'FREQ=MINUTELY;INTERVAL=15;BYHOUR=9,10,11;COUNT=24',
    '20260105T091000Z', 'FREQ=MINUTELY;INTERVAL=15;BYHOUR=9,10,11;COUNT=24'],
  ['at 9:50 and 17:50, to 10:10 and 18:10', '20260105T095000Z', 'FREQ=DAILY;BYHOUR=9,17;BYMINUTE=50;COUNT=10',
    '20260105T101000Z', 'FREQ=DAILY;BYHOUR=10,18;BYMINUTE=10;COUNT=10'],
];
const iso = (s) => new Date(s.replace(/(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/, '$1-$2-$3T$4:$5:$6Z'));
const all = (start, rule) => new RRule({ ...RRule.parseString(rule), dtstart: iso(start) }).all().map(d => d.toISOString().replace('.000Z', 'Z'));
const out = cases.map(([name, start, rule, movedStart, movedRule]) =>
  ({ name, start, rule, movedStart, movedRule, before: all(start, rule), after: all(movedStart, movedRule) }));
console.log(JSON.stringify(out, null, 1));
