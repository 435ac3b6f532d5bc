// What `check` and `format` share: turning FILE arguments into files (folders walked), the
// project config of each file (`.proxy-tuner.json`, found by walking up), the settings a file is
// judged with, and writing a file back atomically with its mode kept.
import {
  chmodSync,
  chownSync,
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { findProjectConfig, isIgnored, type ProjectConfig } from '../../server/src/service/projectConfig';
import { readRegularFile } from '../../server/src/host/safeRead';

/** The largest file the command line reads (a config named on it, or an include). */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/**
 * A config file's text, read as the host reads every config (server/src/host/safeRead.ts): a
 * regular file once links are resolved, never under /proc, /sys or /dev, opened without blocking,
 * within MAX_CONFIG_BYTES. Throws with the reason otherwise (a FIFO never hangs the run).
 */
export function readConfigFile(path: string): string {
  const r = readRegularFile(path, MAX_CONFIG_BYTES);
  if (!r.ok) throw new Error(r.message.slice(path.length + 2));
  return r.text;
}

/** A folder entry worth reading as a config: `.conf`/`.cfg`/`.nginx` files, or any file of an nginx/HAProxy config folder. */
export function looksLikeConfig(path: string): boolean {
  const p = path.replace(/\\/g, '/');
  const base = p.slice(p.lastIndexOf('/') + 1);
  if (/\.(conf|cfg|nginx)$/i.test(base)) return true;
  if (/^(nginx|haproxy)(\.|$)/i.test(base) && !/\.(md|txt|json|ya?ml|sh|js|ts|html?|css|bak|orig|rej|swp)$/i.test(base)) return true;
  return (
    /\/(sites-enabled|sites-available)\/[^/]+$/i.test(p) &&
    !/\.(md|txt|json|ya?ml|sh|js|ts|html?|css|pem|crt|key|map|lua|bak|orig|rej|swp)$/i.test(base)
  );
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);

export interface Expanded {
  /** Files to read, in argument order (a folder's files sorted), each once. */
  files: string[];
  /** Files left out by a project config's `ignore`. */
  ignored: number;
  /** Arguments that name nothing, or a folder without configs. */
  missing: { arg: string; reason: string }[];
}

/** Reads a file's text for the project-config walk (undefined: no such file). */
export function readIfExists(path: string): string | undefined {
  const r = readRegularFile(path, MAX_CONFIG_BYTES);
  if (r.ok) return r.text;
  // a folder (or a FIFO) of that name is no project config
  if (r.reason === 'missing' || r.reason === 'not-regular') return undefined;
  throw new Error(r.message);
}

/** Project configs by folder, for one run (a config is read once however many files it covers). */
export class ProjectConfigs {
  private readonly byDir = new Map<string, ProjectConfig | null>();

  /** The config for a file path (undefined: none). Throws on a config that is not valid JSON. */
  for(file: string): ProjectConfig | undefined {
    return findProjectConfig(resolve(file), readIfExists, this.byDir);
  }
}

/**
 * The files the arguments name: files as they are, folders walked (dot folders and node_modules
 * skipped) for what looks like a config. A project config's `ignore` leaves files out, named or
 * walked (pre-commit names every staged file). `-` (stdin) is the caller's.
 */
export function expandFiles(args: string[], configs: ProjectConfigs): Expanded {
  const files: string[] = [];
  const seen = new Set<string>();
  let ignored = 0;
  const missing: Expanded['missing'] = [];
  const add = (p: string) => {
    const abs = resolve(p);
    if (seen.has(abs)) return;
    seen.add(abs);
    if (isIgnored(configs.for(abs), abs)) ignored++;
    else files.push(p);
  };
  const walk = (dir: string, depth: number, out: string[]) => {
    if (depth > 32) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.') || SKIP_DIRS.has(name)) continue;
      const p = join(dir, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        const cfg = configs.for(join(p, 'x'));
        if (!isIgnored(cfg, resolve(p))) walk(p, depth + 1, out);
      } else if (st.isFile() && looksLikeConfig(p)) out.push(p);
    }
  };
  for (const arg of args) {
    let st;
    try {
      st = statSync(arg);
    } catch (err) {
      missing.push({ arg, reason: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message });
      continue;
    }
    if (st.isDirectory()) {
      const found: string[] = [];
      walk(arg, 0, found);
      if (found.length === 0)
        missing.push({ arg, reason: 'is a directory holding no nginx or HAProxy config (*.conf, *.cfg, sites-enabled/*)' });
      for (const f of found) add(f);
    } else add(arg);
  }
  return { files, ignored, missing };
}

/**
 * Writes `text` to `file` atomically: a temporary file in the same folder, given the original's
 * mode (and owner, when allowed), flushed, then renamed over it. A reader sees the old or the new
 * file, never half of one; a symbolic link stays a link (its target is written).
 */
export function writeAtomic(file: string, text: string): void {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // a new file: written where named
  }
  let mode = 0o644;
  let owner: { uid: number; gid: number } | undefined;
  try {
    const st = statSync(target);
    mode = st.mode & 0o7777;
    owner = { uid: st.uid, gid: st.gid };
  } catch {
    // a new file: default mode
  }
  const tmp = join(dirname(target), `.${basename(target)}.proxy-tuner-${process.pid}-${Date.now().toString(36)}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, mode);
    if (owner && typeof process.getuid === 'function' && process.getuid() === 0) {
      try {
        chownSync(tmp, owner.uid, owner.gid);
      } catch {
        // a file system without owners
      }
    }
    renameSync(tmp, target);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw err;
  }
}
