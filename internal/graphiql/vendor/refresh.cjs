// Refreshes GraphiQL's vendored files from the npm registry and verifies
// them: for each entry of manifest.json it runs `npm pack PACKAGE@VERSION`,
// checks the tarball's sha512 against the entry's npm integrity, copies the
// entry's path from the tarball to FILE and checks, or records, its sha256.
//
//   node refresh.cjs          verify: any difference fails, nothing is pinned anew
//   node refresh.cjs --pin    after changing a version: record the registry's
//                             integrity and the files' sha256 in manifest.json
//
// It needs node, npm and tar; it writes only this directory. The Go test
// TestVendoredAssets checks the committed files against the recorded sha256.
'use strict';
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const here = __dirname;
const pin = process.argv.includes('--pin');
const manifestPath = path.join(here, 'manifest.json');
const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'graphiql-vendor-'));
const hash = (alg, data, enc) => crypto.createHash(alg).update(data).digest(enc);
const problems = [];

try {
  const packed = new Map(); // PACKAGE@VERSION -> directory it was unpacked in
  for (const entry of manifest) {
    const spec = `${entry.package}@${entry.version}`;
    if (!packed.has(spec)) {
      const dir = fs.mkdtempSync(path.join(work, 'pkg-'));
      const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--silent', spec], { cwd: dir, encoding: 'utf8' }));
      const tgz = path.join(dir, info.filename);
      const integrity = 'sha512-' + hash('sha512', fs.readFileSync(tgz), 'base64');
      if (integrity !== info.integrity) problems.push(`${spec}: the tarball hashes to ${integrity}, the registry says ${info.integrity}`);
      for (const e of manifest.filter((m) => `${m.package}@${m.version}` === spec)) {
        if (pin) e.integrity = integrity;
        else if (e.integrity !== integrity) problems.push(`${spec}: integrity ${integrity}, manifest.json pins ${e.integrity}`);
      }
      execFileSync('tar', ['xzf', tgz, '-C', dir]);
      packed.set(spec, dir);
    }
    const data = fs.readFileSync(path.join(packed.get(spec), 'package', entry.path));
    const sum = hash('sha256', data, 'hex');
    if (pin) entry.sha256 = sum;
    else if (entry.sha256 !== sum) problems.push(`${entry.file}: ${spec}/${entry.path} hashes to ${sum}, manifest.json pins ${entry.sha256}`);
    const target = path.join(here, entry.file);
    if (!pin && fs.existsSync(target) && !fs.readFileSync(target).equals(data)) console.log(`${entry.file}: differed from ${spec}/${entry.path}; replaced`);
    if (pin || entry.sha256 === sum) fs.writeFileSync(target, data);
    console.log(`${entry.file.padEnd(28)} ${spec}/${entry.path} (${data.length} bytes)`);
  }
  if (pin) fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(pin ? 'pinned in manifest.json' : 'every file matches manifest.json and the registry');
