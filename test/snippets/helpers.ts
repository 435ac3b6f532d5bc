// Running the version matrix's binaries on a config of our own: `nginx -t` and `haproxy -c` in
// a fresh folder (nothing binds: both only read and check the config), and a throw-away
// certificate made by openssl for the TLS snippets.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findMatrixBinary, loadMatrix, type MatrixBinary, type MatrixProduct } from '../../server/src/runner/matrix';

export const NGINX_VERSIONS = ['1.22', '1.26', '1.30'];
export const HAPROXY_VERSIONS = ['2.6', '3.0', '3.2'];

/** The matrix binaries of a product that this machine has (CI provisions all six). */
export function matrixBinaries(product: MatrixProduct, versions: string[]): MatrixBinary[] {
  const list = loadMatrix();
  return versions.map((v) => findMatrixBinary(product, v, list)).filter((b): b is MatrixBinary => !!b);
}

export function tempDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `pt-${name}-`));
}

/** A self-signed certificate and key for `example.com`, valid a day; `pem` holds both (HAProxy's `crt`). */
export function throwAwayCert(dir: string, crt: string, key: string, pem?: string): void {
  for (const f of [crt, key, pem]) if (f) mkdirSync(dirname(join(dir, f)), { recursive: true });
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=example.com', '-keyout', join(dir, key), '-out', join(dir, crt)], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  if (pem) {
    writeFileSync(join(dir, pem), readFileSync(join(dir, crt), 'utf8') + readFileSync(join(dir, key), 'utf8'));
  }
}

export interface CheckRun {
  status: number | null;
  output: string;
}

/** `nginx -t` on `conf` written to dir/nginx.conf (relative paths in it resolve against dir). */
export function nginxTest(bin: MatrixBinary, dir: string, conf: string): CheckRun {
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const r = spawnSync(bin.path, ['-t', '-p', `${dir}/`, '-c', file, '-e', join(dir, 'error.log')], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** `haproxy -c` on `conf` written to dir/haproxy.cfg, run in dir (relative `crt` paths resolve there). */
export function haproxyCheck(bin: MatrixBinary, dir: string, conf: string): CheckRun {
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, conf);
  const r = spawnSync(bin.path, ['-c', '-f', file], { encoding: 'utf8', cwd: dir, timeout: 30_000 });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The lines nginx or HAProxy print as warnings or worse. */
export function complaints(output: string): string[] {
  return output.split('\n').filter((l) => /\[(warn|emerg|alert|crit|error)\]|\[(WARNING|ALERT)\]/.test(l));
}
