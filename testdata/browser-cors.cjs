// A single-page app served from another localhost port calls calgraph, as
// one under development does (Vite's http://localhost:5173): from a page at
// SPA_URL (another port of localhost), it POSTs to /query (CORS, with its
// preflight) and runs a graphql-transport-ws subscription over a WebSocket
// to the server, which must deliver a change the page makes meanwhile:
// node browser-cors.cjs BASE_URL TOKEN SPA_URL, with BROWSER_DIR holding
// node_modules/playwright-core. The server must allow the page's origin.
'use strict';
const { launch, watch, run } = require('./browser.cjs');
const [base, token, spa] = process.argv.slice(2);
// The API and the app as a developer names them: localhost, on their ports.
const api = base.replace('127.0.0.1', 'localhost');
const origin = new URL(spa.replace('127.0.0.1', 'localhost')).origin;

run(async (problems, timings) => {
  const { context, close } = await launch();
  try {
    const page = await context.newPage();
    await watch(page, problems);
    await page.goto(origin + '/');
    if (await page.evaluate(() => location.origin) !== origin) problems.push('the page is not at ' + origin);
    let t = Date.now();
    const posted = await page.evaluate(post, { api, token, query: 'mutation { createCalendar(input: {name: "From the SPA"}) { calendar { id version } } }' });
    timings.postMs = Date.now() - t;
    if (posted.errors || !posted.data) {
      problems.push('POST /query from ' + origin + ': ' + JSON.stringify(posted));
      return;
    }
    t = Date.now();
    const got = await page.evaluate(subscribe, { api, token, calendar: posted.data.createCalendar.calendar });
    timings.subscriptionMs = Date.now() - t;
    if (got.error) problems.push(`subscription from ${origin}: ${got.error}`);
    else if (got.delivery.kind !== 'CHANGES' || !JSON.stringify(got.delivery).includes('Renamed from the SPA')) {
      problems.push('subscription delivered ' + JSON.stringify(got.delivery));
    }
  } finally {
    await close();
  }
});

// post runs in the page: a cross-origin POST as an app's GraphQL client sends it.
async function post({ api, token, query, variables }) {
  try {
    const res = await fetch(api + '/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
      body: JSON.stringify({ query, variables }),
    });
    return await res.json();
  } catch (e) {
    return { errors: [String(e)] };
  }
}

// subscribe runs in the page: graphql-transport-ws over a WebSocket to the
// API, signed in by connection_init; once subscribed it renames the calendar
// with a POST and resolves with the first delivery, or an error saying how
// far it got. resume (from the calendar's sync token) delivers the rename
// even if it commits before the server follows the calendar.
function subscribe({ api, token, calendar }) {
  return new Promise((resolve) => {
    const seen = [];
    const done = (r) => { clearTimeout(timer); ws.close(); resolve(r); };
    const timer = setTimeout(() => done({ error: 'no delivery after 20 s; messages: ' + JSON.stringify(seen) }), 20000);
    const ws = new WebSocket(api.replace(/^http/, 'ws') + '/query', 'graphql-transport-ws');
    ws.onopen = () => ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: 'Bearer ' + token } }));
    ws.onclose = (e) => done({ error: `the WebSocket closed (code ${e.code}${e.reason ? ', ' + e.reason : ''}); messages: ${JSON.stringify(seen)}` });
    ws.onmessage = async (e) => {
      const msg = JSON.parse(e.data);
      seen.push(msg.type);
      if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      if (msg.type === 'connection_ack') {
        const r = await fetch(api + '/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
          body: JSON.stringify({ query: 'query($id: ID!) { calendar(id: $id) { changes(first: 100) { hasMore syncToken } } }', variables: { id: calendar.id } }),
        }).then((res) => res.json());
        const syncToken = r.data.calendar.changes.syncToken;
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: {
          query: 'subscription($id: ID!, $t: String!) { calendarChanges(calendarIds: [$id], resume: [{calendarId: $id, syncToken: $t}]) { kind calendarId changes { type node { ... on Calendar { name } } } } }',
          variables: { id: calendar.id, t: syncToken },
        } }));
        await fetch(api + '/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
          body: JSON.stringify({ query: 'mutation($id: ID!, $v: Int!) { updateCalendar(input: {id: $id, expectedVersion: $v, name: "Renamed from the SPA"}) { calendar { id } } }', variables: { id: calendar.id, v: calendar.version } }),
        });
      }
      if (msg.type === 'next' && JSON.stringify(msg.payload).includes('Renamed from the SPA')) done({ delivery: msg.payload.data.calendarChanges });
      if (msg.type === 'error') done({ error: 'error message: ' + JSON.stringify(msg.payload) });
    };
  });
}
