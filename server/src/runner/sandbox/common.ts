// Shared parts of the config sandboxes: text edits that keep line numbers, the throw-away TLS
// pair, loopback checks, refusals and the map from sandbox files back to the user's files.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants as fsc,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { DIRECTIVES } from '../../languages/nginx/data';
import * as HA from '../../languages/haproxy/data';
import { editDistance } from '../../core/editDistance';

/** Replace text[start, end) with `text` (no newlines in it: lines must keep their numbers). */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A placeholder for a port chosen at render time (ports are re-picked when a bind race is lost). */
export const portSlot = (i: number) => `\u0000P${i}\u0000`;

/**
 * A failover run points the second server of each upstream/backend here: the built-in backend
 * answers on this loopback address too, and can make it fail alone (bench/src/failover.ts).
 */
export const FAILOVER_HOST = '127.0.0.2';

/** Placeholders for the backend's ports, known only once the backend runs. */
export const BACKEND_SLOTS: BackendAddr = { http: -1, https: -2, tcp: -3 };
const backendSlot = (n: number) => `\u0000B${-n}\u0000`;
/** The text that stands for a backend port in a plan. */
export const backendPortText = (n: number) => (n < 0 ? backendSlot(n) : String(n));

export function fillPorts(text: string, ports: number[], backend?: BackendAddr): string {
  return text
    .replace(/\u0000P(\d+)\u0000/g, (_m, i: string) => String(ports[Number(i)]))
    .replace(/\u0000B(\d)\u0000/g, (_m, i: string) => {
      if (!backend) throw new Error('backend ports are not known yet');
      return String(i === '1' ? backend.http : i === '2' ? backend.https : backend.tcp);
    });
}

/**
 * Applies non-overlapping edits. A replaced span that contained newlines gets the same number of
 * newlines after its replacement, so every line of the copy keeps the number it has in the original.
 */
export function applyEdits(text: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let pos = 0;
  for (const e of sorted) {
    if (e.start < pos) continue; // overlapping edit: the first one wins
    out += text.slice(pos, e.start);
    const lines = (text.slice(e.start, e.end).match(/\n/g) ?? []).length;
    out += e.text.replace(/[\r\n]/g, ' ') + '\n'.repeat(lines);
    pos = e.end;
  }
  return out + text.slice(pos);
}

export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The config cannot be made loopback-only (or cannot be sandboxed at all). */
export class SandboxRefusal extends Error {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file ? `${file}:${line ?? 0}: ${message}` : message);
    this.name = 'SandboxRefusal';
  }
}

/** The config failed the binary's own check (`nginx -t` / `haproxy -c`), mapped to the user's lines. */
export class ConfigCheckError extends Error {
  constructor(
    message: string,
    readonly details: string,
  ) {
    super(message);
    this.name = 'ConfigCheckError';
  }
}

export function isLoopbackAddress(host: string): boolean {
  // a fully qualified `localhost.` is the same name
  const h = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/^localhost\.$/, 'localhost');
  if (h === 'localhost' || h === '::1') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return net.isIPv4(h.slice(7)) && h.slice(7).startsWith('127.');
  return false;
}

export interface TlsPair {
  certFile: string;
  keyFile: string;
  /** Certificate and key in one file (HAProxy's `crt`). */
  pemFile: string;
}

/** A throw-away self-signed pair for localhost / 127.0.0.1 made with the openssl command line. */
// One pair per process and key type, kept in memory only and written into each sandbox.
const pairCache = new Map<string, { cert: Buffer; key: Buffer }>();

export function makeTlsPair(dir: string, keyType: 'rsa' | 'ecdsa' = 'rsa'): TlsPair {
  const certFile = path.join(dir, 'tls', 'cert.pem');
  const keyFile = path.join(dir, 'tls', 'key.pem');
  const pemFile = path.join(dir, 'tls', 'both.pem');
  mkdirSync(path.join(dir, 'tls'), { recursive: true, mode: 0o700 });
  const cached = pairCache.get(keyType);
  if (cached) {
    writeFileSync(certFile, cached.cert, { mode: 0o600 });
    writeFileSync(keyFile, cached.key, { mode: 0o600 });
    writeFileSync(pemFile, Buffer.concat([cached.cert, cached.key]), { mode: 0o600 });
    return { certFile, keyFile, pemFile };
  }
  const keyArgs = keyType === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      ...keyArgs,
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (r.status !== 0) {
    const why = (r.error?.message ?? r.stderr ?? '')
      .split('\n')
      .filter((l) => l && !/^[.+*\s]+$/.test(l))
      .slice(-3)
      .join(' ');
    throw new Error(`could not make a test certificate with openssl (is the openssl command installed?): ${why}`);
  }
  const cert = readFileSync(certFile);
  const key = readFileSync(keyFile);
  pairCache.set(keyType, { cert, key });
  writeFileSync(pemFile, Buffer.concat([cert, key]), { mode: 0o600 });
  return { certFile, keyFile, pemFile };
}

export function makeSandboxDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'proxy-tuner-bench-'));
}

export function removeSandboxDir(dir: string): void {
  if (!dir.startsWith(path.join(os.tmpdir(), 'proxy-tuner-bench-'))) return;
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Writes a file of the run's folder without following anything: every folder on the way inside a
 * proxy-tuner-bench-* folder must be a real folder (not a link), an old file is unlinked (a link
 * in its place goes, not its target) and the new one is created exclusively with O_NOFOLLOW.
 */
export function writeText(file: string, text: string): void {
  const abs = path.resolve(file);
  const parts = abs.split(path.sep);
  let inRun = false;
  for (let i = 2; i < parts.length; i++) {
    const p = parts.slice(0, i).join(path.sep);
    if (!inRun && !/proxy-tuner-bench-/.test(parts[i - 1])) continue;
    inRun = true;
    const st = lstatSync(p);
    if (!st.isDirectory()) throw new Error(`refusing to write ${abs}: ${p} is not a plain folder`);
  }
  try {
    unlinkSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const fd = openSync(abs, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0), 0o600);
  try {
    const b = Buffer.from(text, 'utf8');
    for (let off = 0; off < b.length;) off += writeSync(fd, b, off, b.length - off);
  } finally {
    closeSync(fd);
  }
}

/** The most the host side reads of one file the config names (include, map, certificate, log). */
export const READ_CAP_BYTES = 8 * 1024 * 1024;

/** Folders whose files are never read, whatever path leads there. */
export const DEVICE_ROOTS = ['/proc', '/sys', '/dev'];

/** True when `p` (after every link is resolved) lies under /proc, /sys or /dev. */
export function isDeviceTree(p: string): boolean {
  let real = path.resolve(p);
  try {
    real = realpathSync(p);
  } catch {
    // missing: judge the spelled path
  }
  const under = (x: string) => DEVICE_ROOTS.some((r) => x === r || x.startsWith(r + '/'));
  return under(path.resolve(p)) || under(real);
}

/**
 * Reads a file the way the host side must read anything a config names: the real path checked
 * against /proc, /sys and /dev, opened without blocking (a FIFO cannot hang us) and without a
 * controlling terminal, then only a regular file (fstat on the open descriptor) of at most `cap`
 * bytes. Throws an Error saying why otherwise.
 */
export function readTextSafe(file: string, cap = READ_CAP_BYTES): string {
  if (isDeviceTree(file)) throw new Error(`${file}: files under /proc, /sys and /dev are never read`);
  const fd = openSync(file, fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0) | (fsc.O_NOCTTY ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (st.size > cap) throw new Error(`${file} is larger than ${cap} bytes`);
    const b = Buffer.alloc(Math.min(cap, st.size) + 1);
    let n = 0;
    while (n < b.length) {
      const r = readSync(fd, b, n, b.length - n, n);
      if (r <= 0) break;
      n += r;
    }
    if (n > cap) throw new Error(`${file} is larger than ${cap} bytes`);
    return b.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Where the built-in backend listens; upstream addresses are pointed here. */
export interface BackendAddr {
  http: number;
  https: number;
  tcp: number;
}

/** One listener of the sandboxed proxy, with where it came from. */
export interface SandboxListener {
  /** Index into the port list chosen at render time. */
  slot: number;
  port: number;
  ssl: boolean;
  http2: boolean;
  /** L4 (nginx `stream`, HAProxy `mode tcp`). */
  stream: boolean;
  udp: boolean;
  /** nginx `listen ... http2` without ssl: HTTP/2 prior knowledge only. */
  h2cOnly: boolean;
  /** A name the server answers to, for the Host header. */
  serverName?: string;
  file: string;
  line: number;
  original: string;
  /** The block the listener belongs to (nginx `server`, HAProxy `frontend`/`listen`): its file and 1-based header line. */
  block?: { file: string; line: number };
}

/**
 * A config's text with the editor's line ends: a lone CR (old Mac files) becomes LF. nginx reads
 * a lone CR as a space and HAProxy does not end a line there, while the editor and `check` count
 * CR, LF and CRLF as line breaks. The planner reads this text and the copy the binary reads is
 * written from it, so the plan, the binary and the editor see the same lines: nothing hides
 * behind a CR, and the binary's "FILE:LINE" is the line the editor shows. (A benchmark of such a
 * file therefore runs it as the editor displays it, not as the binary would read the original.)
 */
export function editorLineEnds(text: string): string {
  return text.indexOf('\r') < 0 ? text : text.replace(/\r(?!\n)/g, '\n');
}

/**
 * Whether a warning of the binary's check comes from the sandbox's rewrite rather than from the
 * user's config: the sandbox drops HAProxy's `log` targets (nothing leaves the run), and a proxy
 * that logs through `log global` then has "no log address". When the user's files have a `log`
 * line, that warning is about the copy, not about them.
 */
export function warningFromRewrite(kind: 'nginx' | 'haproxy', warning: string, originals: readonly string[]): boolean {
  if (kind !== 'haproxy' || !/log format ignored for .* since it has no log address/.test(warning)) return false;
  return originals.some((text) => /^[ \t]*log[ \t]+(?!global\b)\S/m.test(text)); // a target, not `log global`
}

/** Maps "FILE:LINE" in the binary's messages from sandbox copies back to the user's files. */
export function mapMessages(text: string, fileMap: Map<string, string>): string {
  let out = text;
  for (const [copy, orig] of fileMap) {
    out = out.split(copy).join(orig);
  }
  return out;
}

/**
 * nginx quotes the first word of an included file it cannot read as a directive
 * (`unknown directive "root:x:0:0:..." in /etc/passwd:1`): that word is the file's content, so
 * in messages about a file other than the main config it is shown only when it is a directive.
 * Then every quoted text goes through redactQuoted: the words of the main config are the user's
 * own (an included file may be anything: `include /etc/passwd`, `geo { include secret; }`), the
 * paths of every file of the plan (`ownFiles`) are theirs, and the product's keywords are shown.
 */
export function redactForeignWords(
  text: string,
  mainConfig: string,
  opts: { kind?: 'nginx' | 'haproxy'; ownFiles?: readonly string[] } = {},
): string {
  const files = [...new Set([path.resolve(mainConfig), ...(opts.ownFiles ?? []).map((f) => path.resolve(f))])];
  const out = text.replace(/unknown directive "([^\n]*?)" in (\S+):(\d+)/g, (m, word: string, f: string, l: string) =>
    path.resolve(f) === path.resolve(mainConfig) || nearProductWord(word, 'nginx')
      ? m
      : `unknown directive (the file does not look like an nginx config; its content is not shown) in ${f}:${l}`,
  );
  let own = '';
  try {
    own = readTextSafe(mainConfig);
  } catch {
    // unreadable now: nothing quoted counts as the user's own text
  }
  return redactQuoted(out, own, { kind: opts.kind, files });
}

const productWordCache = new Map<string, ReadonlySet<string>>();

/** Every directive of nginx, or every keyword, option, action, fetch and converter name of HAProxy (each word of a two-word keyword). */
export function productWords(kind: 'nginx' | 'haproxy'): ReadonlySet<string> {
  const hit = productWordCache.get(kind);
  if (hit) return hit;
  const out = new Set<string>();
  const add = (names: Iterable<string>) => {
    for (const n of names) for (const w of n.split(/\s+/)) if (w) out.add(w);
  };
  if (kind === 'nginx') add(DIRECTIVES.keys());
  else {
    add(HA.SECTIONS.keys());
    add(HA.GLOBAL.keys());
    add(HA.PROXY.keys());
    add(HA.ACTIONS.keys());
    add(HA.BIND_OPTIONS.keys());
    add(HA.SERVER_OPTIONS.keys());
    add(HA.FETCHES.keys());
    add(HA.CONVERTERS.keys());
    for (const m of HA.SECTION_KEYWORDS_MAP.values()) add(m.keys());
  }
  productWordCache.set(kind, out);
  return out;
}

/**
 * A directive or keyword of the product, or a misspelling of one (at most 2 edits, 5 letters or
 * more: `proxy_bufers`, `gzip_typs`), which a file's secret word is not.
 */
export function nearProductWord(q: string, kind: 'nginx' | 'haproxy'): boolean {
  const words = productWords(kind);
  if (words.has(q)) return true;
  if (q.length < 5 || q.length > 64 || !/^[a-z][a-z0-9_.-]*$/.test(q)) return false;
  for (const w of words) if (Math.abs(w.length - q.length) <= 2 && editDistance(w, q, 3) <= 2) return true;
  return false;
}

/**
 * Quoted text in a binary's message is shown only when it is the user's own or the product's:
 * - text that occurs in the user's config files (a single word must be one of their words, not
 *   a piece of one);
 * - a directive or keyword of the product (its language tables) or a misspelling of one, when
 *   `kind` is given;
 * - a path of the user's files: one of them, or under a folder or file their text names, or in
 *   the run's folder;
 * - a number (an address, a port, a size).
 * Anything else (the first line of a file read by `acl -f` or `map_ip()`, a `.warning` text, a
 * geo file's first word) becomes `'(not shown)'`.
 */
export function redactQuoted(text: string, own: string, opts: { kind?: 'nginx' | 'haproxy'; files?: readonly string[] } = {}): string {
  const ownWords = new Set(own.split(/[\s;{}()\[\],'"=]+/).filter(Boolean));
  const ownPaths = [...(own.match(/\/[\w./+@-]+/g) ?? []), ...(opts.files ?? [])]
    .map((p) => p.replace(/\/+$/, ''))
    .filter((p) => p.length > 1);
  const words = opts.kind ? productWords(opts.kind) : new Set<string>();
  const runRoot = path.join(os.tmpdir(), 'proxy-tuner-bench-');
  const keep = (q: string) => {
    if (q === '' || /^[\d.:]+$/.test(q) || /^\(the file does not look/.test(q)) return true;
    if (/^[\w.@+-]+$/.test(q)) return ownWords.has(q) || words.has(q) || (!!opts.kind && nearProductWord(q, opts.kind));
    if (/^\/[\w./+@-]*$/.test(q)) return q.startsWith(runRoot) || ownPaths.some((p) => q === p || q.startsWith(p + '/'));
    return own.includes(q);
  };
  return text.replace(/'([^'\n]{0,400})'|"([^"\n]{0,400})"/g, (m, a?: string, b?: string) => {
    const q = a ?? b ?? '';
    if (keep(q)) return m;
    return a !== undefined ? "'(not shown)'" : '"(not shown)"';
  });
}

/** A word that could be a misspelt directive (`proxy_bufers`) rather than a file's content. */
export function looksLikeDirective(word: string): boolean {
  return /^[a-z][a-z0-9_]{0,63}$/.test(word);
}

/** A file or folder the config makes the proxy read where it is (not copied into the run's folder). */
export interface InPlaceRead {
  /** The path as the config names it (absolute). */
  path: string;
  /** Where it is named. */
  file: string;
  line: number;
}

/** Folders a contained proxy sees anyway (systemRoot in contain.ts): a read there needs no bind. */
const ALWAYS_VISIBLE = ['/usr', '/etc/nginx', '/etc/haproxy', '/var/www', '/srv', '/etc/ssl/certs'];

/**
 * Which in-place reads are shown read-only inside the containment, as [source, destination]
 * pairs: the source is the real path (every link resolved), the destination the path the config
 * names. Only a regular file or a folder outside /proc, /sys and /dev (spelled and real); never a
 * folder that holds the config's own folder or the home folder (a `root /home/me` would show the
 * whole project or home), never `/` or a top-level folder. A path built from variables, a
 * relative path (nginx reads it under the run's prefix) or a missing path is left to the binary,
 * which reports it. The others are returned with why, for a warning.
 */
export function visibleReads(
  reads: readonly InPlaceRead[],
  configPath: string,
  runDir: string,
): { binds: [string, string][]; skipped: string[] } {
  const binds = new Map<string, string>();
  const skipped: string[] = [];
  const under = (p: string, root: string) => p === root || p.startsWith(root + '/');
  const configDir = path.dirname(path.resolve(configPath));
  const homes = [os.homedir(), process.env.HOME ?? ''].filter((h) => h && h !== '/');
  for (const r of reads) {
    if (binds.size >= 256) break;
    const spelled = r.path;
    if (!path.isAbsolute(spelled) || spelled.includes('$')) continue;
    const dest = path.resolve(spelled);
    if (ALWAYS_VISIBLE.some((v) => under(dest, v)) || under(dest, runDir)) continue;
    const why = (reason: string) => skipped.push(`${r.file}:${r.line}: ${spelled} is not visible inside the sandbox: ${reason}`);
    if (isDeviceTree(dest)) {
      why('files under /proc, /sys and /dev are never shown');
      continue;
    }
    let real: string;
    let st;
    try {
      real = realpathSync(dest);
      st = lstatSync(real);
    } catch {
      continue;
    }
    if (!st.isFile() && !st.isDirectory()) {
      why('only regular files and folders are shown (not a FIFO, socket or device)');
      continue;
    }
    if (st.isDirectory()) {
      const broad = [dest, real].some(
        (d) =>
          d.split('/').filter(Boolean).length < 2 || under(configDir, d) || homes.some((h) => under(h, d)) || /^\/home\/[^/]+$/.test(d),
      );
      if (broad) {
        why("it is the file system's root, a top-level folder, a home folder or a folder holding the config's own");
        continue;
      }
    }
    if (!binds.has(dest)) binds.set(dest, real);
  }
  return { binds: [...binds].map(([dest, real]) => [real, dest]), skipped };
}
