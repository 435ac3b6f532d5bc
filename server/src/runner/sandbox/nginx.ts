// nginx sandbox: a private copy of the user's config (and of every file it includes) in a temp
// folder, rewritten so that the real binary can run it on loopback only:
// - every `listen` becomes 127.0.0.1:<free port> (same original address → same new port);
//   servers without `listen` get one;
// - upstream `server`s and literal `proxy_pass`/`fastcgi_pass`/... targets point at the built-in
//   backend (hostnames and public addresses included: they are rewritten, never contacted);
// - pid, logs, temp and cache paths go into the sandbox; `user`, `daemon`, `master_process` are set;
// - TLS certificates are replaced by a throw-away pair; files that would be read from the
//   system for client verification or stapling are dropped;
// - what cannot be made loopback-only (a target address built from variables, a resolver on a
//   non-loopback address, scripting modules that open their own connections) is refused with the
//   file and line. The user's files are only read.
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { notTextReason } from '../../core/text';
import { parseNginx } from '../../languages/nginx/parser';
import {
  CACHE_PATHS,
  DIRECTIVES,
  KEYLOG_DIRECTIVES,
  PASS_DIRECTIVES,
  STORE_DIRECTIVES,
  TEMP_PATH_DIRECTIVES,
} from '../../languages/nginx/data';
import type { SandboxAdjustment } from '../../../../protocol/bench';
import { RESERVED_FILES, type MachineLimits } from './limits';
import { childContext, type Directive, type NginxFile, type Word } from '../../languages/nginx/ast';
import {
  applyEdits,
  backendPortText,
  FAILOVER_HOST,
  isLoopbackAddress,
  lineAt,
  portSlot,
  SandboxRefusal,
  type BackendAddr,
  type Edit,
  type SandboxListener,
  isDeviceTree,
  editorLineEnds,
  readTextSafe,
  type InPlaceRead,
} from './common';

export interface NginxSandboxInput {
  configPath: string;
  dir: string;
  backend: BackendAddr;
  cert: { certFile: string; keyFile: string };
  /** Path of the stream module to load when the config has `stream {}` but no load_module for it. */
  streamModule?: string;
  runningAsRoot: boolean;
  /** The binary's own folders (load_module only from modulesDir; a matrix root's /etc/nginx is confDir). */
  layout?: { modulesDir: string; confDir: string; root: string };
  /** CPUs and file limit (caps on workers and connections). */
  limits?: MachineLimits;
  /**
   * The run is contained in namespaces: a directive our tables do not know (a third-party
   * module's) is allowed, since the kernel confines whatever it does; in rewrite-only mode it is
   * refused when the config loads dynamic modules.
   */
  contained?: boolean;
  /** A failover run: each upstream's second server goes to FAILOVER_HOST. */
  failover?: boolean;
  /**
   * The run is known to be uncontained (rewrite-only) and the user did not opt in: a config that
   * loads native code (any `load_module`) is refused, since that code would run as the user, with
   * the user's files and network (allowUncontainedNativeCode, --allow-uncontained-native-code,
   * PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE=1).
   */
  refuseUncontainedNative?: string;
}

export interface SandboxFileOut {
  /** Path of the copy inside the sandbox. */
  copy: string;
  original: string;
  /** Text with port placeholders. */
  text: string;
}

export interface NginxSandboxPlan {
  mainCopy: string;
  files: SandboxFileOut[];
  listeners: SandboxListener[];
  /** Number of port slots to fill. */
  portCount: number;
  warnings: string[];
  adjustments: SandboxAdjustment[];
  /** Files and folders nginx reads where they are (not copied): `root`, `alias`, user files, GeoIP databases. */
  reads: InPlaceRead[];
}

/** Directives whose first argument is a file or folder nginx reads in place (the plan does not copy it). */
const IN_PLACE_READS = new Set([
  'root',
  'alias',
  'auth_basic_user_file',
  'geoip_country',
  'geoip_city',
  'geoip_org',
  'geoip2',
  'modsecurity_rules_file',
]);

const TEMP_PATHS: ReadonlySet<string> = new Set(TEMP_PATH_DIRECTIVES);
/** Files read for client verification, stapling, tickets...: dropped (the throw-away pair replaces the certs). */
const DROP_DIRECTIVES = new Set([
  'user',
  'pid',
  'daemon',
  'master_process',
  'lock_file',
  'working_directory',
  'ssl_trusted_certificate',
  'ssl_client_certificate',
  'ssl_crl',
  'ssl_dhparam',
  'ssl_stapling',
  'ssl_stapling_file',
  'ssl_stapling_responder',
  'ssl_stapling_verify',
  'ssl_password_file',
  'ssl_session_ticket_key',
  'ssl_verify_client',
  'ssl_verify_depth',
  'ssl_ocsp',
  'ssl_ocsp_responder',
  'ssl_ocsp_cache',
  'proxy_ssl_certificate',
  'proxy_ssl_certificate_key',
  'proxy_ssl_trusted_certificate',
  'proxy_ssl_crl',
  'proxy_ssl_password_file',
  'proxy_ssl_verify',
  'grpc_ssl_certificate',
  'grpc_ssl_certificate_key',
  'grpc_ssl_trusted_certificate',
  'grpc_ssl_verify',
  'uwsgi_ssl_certificate',
  'uwsgi_ssl_certificate_key',
  'uwsgi_ssl_trusted_certificate',
  'uwsgi_ssl_verify',
  'proxy_bind',
  'fastcgi_bind',
  'uwsgi_bind',
  'scgi_bind',
  'grpc_bind',
  'memcached_bind',
]);
/** Modules that open connections of their own, which the sandbox cannot redirect. */
const SCRIPTING = /(_by_lua(_block|_file)?$|^lua_|^perl|^js_)/;

interface FileJob {
  original: string;
  copy: string;
  context: string;
  /** A file included inside a `server` block: that server and where its header is. */
  server?: { directive: Directive; block: { file: string; line: number } };
}

interface Ctx {
  input: NginxSandboxInput;
  files: SandboxFileOut[];
  listeners: SandboxListener[];
  portKeys: Map<string, number>;
  warnings: string[];
  upstreams: Set<string>;
  httpsUpstreams: Set<string>;
  streamUpstreams: Set<string>;
  hasStream: boolean;
  hasStreamModule: boolean;
  includeCounter: number;
  fileCount: number;
  confDir: string;
  usedSsl: boolean;
  adjustments: SandboxAdjustment[];
  httpAccessLog: boolean;
  workerConnections?: { job: string; value: number };
  hasRlimit: boolean;
  /** The config loads dynamic modules (whose directives our tables may not know). */
  loadsModules: boolean;
  reads: InPlaceRead[];
}

/** Folders an include may never read (kernel and device files: endless, huge or secret). */
export const FORBIDDEN_INCLUDE_ROOTS = ['/proc', '/sys', '/dev'];

/** Under /proc, /sys or /dev as spelled or once every link is resolved. */
export function isForbiddenPath(p: string): boolean {
  return isDeviceTree(p);
}

/** Directives that load code or write files the sandbox cannot place: refused with the line. */
const REFUSED: Record<string, string> = {
  ssl_engine: 'loads an OpenSSL engine (native code) into nginx',
  google_perftools_profiles: 'writes profiles to a path of its own',
  debug_connection: 'is only useful with a debug build and names client addresses',
  acme_issuer: 'contacts an ACME server to obtain certificates',
  oidc_provider: 'contacts an identity provider',
  mgmt: 'reports usage to a remote endpoint',
  usage_report: 'reports usage to a remote endpoint',
  zone_sync: 'connects to other cluster nodes',
};

const isIpOrCidr = (v: string) => {
  const a = v.replace(/\/\d+$/, '');
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(a) || (a.includes(':') && /^[0-9a-f:.]+$/i.test(a));
};

/** ModSecurity rules that fetch rules over the network or write files of their own (audit, debug, upload, data). */
const MODSEC_WRITES = /\b(SecRemoteRules|SecAuditLog\w*|SecDebugLog|SecUploadDir|SecDataDir|SecTmpDir|SecGeoLookupDb|Include)\b/i;

/** Refusals that depend on a directive's arguments or on a file it names (rtmp, xslt, ModSecurity). */
function refuseByContent(d: Directive, baseDir: string): string | null {
  const n = d.name;
  if (/^exec(_\w+)?$/.test(n)) return `\`${n}\` (rtmp) runs external programs; the benchmark cannot confine them`;
  if (n === 'xslt_stylesheet')
    return '`xslt_stylesheet`: a stylesheet can read any file (`document()`) and write files (`exsl:document`); the benchmark refuses it';
  if (n === 'modsecurity_rules_remote') return '`modsecurity_rules_remote` downloads rules over the network';
  if (n === 'modsecurity_rules' && d.args.some((a) => MODSEC_WRITES.test(a.value)))
    return '`modsecurity_rules` fetches remote rules, includes files or writes logs of its own (SecRemoteRules, Include, SecAuditLog, SecDebugLog...); the benchmark refuses it';
  if (n === 'modsecurity_rules_file' && d.args[0]) {
    const f = path.resolve(baseDir, d.args[0].value);
    let body = '';
    try {
      body = readTextSafe(f, 1024 * 1024);
    } catch (e) {
      return `\`modsecurity_rules_file ${d.args[0].value}\` cannot be read safely: ${(e as Error).message}`;
    }
    if (MODSEC_WRITES.test(body))
      return `\`modsecurity_rules_file ${d.args[0].value}\` fetches remote rules, includes files or writes logs of its own (SecRemoteRules, Include, SecAuditLog, SecDebugLog...); the benchmark refuses it`;
  }
  return null;
}

function readConfig(file: string): string {
  let text: string;
  try {
    text = editorLineEnds(readTextSafe(file));
  } catch (e) {
    throw new SandboxRefusal(`cannot read ${file}: ${(e as Error).message}`);
  }
  const notText = notTextReason(text);
  if (notText) throw new SandboxRefusal(`${file}: ${notText}`);
  return text;
}

/**
 * A path as the binary of a version-matrix root sees it: `/etc/nginx/...` is the root's confDir,
 * and an absolute symlink (Debian's modules-enabled/*.conf) resolves inside the root.
 */
function rooted(p: string, layout: NginxSandboxInput['layout']): string {
  if (!layout?.root) return p;
  let out = p;
  if (out === '/etc/nginx' || out.startsWith('/etc/nginx/')) out = layout.confDir + out.slice('/etc/nginx'.length);
  for (let i = 0; i < 8; i++) {
    let st;
    try {
      st = lstatSync(out);
    } catch {
      return out;
    }
    if (!st.isSymbolicLink()) return out;
    const t = readlinkSync(out);
    out = path.isAbsolute(t) ? path.join(layout.root, t) : path.resolve(path.dirname(out), t);
  }
  return out;
}

/** Expands an nginx include pattern (glob with `*`, `?`, `[...]` in the last parts). */
function expandInclude(pattern: string): string[] {
  if (isForbiddenPath(pattern)) return [];
  if (!/[*?[]/.test(pattern)) return existsSync(pattern) ? [pattern] : [];
  const parts = pattern.split('/');
  let bases = [parts[0] === '' ? '/' : parts[0]];
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i];
    const next: string[] = [];
    for (const b of bases) {
      if (!/[*?[]/.test(part)) {
        next.push(path.join(b, part));
        continue;
      }
      const re = new RegExp(
        '^' +
          part
            .replace(/[.+^${}()|\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]') +
          '$',
      );
      let names: string[] = [];
      try {
        names = readdirSync(b);
      } catch {
        continue;
      }
      for (const n of names.sort()) if (re.test(n) && !n.startsWith('.')) next.push(path.join(b, n));
    }
    bases = next.filter((b) => !isForbiddenPath(b)).slice(0, 500);
  }
  return bases.filter((p) => {
    try {
      return !isForbiddenPath(p) && statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

/** Parses `host:port`, `[v6]:port`, `port`, `*:port`, `unix:/path`; the port may be absent. */
function splitHostPort(a: string): { host: string; port?: string } {
  if (a.startsWith('unix:')) return { host: a };
  if (a.startsWith('[')) {
    const close = a.indexOf(']');
    const host = a.slice(0, close + 1);
    const rest = a.slice(close + 1);
    return { host, port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  if (/^\d+$/.test(a)) return { host: '*', port: a };
  const i = a.lastIndexOf(':');
  if (i >= 0 && a.indexOf(':') === i) return { host: a.slice(0, i), port: a.slice(i + 1) };
  return { host: a };
}

const q = (s: string) => (/[\s;{}"'#$\\]/.test(s) ? `"${s.replace(/["\\]/g, '\\$&')}"` : s);

function refuse(file: NginxFile, original: string, at: { start: number }, message: string): never {
  throw new SandboxRefusal(message, original, lineAt(file.text, at.start));
}

/** Collects upstream names and how they are used (pre-pass over one file and its includes). */
function collectNames(ctx: Ctx, file: NginxFile, context: string, baseDir: string, depth: number): void {
  const visit = (list: Directive[], c: string) => {
    for (const d of list) {
      if (d.entry) continue;
      if (d.name === 'upstream' && d.args[0]) {
        if (c === 'http') ctx.upstreams.add(d.args[0].value);
        if (c === 'stream') ctx.streamUpstreams.add(d.args[0].value);
      }
      if (d.name === 'stream' && c === 'main') ctx.hasStream = true;
      if (d.name === 'access_log' && c === 'http') ctx.httpAccessLog = true;
      if (d.name === 'worker_rlimit_nofile' && c === 'main') ctx.hasRlimit = true;
      if (d.name === 'load_module' && d.args[0] && /ngx_stream_module/.test(d.args[0].value)) ctx.hasStreamModule = true;
      if (d.name === 'load_module') ctx.loadsModules = true;
      if (d.name === 'proxy_pass' && d.args[0]) {
        const m = /^https:\/\/([^/:$]+)/.exec(d.args[0].value);
        if (m) ctx.httpsUpstreams.add(m[1]);
      }
      if (d.name === 'include' && d.args[0] && depth < 16) {
        const pattern = rooted(path.isAbsolute(d.args[0].value) ? d.args[0].value : path.join(baseDir, d.args[0].value), ctx.input.layout);
        for (const f of expandInclude(pattern)) {
          try {
            collectNames(ctx, parseNginx(editorLineEnds(readTextSafe(rooted(f, ctx.input.layout)))), c, baseDir, depth + 1);
          } catch {
            // unreadable: reported by the rewrite pass
          }
        }
      }
      if (d.block && !d.rawBody) visit(d.block.children, childContext(c, d.name));
    }
  };
  visit(file.directives, context);
}

export function planNginxSandbox(input: NginxSandboxInput): NginxSandboxPlan {
  const original = path.resolve(input.configPath);
  const ctx: Ctx = {
    input,
    files: [],
    listeners: [],
    portKeys: new Map(),
    warnings: [],
    upstreams: new Set(),
    httpsUpstreams: new Set(),
    streamUpstreams: new Set(),
    hasStream: false,
    hasStreamModule: false,
    includeCounter: 0,
    fileCount: 0,
    confDir: path.dirname(original),
    usedSsl: false,
    adjustments: [],
    httpAccessLog: false,
    hasRlimit: false,
    loadsModules: false,
    reads: [],
  };
  const mainText = readConfig(original);
  const mainAst = parseNginx(mainText);
  collectNames(ctx, mainAst, 'main', ctx.confDir, 0);
  mkdirSync(path.join(input.dir, 'conf'), { recursive: true });
  for (const sub of ['logs', 'temp', 'cache']) mkdirSync(path.join(input.dir, sub), { recursive: true });
  const mainCopy = path.join(input.dir, 'conf', 'nginx.conf');
  rewriteFile(ctx, { original, copy: mainCopy, context: 'main' }, mainAst, 0);
  // Main-context settings, prepended to line 1 so that no line moves.
  const dir = input.dir;
  const pre = [
    'daemon off;',
    'master_process on;',
    `pid ${q(path.join(dir, 'nginx.pid'))};`,
    `lock_file ${q(path.join(dir, 'nginx.lock'))};`,
  ];
  if (input.runningAsRoot) pre.push('user root;');
  if (ctx.hasStream && !ctx.hasStreamModule && input.streamModule) pre.push(`load_module ${q(input.streamModule)};`);
  // Workers raise their file limit to what their connections need, within the hard limit.
  const lim = input.limits;
  if (lim && !ctx.hasRlimit && ctx.workerConnections && ctx.workerConnections.value * 2 + RESERVED_FILES > lim.softFiles)
    pre.push(`worker_rlimit_nofile ${Math.min(lim.hardFiles, ctx.workerConnections.value * 2 + RESERVED_FILES)};`);
  const main = ctx.files.find((f) => f.copy === mainCopy)!;
  main.text = pre.join(' ') + ' ' + main.text;
  for (const a of ctx.adjustments) ctx.warnings.push(`${a.file}:${a.line}: ${a.setting} lowered from ${a.from} to ${a.to}: ${a.why}`);
  return {
    mainCopy,
    files: ctx.files,
    listeners: ctx.listeners,
    portCount: ctx.portKeys.size,
    warnings: ctx.warnings,
    adjustments: ctx.adjustments,
    reads: ctx.reads,
  };
}

function rewriteFile(ctx: Ctx, job: FileJob, ast: NginxFile, depth: number): void {
  if (++ctx.fileCount > 500) throw new SandboxRefusal('more than 500 included files');
  const edits: Edit[] = [];
  const file = ast;
  const orig = job.original;
  const dir = ctx.input.dir;
  const beIn = ctx.input.backend;
  const be = { http: backendPortText(beIn.http), https: backendPortText(beIn.https), tcp: backendPortText(beIn.tcp) };
  const loopback = `127.0.0.1`;
  const upstreamServers = new Map<string, number>();
  if (ast.errors.length > 0) {
    const e = ast.errors[0];
    throw new SandboxRefusal(`syntax error: ${e.message}`, orig, lineAt(ast.text, e.start));
  }
  const replaceWord = (w: Word, text: string) => edits.push({ start: w.start, end: w.end, text });
  const drop = (d: Directive) => edits.push({ start: d.start, end: d.end, text: '' });
  const replaceDirective = (d: Directive, text: string) => edits.push({ start: d.start, end: d.end, text });

  const newPortSlot = (key: string): number => {
    let slot = ctx.portKeys.get(key);
    if (slot === undefined) {
      slot = ctx.portKeys.size;
      ctx.portKeys.set(key, slot);
    }
    return slot;
  };

  const serverNameOf = (server: Directive | undefined): string | undefined => {
    const sn = server?.block?.children.find((c) => c.name === 'server_name');
    const name = sn?.args.map((a) => a.value).find((v) => v && !v.includes('*') && !v.startsWith('~') && v !== '_' && !v.startsWith('.'));
    return name;
  };

  const addListener = (d: Directive | null, server: Directive | undefined, c: string, key: string, flags: string[], at: number) => {
    const slot = newPortSlot(key);
    const ssl = flags.includes('ssl') || !!server?.block?.children.some((x) => x.name === 'ssl' && x.args[0]?.value === 'on');
    const http2 = flags.includes('http2');
    const udp = flags.includes('udp');
    if (ssl) ctx.usedSsl = true;
    ctx.listeners.push({
      slot,
      port: 0,
      ssl,
      http2,
      stream: c === 'stream/server',
      udp,
      h2cOnly: http2 && !ssl,
      serverName: serverNameOf(server),
      file: orig,
      line: lineAt(file.text, at),
      original: d ? file.text.slice(d.start, d.end) : '(no listen: nginx default *:80)',
      block: !server
        ? undefined
        : server === job.server?.directive
          ? job.server.block
          : { file: orig, line: lineAt(file.text, server.start) },
    });
    return slot;
  };

  const LISTEN_DROP = /^(ipv6only=|proxy_protocol$|setfib=|accept_filter=|so_keepalive=|quic$)/;

  const rewritePass = (d: Directive, c: string) => {
    const w = d.args[0];
    if (!w) return;
    const v = w.value;
    if (d.name === 'proxy_pass' && c === 'stream/server') {
      // stream: `proxy_pass address;` or `proxy_pass upstream;`
      if (v.includes('$'))
        refuse(file, orig, d, `\`proxy_pass ${v}\` builds the target from variables at run time: it cannot be confined to loopback`);
      if (ctx.streamUpstreams.has(v)) return;
      replaceWord(w, `${loopback}:${be.tcp}`);
      return;
    }
    const m = /^([a-z]+):\/\/([^/]*)(.*)$/i.exec(v);
    let scheme = '';
    let hostport = v;
    let rest = '';
    if (m) {
      scheme = m[1].toLowerCase();
      hostport = m[2];
      rest = m[3];
    }
    if (hostport.includes('$')) {
      refuse(file, orig, d, `\`${d.name} ${v}\` builds the target address from variables at run time: it cannot be confined to loopback`);
    }
    if (!hostport.startsWith('unix:') && (ctx.upstreams.has(hostport) || ctx.upstreams.has(hostport.replace(/:\d+$/, '')))) return;
    const port = scheme === 'https' || scheme === 'grpcs' ? be.https : be.http;
    if (d.name !== 'proxy_pass')
      ctx.warnings.push(
        `${orig}:${lineAt(file.text, d.start)}: ${d.name} now points at the built-in HTTP backend, which does not speak its protocol: expect errors`,
      );
    replaceWord(w, `${scheme ? scheme + '://' : ''}${loopback}:${port}${rest.startsWith('unix:') ? '' : rest}`);
  };

  const visit = (list: Directive[], c: string, server: Directive | undefined, upstreamName: string | undefined) => {
    for (const d of list) {
      if (d.entry) {
        // an include among a geo/map/types block's entries is read by nginx where it is
        if (d.name === 'include' && d.args[0] && path.isAbsolute(d.args[0].value))
          for (const m of expandInclude(d.args[0].value)) ctx.reads.push({ path: m, file: orig, line: lineAt(file.text, d.start) });
        continue;
      }
      const n = d.name;
      if (SCRIPTING.test(n)) {
        refuse(
          file,
          orig,
          d,
          `\`${n}\` runs scripts that may open their own network connections; the benchmark cannot confine them to loopback`,
        );
      }
      if (DROP_DIRECTIVES.has(n)) {
        drop(d);
        continue;
      }
      if (REFUSED[n]) refuse(file, orig, d, `\`${n}\` ${REFUSED[n]}; the benchmark cannot confine it`);
      const byContent = refuseByContent(d, ctx.confDir);
      if (byContent) refuse(file, orig, d, byContent);
      // without a namespace, a directive of a loaded module that our tables do not know may do
      // anything; without loaded modules an unknown name is a typo nginx -t reports itself
      if (!ctx.input.contained && ctx.loadsModules && !DIRECTIVES.has(n) && !c.startsWith('block:'))
        refuse(
          file,
          orig,
          d,
          `\`${n}\` is not a directive the sandbox knows (a third-party module's?): without a network namespace here it cannot tell which addresses or paths it uses`,
        );
      const where = { file: orig, line: lineAt(file.text, d.start) };
      if (IN_PLACE_READS.has(n) && d.args[0]) ctx.reads.push({ path: d.args[0].value, ...where });
      const lim = ctx.input.limits;
      switch (n) {
        case 'load_module': {
          const w = d.args[0];
          if (!w) break;
          const layout = ctx.input.layout ?? { modulesDir: '/usr/lib/nginx/modules', confDir: '/etc/nginx', root: '' };
          let p = w.value;
          // Debian's modules-enabled files name the host's folder; a matrix binary has its own
          if (layout.root && p.startsWith('/usr/lib/nginx/modules/'))
            p = path.join(layout.modulesDir, p.slice('/usr/lib/nginx/modules/'.length));
          if (!path.isAbsolute(p)) p = path.join(layout.modulesDir, p.replace(/^modules\//, ''));
          let real = p;
          let dirReal = layout.modulesDir;
          try {
            real = realpathSync(p);
            dirReal = realpathSync(layout.modulesDir);
          } catch {
            // missing: refused below (or by nginx -t)
          }
          if (path.dirname(real) !== dirReal || !real.endsWith('.so'))
            refuse(
              file,
              orig,
              d,
              `\`load_module ${w.value}\`: modules are loaded only from the binary's own modules folder (${layout.modulesDir}); a library elsewhere would run its code during the check`,
            );
          if (ctx.input.refuseUncontainedNative) refuse(file, orig, d, `\`load_module ${w.value}\`: ${ctx.input.refuseUncontainedNative}`);
          if (p !== w.value) replaceWord(w, q(p));
          break;
        }
        case 'worker_processes': {
          const w = d.args[0];
          if (w && lim && /^\d+$/.test(w.value) && Number(w.value) > lim.cpus) {
            ctx.adjustments.push({
              ...where,
              setting: n,
              from: w.value,
              to: String(lim.cpus),
              why: `more workers than the ${lim.cpus} CPUs of this machine only compete with each other and with the load generator`,
            });
            replaceWord(w, String(lim.cpus));
          }
          break;
        }
        case 'worker_connections': {
          const w = d.args[0];
          if (!w || !/^\d+$/.test(w.value)) break;
          let v = Number(w.value);
          if (lim) {
            const max = Math.max(64, Math.floor((lim.hardFiles - RESERVED_FILES) / 2));
            if (v > max) {
              ctx.adjustments.push({
                ...where,
                setting: n,
                from: w.value,
                to: String(max),
                why: `each proxied connection takes two files and the file limit here is ${lim.hardFiles} (each worker also preallocates memory for every connection)`,
              });
              replaceWord(w, String(max));
              v = max;
            }
          }
          ctx.workerConnections = { job: orig, value: v };
          break;
        }
        case 'worker_rlimit_nofile': {
          const w = d.args[0];
          if (w && lim && /^\d+$/.test(w.value) && Number(w.value) > lim.hardFiles) {
            ctx.adjustments.push({
              ...where,
              setting: n,
              from: w.value,
              to: String(lim.hardFiles),
              why: `the hard file limit here is ${lim.hardFiles}; nginx cannot raise it without privileges`,
            });
            replaceWord(w, String(lim.hardFiles));
          }
          break;
        }
        case 'set_real_ip_from': {
          const w = d.args[0];
          if (w && w.value !== 'unix:' && !isIpOrCidr(w.value))
            refuse(
              file,
              orig,
              d,
              `\`set_real_ip_from ${w.value}\`: nginx resolves the name at start (a DNS query); use an address or a CIDR range`,
            );
          break;
        }
        case 'dav_methods': {
          if (d.args.some((a) => a.value !== 'off'))
            refuse(
              file,
              orig,
              d,
              "`dav_methods` writes, deletes and moves files under the location's root; the benchmark does not let a run change files outside its own folder",
            );
          break;
        }
        case 'include': {
          const w = d.args[0];
          if (!w) break;
          if (depth >= 16) refuse(file, orig, d, 'includes nested more than 16 deep');
          let pattern = rooted(path.isAbsolute(w.value) ? w.value : path.join(ctx.confDir, w.value), ctx.input.layout);
          if (isForbiddenPath(pattern)) refuse(file, orig, d, `\`include ${w.value}\`: files under /proc, /sys and /dev are never read`);
          let matches = expandInclude(pattern);
          if (matches.length === 0 && !/[*?[]/.test(w.value) && !path.isAbsolute(w.value)) {
            // A config kept in a project folder often includes the system's mime.types.
            const sys = path.join(ctx.input.layout?.confDir ?? '/etc/nginx', w.value);
            if (existsSync(sys)) {
              pattern = sys;
              matches = [sys];
              ctx.warnings.push(`${orig}:${lineAt(file.text, d.start)}: ${w.value} not found next to the config; using ${sys}`);
            }
          }
          if (matches.length === 0 && !/[*?[]/.test(w.value)) {
            refuse(file, orig, d, `included file not found: ${pattern}`);
          }
          const k = ++ctx.includeCounter;
          const incDir = path.join(dir, 'conf', 'inc', String(k));
          mkdirSync(incDir, { recursive: true });
          matches.forEach((m, i) => {
            const copy = path.join(incDir, `${String(i).padStart(4, '0')}-${path.basename(m)}`);
            let text: string;
            try {
              text = readConfig(rooted(m, ctx.input.layout));
            } catch (e) {
              refuse(file, orig, d, `\`include ${w.value}\`: ${(e as Error).message}`);
            }
            const inServer = !server
              ? undefined
              : server === job.server?.directive
                ? job.server
                : { directive: server, block: { file: orig, line: lineAt(file.text, server.start) } };
            rewriteFile(ctx, { original: m, copy, context: c, server: inServer }, parseNginx(text), depth + 1);
          });
          replaceWord(w, q(path.join(incDir, '*')));
          break;
        }
        case 'listen': {
          if (c !== 'server' && c !== 'stream/server' && c !== 'mail/server') break;
          const w = d.args[0];
          if (!w) break;
          const { host, port } = splitHostPort(w.value);
          const key = `${c === 'stream/server' ? 'stream' : c === 'mail/server' ? 'mail' : 'http'} ${host.toLowerCase()}:${port ?? '80'}`;
          const flags = d.args.slice(1).map((a) => a.value);
          const slot = addListener(d, server, c, key, flags, d.start);
          replaceWord(w, `${loopback}:${portSlot(slot)}`);
          for (const a of d.args.slice(1)) {
            if (a.value === 'reuseport' && ctx.input.contained) {
              // contained, the listening socket is the engine's (handed over); the per-worker
              // sockets nginx would make for reuseport are in the namespace, out of the load's reach
              replaceWord(a, '');
              ctx.warnings.push(
                `${orig}:${lineAt(file.text, d.start)}: reuseport removed from listen (in the sandbox's namespace the load reaches one listening socket, which the workers share)`,
              );
              continue;
            }
            if (LISTEN_DROP.test(a.value)) {
              if (a.value === 'proxy_protocol')
                ctx.warnings.push(
                  `${orig}:${lineAt(file.text, d.start)}: proxy_protocol removed from listen (the load generator does not send a PROXY header)`,
                );
              replaceWord(a, '');
            }
          }
          break;
        }
        case 'server': {
          if (d.block) {
            const inner = c === 'http' ? 'server' : childContext(c, 'server');
            if (inner === 'server' && !d.block.children.some((x) => x.name === 'listen')) {
              const slot = addListener(null, d, inner, 'http *:80', [], d.start);
              edits.push({ start: d.block.start + 1, end: d.block.start + 1, text: ` listen ${loopback}:${portSlot(slot)};` });
            }
            visit(d.block.children, inner, d, undefined);
            continue;
          }
          if (c === 'upstream' || c === 'stream/upstream') {
            const w = d.args[0];
            if (!w) break;
            const port = c === 'stream/upstream' ? be.tcp : upstreamName && ctx.httpsUpstreams.has(upstreamName) ? be.https : be.http;
            const nth = upstreamServers.get(upstreamName ?? '') ?? 0;
            upstreamServers.set(upstreamName ?? '', nth + 1);
            const host = ctx.input.failover && c === 'upstream' && nth === 1 && port === be.http ? FAILOVER_HOST : loopback;
            replaceWord(w, `${host}:${port}`);
            for (const a of d.args.slice(1)) if (/^(resolve|service=|route=)/.test(a.value)) replaceWord(a, '');
          }
          break;
        }
        case 'resolver': {
          for (const a of d.args) {
            if (a.value.includes('=')) continue;
            // nginx looks the name up itself (and `localhost.` is not in /etc/hosts): the address
            if (/^localhost\.?$/i.test(a.value)) {
              replaceWord(a, '127.0.0.1');
              continue;
            }
            const h = splitHostPort(a.value).host;
            if (!isLoopbackAddress(h))
              refuse(
                file,
                orig,
                d,
                `\`resolver ${a.value}\` is not a loopback address: the benchmark never sends DNS queries off this machine (remove the resolver or use 127.0.0.1)`,
              );
          }
          break;
        }
        case 'error_log': {
          const level = d.args
            .slice(1)
            .map((a) => a.value)
            .join(' ');
          replaceDirective(d, `error_log ${q(path.join(dir, 'logs', 'error.log'))}${level ? ' ' + level : ''};`);
          break;
        }
        case 'access_log': {
          const w = d.args[0];
          if (!w || w.value === 'off') break;
          replaceWord(w, q(path.join(dir, 'logs', 'access.log')));
          for (const a of d.args.slice(1)) if (/^(if=|flush=)/.test(a.value) === false && a.value.startsWith('syslog')) replaceWord(a, '');
          break;
        }
        case 'auth_http': {
          const w = d.args[0];
          if (w) replaceWord(w, `http://${loopback}:${be.http}/`);
          break;
        }
        case 'ssl_certificate':
        case 'ssl_certificate_key': {
          // the first of each in a block gets the throw-away pair; further ones (a second key type) go
          const siblings = list.filter((x) => x.name === n);
          if (siblings[0] !== d) {
            drop(d);
            break;
          }
          const w = d.args[0];
          if (w) replaceWord(w, q(n === 'ssl_certificate' ? ctx.input.cert.certFile : ctx.input.cert.keyFile));
          break;
        }
        default:
          if (PASS_DIRECTIVES.has(n)) rewritePass(d, c);
          else if (STORE_DIRECTIVES.has(n) && d.args[0] && d.args[0].value !== 'off') {
            // `on` stores under root/alias, a path where it says: both go into the sandbox
            mkdirSync(path.join(dir, 'store'), { recursive: true });
            replaceWord(d.args[0], q(path.join(dir, 'store')) + '$uri');
            ctx.warnings.push(`${orig}:${lineAt(file.text, d.start)}: ${n} now stores into the sandbox's store/ folder`);
          } else if (KEYLOG_DIRECTIVES.has(n) && d.args[0]) {
            replaceWord(d.args[0], q(path.join(dir, 'logs', `${n}.txt`)));
          } else if (TEMP_PATHS.has(n) && d.args[0]) {
            replaceWord(d.args[0], q(path.join(dir, 'temp', n.replace(/_temp_path$/, ''))));
          } else if (CACHE_PATHS.has(n) && d.args[0]) {
            replaceWord(d.args[0], q(path.join(dir, 'cache', `${n.replace(/_cache_path$/, '')}-${d.start}`)));
          }
      }
      if (n === 'http' && c === 'main' && d.block) {
        // Without these, nginx would create its compiled-in temp folders outside the sandbox.
        const set = new Set(d.block.children.map((x) => x.name));
        const add = [...TEMP_PATHS]
          .filter((t) => !set.has(t))
          .map((t) => `${t} ${q(path.join(dir, 'temp', t.replace(/_temp_path$/, '')))};`);
        // the compiled-in access log (/var/log/nginx/access.log) applies wherever none is set
        if (!ctx.httpAccessLog) add.push(`access_log ${q(path.join(dir, 'logs', 'access.log'))};`);
        if (add.length) edits.push({ start: d.block.start + 1, end: d.block.start + 1, text: ' ' + add.join(' ') });
      }
      if (d.block && !d.rawBody) {
        const inner = childContext(c, n);
        visit(d.block.children, inner, server, n === 'upstream' ? d.args[0]?.value : upstreamName);
      }
    }
  };
  visit(ast.directives, job.context, job.server?.directive, undefined);
  ctx.files.push({ copy: job.copy, original: orig, text: applyEdits(ast.text, edits) });
}
