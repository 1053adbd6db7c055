// Sends an operation with @defer as Apollo Client and Relay do, and reads the
// multipart/mixed answer with meros, the parser they use: node
// defer-meros.cjs URL TOKEN QUERY, with AUDIT_DIR holding node_modules/meros.
// Prints the parts' JSON bodies as one JSON array.
const http = require('node:http');
const { meros } = require(process.env.AUDIT_DIR + '/node_modules/meros');
const [url, token, query] = process.argv.slice(2);
const u = new URL(url);
const req = http.request({
  hostname: u.hostname, port: u.port, path: u.pathname, method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'multipart/mixed;deferSpec=20220824, application/json',
    authorization: 'Bearer ' + token,
  },
}, async (res) => {
  const parts = await meros(res);
  const out = [];
  if (!parts[Symbol.asyncIterator]) {
    console.error('not a multipart answer: ' + res.headers['content-type']);
    process.exit(1);
  }
  for await (const part of parts) out.push(part.json ? part.body : JSON.parse(part.body));
  console.log(JSON.stringify(out));
});
req.end(JSON.stringify({ query }));
