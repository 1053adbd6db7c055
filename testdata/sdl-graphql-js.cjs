// Builds a schema from calgraph's SDL with graphql-js, as code generators and
// editors do, and validates operations against it: node sdl-graphql-js.cjs
// SDL_URL OPERATION..., with AUDIT_DIR holding node_modules/graphql. Prints
// one JSON array: for each operation, the messages graphql-js reported.
const { buildSchema, parse, validate } = require(process.env.AUDIT_DIR + '/node_modules/graphql');
const [url, ...operations] = process.argv.slice(2);
(async () => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  const schema = buildSchema(await res.text());
  console.log(JSON.stringify(operations.map((op) => validate(schema, parse(op)).map((e) => e.message))));
})().catch((e) => { console.error(e); process.exit(1); });
