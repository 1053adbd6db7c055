// Opens GraphiQL in headless Chromium with every request to another origin
// refused (as with no network), checks that it starts with the dev token in
// its headers editor, then runs a subscription from it over the server's
// WebSocket and waits for a change made meanwhile to show in its result
// pane; with GraphiQL's bundle refused, the page must show its help instead:
// node browser-graphiql.cjs BASE_URL TOKEN, with BROWSER_DIR holding
// node_modules/playwright-core.
'use strict';
const { launch, graphql, watch, run } = require('./browser.cjs');
const [base, token] = process.argv.slice(2);
const endpoint = base + '/query';

run(async (problems, timings) => {
  let t = Date.now();
  const cal = (await graphql(endpoint, token, 'mutation { createCalendar(input: {name: "Live"}) { calendar { id version } } }')).createCalendar.calendar;
  let page1 = { hasMore: true, syncToken: null };
  while (page1.hasMore) {
    page1 = (await graphql(endpoint, token, 'query($id: ID!, $t: String) { calendar(id: $id) { changes(syncToken: $t) { hasMore syncToken } } }',
      { id: cal.id, t: page1.syncToken })).calendar.changes;
  }
  const { context, close } = await launch();
  try {
    timings.launchMs = Date.now() - t;
    const foreign = [];
    await context.route('**/*', (route) => {
      if (new URL(route.request().url()).origin === new URL(base).origin) return route.continue();
      foreign.push(route.request().url());
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    await watch(page, problems);
    const frames = [];
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => frames.push({ sent: true, payload: String(f.payload) }));
      ws.on('framereceived', (f) => frames.push({ sent: false, payload: String(f.payload) }));
    });

    t = Date.now();
    // GraphiQL introspects the schema as it starts; run nothing before that ends.
    const introspected = page.waitForResponse((r) => r.url() === endpoint && r.request().method() === 'POST');
    const res = await page.goto(base + '/');
    const csp = res.headers()['content-security-policy'] || '';
    if (!csp.includes("script-src 'self'")) problems.push(`Content-Security-Policy ${JSON.stringify(csp)}, want script-src 'self'`);
    await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 20000 });
    if ((await introspected).status() !== 200) problems.push('introspection answered ' + (await introspected).status());
    timings.graphiqlStartMs = Date.now() - t;
    const editors = () => page.evaluate(() => [...document.querySelectorAll('.CodeMirror')].map((e) => e.CodeMirror.getValue()));
    if (!(await editors()).some((v) => v.includes(`"Authorization": "Bearer ${token}"`))) {
      problems.push('no editor holds the dev token; editors: ' + JSON.stringify(await editors()));
    }

    // A dialog adds a <style> element, which the page's Content-Security-Policy
    // allows only with its nonce (a violation is a problem: see watch).
    await page.click('button[aria-label="Open settings dialog"]');
    await page.waitForSelector('[role="dialog"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[role="dialog"]', { state: 'detached' });

    t = Date.now();
    // resume, from a token read before the subscription starts, makes the
    // change below arrive whether or not the server follows the calendar yet.
    const subscription = `subscription { calendarChanges(calendarIds: ["${cal.id}"], resume: [{calendarId: "${cal.id}", syncToken: "${page1.syncToken}"}]) { kind calendarId changes { type node { ... on Calendar { name } } } } }`;
    const queryEditor = '.graphiql-query-editor .CodeMirror';
    await page.evaluate(([sel, q]) => document.querySelector(sel).CodeMirror.setValue(q), [queryEditor, subscription]);
    // GraphiQL parses the editor's text a moment after it changes, and sends
    // over the WebSocket only what it has parsed as a subscription.
    await waitFor(() => page.evaluate((sel) => {
      const ast = document.querySelector(sel).CodeMirror.documentAST;
      return Boolean(ast && ast.definitions[0].operation === 'subscription');
    }, queryEditor), 'GraphiQL to parse the subscription', async () => 'it did not');
    const shown = () => page.evaluate(() => document.querySelector('.result-window .CodeMirror').CodeMirror.getValue());
    await page.click('.graphiql-execute-button');
    await waitFor(() => frames.some((f) => f.sent && f.payload.includes('"subscribe"')), 'the subscribe message',
      async () => `the query editor holds ${await page.evaluate(() => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue())}; the result pane ${await shown()}; WebSocket frames ${JSON.stringify(frames)}`);
    await graphql(endpoint, token, 'mutation($id: ID!, $v: Int!) { updateCalendar(input: {id: $id, expectedVersion: $v, name: "Renamed live"}) { calendar { id } } }',
      { id: cal.id, v: cal.version });
    await waitFor(async () => (await shown()).includes('Renamed live'), 'the delivery in the result pane',
      async () => 'the result pane shows ' + await shown());
    timings.subscriptionMs = Date.now() - t;
    const result = JSON.parse(await shown());
    if (result.data.calendarChanges.kind !== 'CHANGES' || result.data.calendarChanges.calendarId !== cal.id) {
      problems.push('result pane shows ' + JSON.stringify(result));
    }
    if (!frames.some((f) => !f.sent && f.payload.includes('"next"') && f.payload.includes('Renamed live'))) {
      problems.push('no "next" message with the change came over the WebSocket');
    }
    if (!frames.some((f) => f.sent && f.payload.includes('connection_init') && f.payload.includes(token))) {
      problems.push('connection_init did not carry the headers editor\'s Authorization');
    }
    if (foreign.length > 0) problems.push('the page asked other origins for: ' + foreign.join(', '));
    await offline(context, problems);
  } finally {
    await close();
  }
});

// offline opens the page with GraphiQL's bundle refused: instead of GraphiQL
// it must show the help, with the endpoint's absolute URL and the dev token.
async function offline(context, problems) {
  const page = await context.newPage();
  await page.route('**/graphiql.min.js', (route) => route.abort('internetdisconnected'));
  await page.goto(base + '/');
  const help = await page.waitForSelector('#calgraph-offline', { state: 'visible' });
  const text = await help.innerText();
  for (const want of ['GraphiQL could not start', 'GraphiQL did not load', endpoint, 'Authorization: Bearer ' + token, '/schema.graphql']) {
    if (!text.includes(want)) problems.push(`the help shown without GraphiQL lacks ${JSON.stringify(want)}: ${text}`);
  }
  if (await page.isVisible('#graphiql')) problems.push('GraphiQL\'s element is visible beside the help');
  await page.close();
}

// waitFor polls cond every 100 ms for up to 20 s; on a timeout the error
// says what was awaited and what state() reports.
async function waitFor(cond, what, state) {
  const deadline = Date.now() + 20000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${await state()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
