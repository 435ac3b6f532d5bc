// The default target version: the nginx / HAProxy installed on this machine, when there is one.
// Plain Node (no LSP), shared by the language server and the command line so that both judge
// a config against the same version. Each binary is asked once per process, with a short
// timeout; a missing or hanging binary only means "no local version" (judge as the newest).
// What a binary answered is also kept on disk, keyed by the binary's path, size, times and inode:
// starting `nginx -v` costs a short-lived command like `check` more than reading that record.
import type * as ChildProcess from 'node:child_process';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LanguageId } from '../core/types';
import { cacheDir, makeCacheDir } from './cacheDir';
import { findOnPath } from '../runner/lookup';

const BINARY: Record<LanguageId, string> = { nginx: 'nginx', haproxy: 'haproxy' };

/** `nginx version: nginx/1.22.1`, `nginx version: openresty/1.21.4.1`, `HAProxy version 2.6.12-1+deb12u4 ...`. */
export function parseVersionOutput(lang: LanguageId, output: string): string | undefined {
  const re = lang === 'nginx' ? /nginx version:\s*[\w.-]*\/(\d+\.\d+(?:\.\d+)?)/i : /HA-?Proxy version\s+(\d+\.\d+(?:\.\d+)?)/i;
  return re.exec(output)?.[1];
}

/** The binary to ask: an explicit path, else the first one on PATH or in the usual sbin folders. */
export function findBinary(lang: LanguageId, explicitPath?: string, envPath = process.env.PATH ?? ''): string | undefined {
  if (explicitPath) return existsSync(explicitPath) ? explicitPath : undefined;
  return findOnPath(BINARY[lang], envPath);
}

const cache = new Map<string, string | undefined>();

/** child_process, loaded when a binary is really asked (not when its version was recorded). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = (): typeof ChildProcess => require('node:child_process') as typeof ChildProcess;

/** Where the versions found are kept between runs: `local-versions.json` in the user's cache folder (cacheDir.ts). */
export function versionCacheFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = cacheDir(env);
  return dir ? join(dir, 'local-versions.json') : undefined;
}

interface VersionRecord {
  /** The binary's size, modification and change times and inode: a new build changes them. */
  stamp: string;
  version?: string;
  /** What `nginx -V` printed (its build: modules, paths), asked only when needed. */
  build?: string;
}

/** At most this many binaries are remembered (the file never grows without bound). */
const MAX_RECORDS = 32;

function stampOf(bin: string): string | undefined {
  try {
    const st = statSync(bin);
    return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function readRecords(file: string): Record<string, VersionRecord> {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { binaries?: Record<string, VersionRecord> };
    return data && typeof data.binaries === 'object' && data.binaries ? data.binaries : {};
  } catch {
    return {};
  }
}

/** A field of `bin`'s record while the binary is the same file as when it was recorded, if any. */
function recorded(bin: string, field: 'version' | 'build', file: string | undefined): string | undefined {
  if (!file) return undefined;
  const stamp = stampOf(bin);
  const rec = stamp ? readRecords(file)[bin] : undefined;
  const value = rec && rec.stamp === stamp ? rec[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The version recorded for `bin` while it was the same file as now, if any. */
export function recordedVersion(bin: string, file = versionCacheFile()): string | undefined {
  return recorded(bin, 'version', file);
}

/** Records what `bin` answered (a binary that gave no version is asked again next time). Never throws. */
export function recordVersion(bin: string, version: string, file = versionCacheFile()): void {
  updateRecord(bin, { version }, file);
}

/** What `nginx -V` printed for `bin` while it was the same file as now, if recorded. */
export function recordedBuild(bin: string, file = versionCacheFile()): string | undefined {
  return recorded(bin, 'build', file);
}

/** Records what `nginx -V` printed for `bin`. Never throws. */
export function recordBuild(bin: string, build: string, file = versionCacheFile()): void {
  updateRecord(bin, { build }, file);
}

/** Sets fields of `bin`'s record, keeping the others while the binary is the same file. */
function updateRecord(bin: string, fields: Partial<VersionRecord>, file: string | undefined): void {
  if (!file) return;
  const stamp = stampOf(bin);
  if (!stamp) return;
  try {
    const records = readRecords(file);
    const old = records[bin];
    delete records[bin];
    const kept = Object.entries(records).slice(-(MAX_RECORDS - 1));
    kept.push([bin, { ...(old && old.stamp === stamp ? old : {}), ...fields, stamp }]);
    makeCacheDir(dirname(file));
    // written aside and renamed: a reader never sees half a file, two writers never mix
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ binaries: Object.fromEntries(kept) }, null, 1)}\n`);
    renameSync(tmp, file);
  } catch {
    // a read-only or missing home: the binary is simply asked again next time
  }
}

/**
 * The version of the local binary (`nginx -v` / `haproxy -v`), or undefined when there is none
 * or it does not answer within `timeoutMs`. Never throws; the answer is cached per binary.
 * `PROXY_TUNER_NO_LOCAL_VERSION=1` turns the probe off (reproducible runs, tests).
 */
export function localVersion(lang: LanguageId, explicitPath?: string, timeoutMs = 2000): string | undefined {
  if (process.env.PROXY_TUNER_NO_LOCAL_VERSION === '1') return undefined;
  const key = `${lang}\0${explicitPath ?? ''}`;
  if (cache.has(key)) return cache.get(key);
  let version: string | undefined;
  try {
    const bin = findBinary(lang, explicitPath);
    if (bin) {
      version = recordedVersion(bin);
      if (version === undefined) {
        const r = childProcess().spawnSync(bin, ['-v'], {
          encoding: 'utf8',
          timeout: timeoutMs,
          stdio: ['ignore', 'pipe', 'pipe'],
          windowsHide: true,
        });
        version = parseVersionOutput(lang, `${r.stdout ?? ''}\n${r.stderr ?? ''}`);
        if (version !== undefined) recordVersion(bin, version);
      }
    }
  } catch {
    version = undefined;
  }
  cache.set(key, version);
  return version;
}

/**
 * Asks the binary in the background (`check` starts it before parsing, so the binary runs while
 * the config is parsed); resolves once `localVersion` has the answer in its cache. The same
 * binary, arguments, timeout and parsing as `localVersion`; never rejects.
 */
export function prefetchLocalVersion(lang: LanguageId, explicitPath?: string, timeoutMs = 2000): Promise<void> {
  if (process.env.PROXY_TUNER_NO_LOCAL_VERSION === '1') return Promise.resolve();
  const key = `${lang}\0${explicitPath ?? ''}`;
  if (cache.has(key)) return Promise.resolve();
  let running = inFlight.get(key);
  if (!running) {
    running = probeInBackground(lang, key, explicitPath, timeoutMs).finally(() => inFlight.delete(key));
    inFlight.set(key, running);
  }
  return running;
}

/** Background probes under way, per binary: a second caller waits for the same one. */
const inFlight = new Map<string, Promise<void>>();

function probeInBackground(lang: LanguageId, key: string, explicitPath: string | undefined, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (version: string | undefined) => {
      if (!cache.has(key)) cache.set(key, version);
      resolve();
    };
    try {
      const bin = findBinary(lang, explicitPath);
      if (!bin) return done(undefined);
      const recorded = recordedVersion(bin);
      if (recorded !== undefined) return done(recorded);
      const child = childProcess().spawn(bin, ['-v'], { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
      child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
      const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
      child.on('error', () => {
        clearTimeout(timer);
        done(undefined);
      });
      child.on('close', () => {
        clearTimeout(timer);
        const version = parseVersionOutput(lang, `${out}\n${err}`);
        if (version !== undefined) recordVersion(bin, version);
        done(version);
      });
    } catch {
      done(undefined);
    }
  });
}

/** `nginx -V`'s output per binary, asked once per process. */
const nginxVOutputs = new Map<string, string | undefined>();

/**
 * What the local nginx says to `-V` (stdout and stderr: the version, the configure arguments),
 * or undefined without a binary. Run once per binary and process: the build facts and the
 * loadable modules (binaryFacts.ts, hostFacts.ts) both read this one answer. Never throws.
 */
export function localNginxV(explicitPath?: string, timeoutMs = 2000): string | undefined {
  try {
    const bin = findBinary('nginx', explicitPath);
    if (!bin) return undefined;
    if (!nginxVOutputs.has(bin)) {
      // a binary that is the same file as when it was last asked answers from the record
      let printed = recordedBuild(bin);
      if (printed === undefined) {
        const r = childProcess().spawnSync(bin, ['-V'], { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
        printed = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
        if (/nginx version:/.test(printed)) recordBuild(bin, printed);
      }
      nginxVOutputs.set(bin, printed);
    }
    return nginxVOutputs.get(bin);
  } catch {
    return undefined;
  }
}
