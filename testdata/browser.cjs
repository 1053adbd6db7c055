// What the browser tests share: headless Chromium driven by playwright-core
// (from BROWSER_DIR/node_modules), never a browser of Playwright's own, and
// GraphQL calls made from node. Each test prints one JSON line:
// {"problems": [...], "timings": {...}}; an empty problems list passes.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require(path.join(process.env.BROWSER_DIR, 'node_modules', 'playwright-core'));

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

// launch starts Chromium on a fresh profile, removed by close().
async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'calgraph-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context.setDefaultTimeout(30000);
  const close = async () => {
    await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

// graphql posts an operation from node and returns its data, failing on errors.
async function graphql(url, token, query, variables) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors)}`);
  return body.data;
}

// watch records what goes wrong in a page: uncaught errors, console errors,
// Content-Security-Policy violations and failed requests.
async function watch(page, problems) {
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => console.error(`Content-Security-Policy violation: ${e.violatedDirective} ${e.blockedURI}`)));
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure() && r.failure().errorText})`));
}

// run runs main(problems, timings) and prints the result line; an exception
// becomes a problem.
function run(main) {
  const problems = [];
  const timings = {};
  const start = Date.now();
  main(problems, timings)
    .catch((e) => problems.push('failed: ' + (e && e.stack || e)))
    .finally(() => {
      timings.totalMs = Date.now() - start;
      console.log(JSON.stringify({ problems, timings }));
    });
}

module.exports = { launch, graphql, watch, run };
