// The version matrix's registry: which nginx and HAProxy binaries this machine has, of which
// version, in which Debian root (scripts/provision-matrix.sh writes `binaries.json`). A node
// adapter (it reads the disk); the language service never imports it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export type MatrixProduct = 'nginx' | 'haproxy';

export interface MatrixBinary {
  product: MatrixProduct;
  /** Full version, as the binary's own `-v` prints it: `1.26.3`, `3.0.11`. */
  version: string;
  /** Debian suite the binary comes from: `bookworm` (the host's own), `trixie`, `sid`. */
  suite: string;
  /** The Debian root it lives in; '' for the host's own binary. */
  root: string;
  /** A path that runs it (for a root's binary, a launcher that uses the root's loader). */
  path: string;
  /** Its own nginx modules folder (the compiled-in one points at the host's /usr/lib/nginx/modules). */
  modulesDir: string;
  /** Its own configuration folder (`/etc/nginx` of its root): mime.types, modules-enabled/. */
  confDir: string;
}

/** The matrix folder: `$PROXY_TUNER_MATRIX_DIR`, else the nearest `.matrix/` with a registry above `from`. */
export function matrixDir(env: NodeJS.ProcessEnv = process.env, from: string = __dirname): string | undefined {
  if (env.PROXY_TUNER_MATRIX_DIR) return resolve(env.PROXY_TUNER_MATRIX_DIR);
  for (let d = resolve(from); ; d = dirname(d)) {
    if (existsSync(join(d, '.matrix', 'binaries.json'))) return join(d, '.matrix');
    if (dirname(d) === d) return undefined;
  }
}

function isBinary(x: unknown): x is MatrixBinary {
  const b = x as MatrixBinary;
  return (
    !!b &&
    (b.product === 'nginx' || b.product === 'haproxy') &&
    typeof b.version === 'string' &&
    typeof b.path === 'string' &&
    typeof b.suite === 'string' &&
    typeof b.root === 'string' &&
    typeof b.modulesDir === 'string' &&
    typeof b.confDir === 'string'
  );
}

/** Every binary of the registry, oldest version first per product; [] when there is none. */
export function loadMatrix(dir: string | undefined = matrixDir()): MatrixBinary[] {
  if (!dir) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dir, 'binaries.json'), 'utf8'));
  } catch {
    return [];
  }
  const list = (parsed as { binaries?: unknown[] })?.binaries;
  if (!Array.isArray(list)) return [];
  return list
    .filter(isBinary)
    .filter((b) => existsSync(b.path))
    .sort((a, b) => (a.product === b.product ? compareVersions(a.version, b.version) : a.product < b.product ? -1 : 1));
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/**
 * The binary of `product` whose version is `version` or starts with it as a prefix of whole
 * components (`1.26` finds 1.26.3); the newest such. undefined when the matrix has none.
 */
export function findMatrixBinary(
  product: MatrixProduct,
  version: string,
  binaries: MatrixBinary[] = loadMatrix(),
): MatrixBinary | undefined {
  const want = version.trim();
  const hits = binaries.filter((b) => b.product === product && (b.version === want || b.version.startsWith(want + '.')));
  return hits[hits.length - 1];
}
