// Hashes what scripts/behaviour-hash.ts leaves out: the workspace validation (names across files)
// of every corpus file at two targets, the `nginx -V` module notes of the local nginx, and the
// large-document check. `node --import tsx scripts/behaviour-hash-host.ts ROOT [--strip]`, ROOT a
// checkout of the tree to hash (e.g. `git archive <commit> | tar -x -C /tmp/base`, node_modules
// linked); `--strip` drops exactly what the registry branch changed on purpose (the doc link of
// the binaries' codes, the language prefix and link of the large-document codes), so a run of
// the base and a stripped run of the branch must print the same hashes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const root = resolve(process.argv[2] ?? '.');
const strip = process.argv.includes('--strip');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the tree to hash is named on the command line
const svc = require(`${root}/server/src/service/languageService`);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the tree to hash is named on the command line
const bf = require(`${root}/server/src/host/binaryFacts`);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the tree to hash is named on the command line
const ld = require(`${root}/server/src/service/largeDocument`);
const hash = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex').slice(0, 16);
const norm = (ds: any[], large = false) =>
  ds.map((d) => {
    const o = { ...d };
    if (strip) {
      if (o.code === 'nginx/module-not-in-binary' || /\/binary-check$/.test(o.code)) delete o.codeDescription;
      // the large-document check's codes got their language (and so a row, and the syntax row's link)
      if (large && typeof o.code === 'string') {
        o.code = o.code.replace(/^(nginx|haproxy)\//, '');
        delete o.codeDescription;
      }
    }
    return o;
  });
const facts = bf.localNginxBuild();
for (const lang of ['nginx', 'haproxy']) {
  const dir = resolve(process.env.PROXY_TUNER_CORPUS ?? resolve(__dirname, '../../shared/corpus'), lang);
  const files = readFileSync(resolve(dir, 'verdicts.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t')[0]);
  const ws = svc.createWorkspaceIndex({});
  const out: Record<string, unknown[]> = { workspace: [], modules: [], large: [] };
  let n = 0;
  for (const file of files) {
    const f = ws.get(pathToFileURL(resolve(dir, file)).href);
    for (const settings of [{}, lang === 'nginx' ? { nginxVersion: '1.22.1' } : { haproxyVersion: '2.6' }]) {
      const ds = svc.diagnose(f.doc, f.lang, settings, ws);
      n += ds.length;
      out.workspace.push(norm(ds));
    }
    if (lang === 'nginx' && facts) {
      let m = bf.moduleDiagnostics(f.doc, f.ast, facts);
      if (svc.applyRules) m = svc.applyRules(f.doc, 'nginx', m, {});
      out.modules.push(norm(m));
    }
    let l = ld.largeDocumentDiagnostics(f.doc.getText(), lang);
    if (svc.applyRules) l = svc.applyRules(f.doc, lang, l, {});
    out.large.push(norm(l, true));
  }
  console.log(
    lang,
    `${files.length} files, ${n} workspace diagnostics`,
    Object.entries(out)
      .map(([k, v]) => `${k} ${hash(v)} (${v.flat().length})`)
      .join('  '),
  );
}
