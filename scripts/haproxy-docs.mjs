// The configuration.txt.gz of every HAProxy of the version matrix (.matrix/binaries.json, or
// $PROXY_TUNER_MATRIX_DIR), oldest version first: the source of the generators of HAProxy facts
// that the documentation alone gives (scripts/gen-haproxy-log-format.mjs, gen-haproxy-action-syntax.mjs).
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const cmp = (a, b) => {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
};

/** [{ version (full, e.g. 3.2.26), file, text() }], oldest first; exits with a message when there is no matrix. */
export function haproxyConfigurationDocs() {
  const dir = process.env.PROXY_TUNER_MATRIX_DIR || join(root, '.matrix');
  const registry = join(dir, 'binaries.json');
  if (!existsSync(registry)) {
    console.error(`no ${registry}: run scripts/provision-matrix.sh first`);
    process.exit(1);
  }
  return JSON.parse(readFileSync(registry, 'utf8'))
    .binaries.filter((b) => b.product === 'haproxy')
    .map((b) => ({ version: b.version, file: join(b.root || '/', 'usr/share/doc/haproxy/configuration.txt.gz') }))
    .filter((d) => existsSync(d.file))
    .sort((a, b) => cmp(a.version, b.version))
    .map((d) => ({ ...d, text: () => gunzipSync(readFileSync(d.file)).toString('utf8') }));
}
