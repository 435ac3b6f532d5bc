// The nginx and HAProxy binaries installed here, as the status bar, the version picker and the
// benchmark panel list them: the one on PATH (plus the usual sbin folders), the configured
// `proxyTuner.<kind>.path`, and the machine-scoped `proxyTuner.binaries` list. Each binary's
// version comes from its own `-v`, asked once per binary file (keyed by path, size and mtime).
// No vscode import: unit-tested directly.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { findOnPath, isExecutableFile as isExecutable } from '../../../server/src/runner/lookup';

export type Kind = 'nginx' | 'haproxy';

export interface FoundBinary {
  kind: Kind;
  path: string;
  version: string;
  /** Where it was found: `PATH`, `proxyTuner.nginx.path`, `proxyTuner.binaries`. */
  source: string;
}

export interface DiscoverInput {
  /** `proxyTuner.nginx.path` / `proxyTuner.haproxy.path` (empty: not set). */
  configured: Partial<Record<Kind, string>>;
  /** `proxyTuner.binaries`: extra binary paths of either kind. */
  extra: readonly string[];
  /** The PATH to search (default: the process's). */
  envPath?: string;
  /** The version matrix `npm run setup` installed (.matrix/binaries.json): launchers of other versions. */
  matrix?: readonly { kind: Kind; path: string }[];
}

/** The binary named `name` on PATH and in the usual folders, first hit (the runner's lookup). */
export const onPath = findOnPath;

/** The version a binary printed for `-v` (`nginx version: nginx/1.30.6`, `HAProxy version 3.2.26-1 ...`). */
export function parseVersionOutput(text: string): { kind: Kind; version: string } | undefined {
  const n = /nginx\/(\d+\.\d+\.\d+)/.exec(text);
  if (n) return { kind: 'nginx', version: n[1] };
  const h = /HA-?Proxy version (\d+\.\d+(?:\.\d+)?(?:-dev\d*)?)/i.exec(text);
  if (h) return { kind: 'haproxy', version: h[1] };
  return undefined;
}

const cache = new Map<string, Promise<{ kind: Kind; version: string } | undefined>>();

/**
 * Runs `binary -v` (3 s at most), once per binary file. Only an answer is kept: a run that timed
 * out (a busy machine right after a window reload), failed or printed no version is asked again
 * by the next discovery, so one slow start does not hide a binary until the extension restarts.
 */
export function probe(binary: string, timeoutMs = 3000): Promise<{ kind: Kind; version: string } | undefined> {
  let key = binary;
  try {
    const st = statSync(binary);
    key = `${binary}\0${st.size}\0${st.mtimeMs}`;
  } catch {
    return Promise.resolve(undefined);
  }
  let p = cache.get(key);
  if (!p) {
    p = new Promise((resolve) => {
      execFile(binary, ['-v'], { timeout: timeoutMs, encoding: 'utf8' }, (_err, stdout, stderr) =>
        resolve(parseVersionOutput(`${stdout ?? ''}${stderr ?? ''}`)),
      );
    });
    const mine = p;
    cache.set(key, mine);
    void mine.then((v) => {
      if (!v && cache.get(key) === mine) cache.delete(key);
    });
  }
  return p;
}

/** A key of the settings discovery reads: equal keys, the same binaries are looked for. */
export function discoverInputKey(input: DiscoverInput): string {
  return JSON.stringify([
    input.configured.nginx?.trim() ?? '',
    input.configured.haproxy?.trim() ?? '',
    input.extra,
    input.envPath ?? null,
    (input.matrix ?? []).map((m) => m.path),
  ]);
}

/** Every binary found, each path once (resolved), in the order: configured, PATH, the extra list, the matrix. */
export async function discoverBinaries(input: DiscoverInput): Promise<FoundBinary[]> {
  const candidates: { path: string; source: string; kind?: Kind }[] = [];
  for (const kind of ['nginx', 'haproxy'] as const) {
    const c = input.configured[kind]?.trim();
    if (c) candidates.push({ path: c, source: `proxyTuner.${kind}.path`, kind });
    const p = onPath(kind, input.envPath);
    if (p) candidates.push({ path: p, source: 'PATH', kind });
  }
  for (const e of input.extra) if (typeof e === 'string' && e.trim()) candidates.push({ path: e.trim(), source: 'proxyTuner.binaries' });
  for (const m of input.matrix ?? []) candidates.push({ path: m.path, source: 'version matrix (npm run setup)', kind: m.kind });
  const seen = new Set<string>();
  const out: FoundBinary[] = [];
  const probed = await Promise.all(
    candidates.map(async (c) => {
      const abs = path.resolve(c.path);
      if (!isExecutable(abs)) return undefined;
      const v = await probe(abs);
      return v && (!c.kind || c.kind === v.kind) ? { kind: v.kind, path: abs, version: v.version, source: c.source } : undefined;
    }),
  );
  for (const b of probed) {
    if (!b || seen.has(b.path)) continue;
    seen.add(b.path);
    out.push(b);
  }
  return out;
}

/** The binary the config's target defaults to: the configured path, else PATH's. */
export function defaultBinary(found: readonly FoundBinary[], kind: Kind): FoundBinary | undefined {
  return (
    found.find((b) => b.kind === kind && b.source === `proxyTuner.${kind}.path`) ??
    found.find((b) => b.kind === kind && b.source === 'PATH')
  );
}

/** The target version of a config: the setting, else the local binary's, else none (the newest known). */
export function targetVersion(
  setting: string | undefined,
  found: readonly FoundBinary[],
  kind: Kind,
): { version?: string; from: 'setting' | 'binary' | 'newest'; binary?: FoundBinary } {
  if (setting && setting.trim()) return { version: setting.trim(), from: 'setting' };
  const b = defaultBinary(found, kind);
  if (b) return { version: b.version, from: 'binary', binary: b };
  return { from: 'newest' };
}
