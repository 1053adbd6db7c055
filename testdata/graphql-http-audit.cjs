// Runs graphql-http's server audits (the GraphQL-over-HTTP spec's checks)
// against a calgraph endpoint: node graphql-http-audit.cjs URL TOKEN, with
// AUDIT_DIR holding node_modules/graphql-http. Prints one JSON line.
const { serverAudits } = require(process.env.AUDIT_DIR + '/node_modules/graphql-http');
const [url, token] = process.argv.slice(2);
const fetchFn = (input, init = {}) => {
  const headers = new Headers(init.headers || {});
  headers.set('authorization', 'Bearer ' + token);
  return fetch(input, { ...init, headers });
};
(async () => {
  const out = { ok: 0, notOk: [] };
  for (const audit of serverAudits({ url, fetchFn })) {
    const r = await audit.fn();
    if (r.status === 'ok') out.ok++;
    else out.notOk.push(`${r.status} ${audit.id} ${audit.name}: ${r.reason}`);
  }
  console.log(JSON.stringify(out));
})();
