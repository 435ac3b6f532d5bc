// HAProxy sandbox: a private copy of the user's haproxy.cfg rewritten so that the real binary runs
// it on loopback only, as the current user, in the foreground (`-db`):
// - every `bind` address becomes 127.0.0.1:<free port>; `server`/`server-template`/`dispatch`
//   addresses point at the built-in backend (HTTP, HTTPS with `ssl`, TCP echo in `mode tcp`);
//   peers and mailers get loopback addresses nobody listens on;
// - `daemon`, `chroot`, `user`/`group`, `pidfile`, `log` targets, `source`/`usesrc`, CA/CRL files go;
//   `stats socket` moves into the sandbox; `crt` becomes the throw-away pair;
// - what cannot be confined (a DNS `nameserver` off loopback, `do-resolve`, `option http_proxy`,
//   Lua, external checks, `program` sections) is refused with the line. The user's file is only read.
import * as path from 'node:path';
import { notTextReason } from '../../core/text';
import { parseHaproxy } from '../../languages/haproxy/parser';
import type { Section, Statement, Word } from '../../languages/haproxy/ast';
import { PROXY_KINDS } from '../../languages/haproxy/overrides';
import {
  applyEdits,
  backendPortText,
  FAILOVER_HOST,
  isLoopbackAddress,
  portSlot,
  SandboxRefusal,
  type BackendAddr,
  type Edit,
  type SandboxListener,
  editorLineEnds,
  readTextSafe,
  type InPlaceRead,
} from './common';
import type { SandboxAdjustment } from '../../../../protocol/bench';
import { expandHaproxyEnv } from './haproxyEnv';
import { RESERVED_FILES, type MachineLimits } from './limits';

/** Sections the sandbox knows what to do with; any other is refused. */
const KNOWN_SECTIONS = new Set([
  'global',
  'defaults',
  'frontend',
  'backend',
  'listen',
  'resolvers',
  'peers',
  'mailers',
  'userlist',
  'http-errors',
  'ring',
  'cache',
  'log-forward',
  'fcgi-app',
  'crt-store',
  'log-profile',
  'traces',
]);
/** Actions that choose the address a connection goes to. */
const DESTINATION_ACTIONS = /^(set-dst|set-dst-port|do-connect)$/;
/** Global keywords that load native code or start network activity of their own. */
const REFUSED_GLOBAL: Record<string, string> = {
  'ssl-engine': 'loads an OpenSSL engine (native code)',
  'ssl-provider': 'loads an OpenSSL provider (native code)',
  'ssl-provider-path': 'loads OpenSSL providers (native code)',
  'module-load': 'loads a shared library',
  'insecure-fork-wanted': 'lets HAProxy start other programs',
  'insecure-setuid-wanted': 'lets HAProxy run setuid programs',
  'httpclient.resolvers.id': 'makes the HTTP client resolve names',
};

export interface HaproxySandboxInput {
  configPath: string;
  dir: string;
  backend: BackendAddr;
  cert: { pemFile: string };
  /** CPUs and file limit (caps on nbthread, maxconn, ulimit-n). */
  limits?: MachineLimits;
  /** The environment HAProxy will run with (`${VAR}` is expanded from it). */
  env?: Record<string, string | undefined>;
  /** A failover run: each backend's second server goes to FAILOVER_HOST. */
  failover?: boolean;
}

export interface HaproxySandboxPlan {
  copy: string;
  original: string;
  text: string;
  listeners: SandboxListener[];
  portCount: number;
  warnings: string[];
  adjustments: SandboxAdjustment[];
  /** Files HAProxy reads where they are (not copied): pattern and map files, error files, data files. */
  reads: InPlaceRead[];
}

/** Keywords and parameters followed by a file HAProxy reads in place. */
const FILE_AFTER = new Set([
  '-f',
  'file',
  'lf-file',
  'errorfile',
  'ssl-dh-param-file',
  'h1-case-adjust-file',
  '51degrees-data-file',
  'wurfl-data-file',
  'deviceatlas-json-file',
  'config',
]);
/** A map converter's file: `map(FILE)`, `map_str(FILE,default)`, `map_ip_int(FILE)`... */
const MAP_FILE = /(?:^|[^\w-])map(?:_\w+)?\(([^,()\s]+)/g;

/** The files a statement makes HAProxy read (`acl ... -f F`, `map_*(F)`, `errorfile 503 F`, `return file F`...). */
function fileReads(st: Statement, original: string, line: number): InPlaceRead[] {
  const out: InPlaceRead[] = [];
  const words = st.words.map((w) => w.value);
  const k = st.keyword?.value ?? '';
  words.forEach((w, i) => {
    const next = words[i + 1];
    if (next && FILE_AFTER.has(w) && (w !== 'config' || (k === 'filter' && words.includes('spoe'))))
      out.push({ path: next, file: original, line });
    for (const m of w.matchAll(MAP_FILE)) out.push({ path: m[1], file: original, line });
  });
  // `errorfile CODE FILE` (proxies and http-errors sections)
  if (k === 'errorfile' && st.args[1]) out.push({ path: st.args[1].value, file: original, line });
  return out;
}

/** Server/bind parameters followed by one value that must go (files, interfaces, source addresses). */
const DROP_WITH_VALUE = new Set([
  'ca-file',
  'crl-file',
  'crt-list',
  'interface',
  'namespace',
  'source',
  'usesrc',
  'resolvers',
  'addr',
  'port',
  'agent-addr',
  'agent-port',
  'agent-inter',
  'user',
  'group',
  'uid',
  'gid',
  'ca-verify-file',
  'ocsp-update',
  'socks4',
  'resolve-prefer',
  'resolve-net',
  'resolve-opts',
]);
const DROP_FLAGS = new Set([
  'transparent',
  'accept-proxy',
  'agent-check',
  'send-proxy',
  'send-proxy-v2',
  'send-proxy-v2-ssl',
  'send-proxy-v2-ssl-cn',
  'check-send-proxy',
]);

/**
 * Lines HAProxy could read otherwise than the plan: conditional blocks (`.if` ... `.endif`, which
 * hide lines from HAProxy and not from the plan) and a first word written with quotes or
 * escapes (`"global"`, `'program'`, `\x67lobal` are HAProxy's `global` and `program`).
 */
function refuseAmbiguousLines(text: string, original: string): void {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].replace(/^[ \t]+/, '');
    if (t === '' || t.startsWith('#')) continue;
    const first = /^\S+/.exec(t)?.[0] ?? '';
    if (/^\.(if|elif|else|endif)$/.test(first))
      throw new SandboxRefusal(
        `\`${first}\`: conditional blocks decide which lines HAProxy reads; the sandbox refuses them (keep the lines that apply)`,
        original,
        i + 1,
      );
    if (/["'\\]/.test(first))
      throw new SandboxRefusal(
        'a keyword or section name written with quotes or escapes is read by HAProxy as the plain word; the sandbox refuses it (write the word itself)',
        original,
        i + 1,
      );
  }
}

/**
 * `filter spoe ... config FILE`: the SPOE file has its own `log` lines (targets HAProxy sends
 * to); the plan does not rewrite that file, so a file that logs, or that cannot be read safely, is refused.
 */
function refuseSpoeLogs(st: Statement, original: string, line: number): void {
  const a = st.args.map((w) => w.value);
  const i = a.indexOf('config');
  if (i < 0 || !a[i + 1]) return;
  const file = path.resolve(path.dirname(original), a[i + 1]);
  let body: string;
  try {
    body = readTextSafe(file, 1024 * 1024);
  } catch (e) {
    throw new SandboxRefusal(`the SPOE configuration ${a[i + 1]} cannot be read safely: ${(e as Error).message}`, original, line);
  }
  for (const l of body.split(/\r?\n|\r/)) {
    const first = /^[ \t]*(\S+)/.exec(l)?.[1] ?? '';
    if (first === 'log' || /["'\\]/.test(first) || /^\.(if|elif|else|endif)$/.test(first))
      throw new SandboxRefusal(
        `the SPOE configuration ${a[i + 1]} has \`${first}\` lines the sandbox does not rewrite (log targets, quoted keywords, conditions); remove them to benchmark`,
        original,
        line,
      );
  }
}

export function planHaproxySandbox(input: HaproxySandboxInput): HaproxySandboxPlan {
  const original = path.resolve(input.configPath);
  let text: string;
  try {
    text = readTextSafe(original);
  } catch (e) {
    throw new SandboxRefusal(`cannot read ${original}: ${(e as Error).message}`);
  }
  // A lone CR is a line break, as the editor shows it: the copy HAProxy reads and the plan see the same lines.
  text = editorLineEnds(text);
  const notText = notTextReason(text);
  if (notText) throw new SandboxRefusal(`${original}: ${notText}`);
  let ast = parseHaproxy(text);
  // HAProxy expands its environment variables while it reads: plan what it will read
  const expanded = expandHaproxyEnv(text, ast, input.env ?? process.env, original);
  if (expanded.changed) {
    text = expanded.text;
    ast = parseHaproxy(text);
  }
  refuseAmbiguousLines(text, original);
  const reads: InPlaceRead[] = [];
  const adjustments: SandboxAdjustment[] = [];
  const lim = input.limits;
  const edits: Edit[] = [];
  const listeners: SandboxListener[] = [];
  const warnings: string[] = [];
  let slots = 0;
  const be = {
    http: backendPortText(input.backend.http),
    https: backendPortText(input.backend.https),
    tcp: backendPortText(input.backend.tcp),
  };
  const dir = input.dir;
  const lineOf = (st: Statement) => st.line + 1;
  const refuse = (st: Statement, msg: string): never => {
    throw new SandboxRefusal(msg, original, lineOf(st));
  };
  const dropLine = (st: Statement) => edits.push({ start: st.start, end: st.end, text: '' });
  const replace = (w: Word, t: string) => edits.push({ start: w.start, end: w.end, text: t });
  const removeFrom = (st: Statement, fromIdx: number, isBind: boolean) => {
    // drops the parameters of a bind/server line that cannot stay (and their values)
    const a = st.args;
    for (let i = fromIdx; i < a.length; i++) {
      const v = a[i].value;
      if (isBind && (v === 'crt' || v === 'crt-list')) {
        i++;
        continue;
      }
      if (DROP_WITH_VALUE.has(v) && i + 1 < a.length) {
        replace(a[i], '');
        replace(a[i + 1], '');
        i++;
      } else if (DROP_FLAGS.has(v)) {
        replace(a[i], '');
      } else if (v === 'verify' && i + 1 < a.length) {
        replace(a[i + 1], 'none');
        i++;
      } else if (v === 'crt' && i + 1 < a.length) {
        // a client certificate on a server line; on a bind line it is replaced by the caller
        replace(a[i], '');
        replace(a[i + 1], '');
        i++;
      }
    }
  };

  const modeOf = new Map<Section, string>();
  const serversOf = new Map<Section, number>();
  let defaultsMode = 'tcp'; // HAProxy's own default
  for (const sec of ast.sections) {
    if (!PROXY_KINDS.has(sec.keyword)) continue;
    let mode = sec.keyword === 'defaults' ? 'tcp' : defaultsMode;
    for (const st of sec.statements) if (st.keyword?.value === 'mode' && st.args[0]) mode = st.args[0].value;
    if (sec.keyword === 'defaults') defaultsMode = mode;
    modeOf.set(sec, mode);
  }

  if (ast.errors.length > 0) {
    const e = ast.errors[0];
    const line = ast.lineStarts.filter((s) => s <= e.start).length;
    throw new SandboxRefusal(`syntax error: ${e.message}`, original, line);
  }

  for (const st of ast.orphans) if (st.keyword) refuse(st, `\`${st.keyword.value}\` outside of any section`);

  for (const sec of ast.sections) {
    const kw = sec.keyword;
    if (kw === 'program') refuse(sec.header, '`program` sections run external commands; the benchmark cannot confine them to loopback');
    if (kw === 'acme') refuse(sec.header, '`acme` sections contact a certificate authority over the network');
    if (!KNOWN_SECTIONS.has(kw))
      refuse(sec.header, `\`${kw}\` sections are not known to the sandbox: it cannot tell which addresses or files they use`);
    for (const st of sec.statements) {
      const k = st.keyword?.value ?? '';
      reads.push(...fileReads(st, original, st.line + 1));
      if (st.prefix) {
        continue; // `no option ...`
      }
      if (kw === 'crt-store') {
        // certificates the bind lines no longer use (they get the throw-away pair); `ocsp-update on` would fetch
        dropLine(st);
        continue;
      }
      const dest = st.words.find((w) => DESTINATION_ACTIONS.test(w.value) || /^(set-dst|set-dst-port)\(/.test(w.value));
      if (dest && /^(http-request|http-response|tcp-request|http-after-response|tcp-response)$/.test(k))
        refuse(st, `\`${dest.value}\` sets where the connection goes at run time: it cannot be confined to loopback`);
      if ((k === 'tcp-check' || k === 'http-check') && st.args[0]?.value === 'connect') {
        // the check's own address goes: it then connects to the (rewritten) server address
        const a = st.args;
        for (let i = 1; i < a.length; i++) {
          if (a[i].value === 'addr' && i + 1 < a.length) {
            replace(a[i], '');
            replace(a[i + 1], '');
            i++;
          } else if (a[i].value === 'send-proxy' || a[i].value === 'via-socks4') replace(a[i], '');
        }
        continue;
      }
      if (k === 'option' && st.sub?.value === 'transparent') {
        // connects to the client's destination address: dropped, the servers (rewritten) are used
        dropLine(st);
        warnings.push(`${original}:${lineOf(st)}: \`option transparent\` removed (it connects to each request's original destination)`);
        continue;
      }
      if (kw === 'ring' && k === 'backing-file') {
        edits.push({ start: st.start, end: st.end, text: `backing-file ${path.join(dir, `ring-${lineOf(st)}.bin`)}` });
        continue;
      }
      if (k === 'lua-load' || k === 'lua-load-per-thread' || k === 'lua-prepend-path')
        refuse(st, `\`${k}\`: Lua scripts may open their own connections; the benchmark cannot confine them to loopback`);
      if (k === 'external-check' || (k === 'option' && st.sub?.value === 'external-check'))
        refuse(st, 'external checks run commands; the benchmark cannot confine them to loopback');
      if (k === 'option' && st.sub?.value === 'http_proxy')
        refuse(st, '`option http_proxy` connects to the address found in each request; it cannot be confined to loopback');
      if (st.words.some((w) => /^do-resolve\(/.test(w.value)))
        refuse(st, '`do-resolve` sends DNS queries; the benchmark never sends them off this machine');

      // in every section: the plan's idea of the section must never be what lets a keyword through
      if (REFUSED_GLOBAL[k]) refuse(st, `\`${k}\` ${REFUSED_GLOBAL[k]}; the benchmark cannot confine it`);
      if (k === 'filter' && st.args[0]?.value === 'spoe') refuseSpoeLogs(st, original, lineOf(st));
      if (kw === 'global') {
        if (/^ocsp-update\./.test(k) && st.args.some((a) => a.value === 'on')) {
          dropLine(st);
          continue;
        }
        if (k === 'maxconn' && lim && st.args[0] && /^\d+$/.test(st.args[0].value)) {
          const max = Math.max(100, Math.floor((lim.hardFiles - RESERVED_FILES) / 2));
          if (Number(st.args[0].value) > max) {
            adjustments.push({
              file: original,
              line: lineOf(st),
              setting: 'maxconn',
              from: st.args[0].value,
              to: String(max),
              why: `HAProxy needs about two files per connection and the file limit here is ${lim.hardFiles}`,
            });
            replace(st.args[0], String(max));
          }
          continue;
        }
        if (
          (k === 'ulimit-n' || k === 'fd-hard-limit') &&
          lim &&
          st.args[0] &&
          /^\d+$/.test(st.args[0].value) &&
          Number(st.args[0].value) > lim.hardFiles
        ) {
          adjustments.push({
            file: original,
            line: lineOf(st),
            setting: k,
            from: st.args[0].value,
            to: String(lim.hardFiles),
            why: `the hard file limit here is ${lim.hardFiles}`,
          });
          replace(st.args[0], String(lim.hardFiles));
          continue;
        }
        if (k === 'nbthread' && lim && st.args[0] && /^\d+$/.test(st.args[0].value) && Number(st.args[0].value) > lim.cpus) {
          adjustments.push({
            file: original,
            line: lineOf(st),
            setting: k,
            from: st.args[0].value,
            to: String(lim.cpus),
            why: `more threads than the ${lim.cpus} CPUs of this machine only compete with each other and with the load generator`,
          });
          replace(st.args[0], String(lim.cpus));
          continue;
        }
        if (
          [
            'daemon',
            'chroot',
            'user',
            'group',
            'uid',
            'gid',
            'pidfile',
            'ca-base',
            'crt-base',
            'unix-bind',
            'log',
            'log-send-hostname',
            'nbproc',
            'server-state-file',
            'server-state-base',
          ].includes(k)
        ) {
          if (k === 'nbproc') continue; // left for haproxy -c to judge (removed in 2.5)
          dropLine(st);
          continue;
        }
        if (k === 'stats' && st.sub?.value === 'socket') {
          edits.push({ start: st.start, end: st.end, text: `stats socket ${path.join(dir, 'admin.sock')} mode 600 level admin` });
          continue;
        }
        continue;
      }
      if (kw === 'resolvers') {
        if (k === 'nameserver' && st.args[1]) {
          const addr = st.args[1].value.replace(/^(udp|tcp|ipv4|ipv6)@/, '');
          const host = addr.startsWith('[') ? addr.slice(0, addr.indexOf(']') + 1) : addr.replace(/:\d+$/, '');
          if (!isLoopbackAddress(host))
            refuse(
              st,
              `\`nameserver ${st.args[0]?.value ?? ''} ${st.args[1].value}\` is not a loopback address: the benchmark never sends DNS queries off this machine`,
            );
        }
        if (k === 'parse-resolv-conf')
          refuse(st, '`parse-resolv-conf` uses the system name servers: the benchmark never sends DNS queries off this machine');
        continue;
      }
      if (kw === 'peers' || kw === 'mailers') {
        if ((k === 'peer' || k === 'mailer' || k === 'server') && st.args[1]) {
          const slot = slots++;
          replace(st.args[1], `127.0.0.1:${portSlot(slot)}`);
        } else if (k === 'bind' && st.args[0]) {
          replace(st.args[0], `127.0.0.1:${portSlot(slots++)}`);
        } else if (k === 'log') dropLine(st);
        continue;
      }
      if (kw === 'ring') {
        if (k === 'server' && st.args[1]) replace(st.args[1], `127.0.0.1:${be.tcp}`);
        continue;
      }
      if (kw === 'log-forward') {
        if ((k === 'bind' || k === 'dgram-bind') && st.args[0]) replace(st.args[0], `127.0.0.1:${portSlot(slots++)}`);
        if (k === 'log') dropLine(st);
        continue;
      }
      if (!PROXY_KINDS.has(kw)) continue;
      const mode = modeOf.get(sec) ?? 'tcp';
      switch (k) {
        case 'log':
          if (st.args[0]?.value !== 'global') dropLine(st);
          else if (kw !== 'defaults') {
            // `log global` with no global log target is fine
          }
          break;
        case 'source':
          dropLine(st);
          break;
        case 'bind': {
          if (kw === 'backend' || kw === 'defaults') break;
          const a = st.args[0];
          if (!a) break;
          const addrs = a.value.split(',');
          const params = st.args.slice(1).map((w) => w.value);
          if (addrs.some((x) => /^(quic[46]?|udp[46]?)@/.test(x))) {
            warnings.push(`${original}:${lineOf(st)}: QUIC/UDP bind removed (the load generator speaks TCP)`);
            dropLine(st);
            break;
          }
          const ssl = params.includes('ssl');
          const alpnIdx = params.indexOf('alpn');
          const alpn = alpnIdx >= 0 ? (params[alpnIdx + 1] ?? '') : '';
          const protoIdx = params.indexOf('proto');
          const h2 = (protoIdx >= 0 && params[protoIdx + 1] === 'h2') || /\bh2\b/.test(alpn);
          const newAddrs = addrs.map(() => {
            const slot = slots++;
            listeners.push({
              slot,
              port: 0,
              ssl,
              http2: h2,
              stream: mode === 'tcp',
              udp: false,
              h2cOnly: !ssl && protoIdx >= 0 && params[protoIdx + 1] === 'h2',
              file: original,
              line: lineOf(st),
              original: st.words.map((w) => w.raw).join(' '),
              block: { file: original, line: lineOf(sec.header) },
            });
            return `127.0.0.1:${portSlot(slot)}`;
          });
          replace(a, newAddrs.join(','));
          removeFrom(st, 1, true);
          // `crt FILE` (maybe several) → the throw-away pair once
          let crtDone = false;
          const args = st.args;
          for (let i = 1; i < args.length; i++) {
            if ((args[i].value === 'crt' || args[i].value === 'crt-list') && i + 1 < args.length) {
              if (!crtDone) {
                edits.push({ start: args[i].start, end: args[i + 1].end, text: `crt ${input.cert.pemFile}` });
                crtDone = true;
              } else {
                edits.push({ start: args[i].start, end: args[i + 1].end, text: '' });
              }
              i++;
            }
          }
          break;
        }
        case 'server':
        case 'server-template':
        case 'default-server':
        case 'dispatch': {
          if (kw === 'frontend') break;
          const addrIdx = k === 'server' ? 1 : k === 'server-template' ? 2 : k === 'dispatch' ? 0 : -1;
          const params = st.args.map((w) => w.value);
          const ssl = params.includes('ssl');
          if (addrIdx >= 0 && st.args[addrIdx]) {
            const port = mode === 'tcp' ? (ssl ? be.https : be.tcp) : ssl ? be.https : be.http;
            const nth = k === 'server' ? (serversOf.get(sec) ?? 0) : -1;
            if (k === 'server') serversOf.set(sec, nth + 1);
            const host = input.failover && nth === 1 && port === be.http ? FAILOVER_HOST : '127.0.0.1';
            replace(st.args[addrIdx], `${host}:${port}`);
          }
          removeFrom(st, Math.max(0, addrIdx + 1), false);
          break;
        }
        default:
          break;
      }
    }
  }
  for (const a of adjustments) warnings.push(`${a.file}:${a.line}: ${a.setting} lowered from ${a.from} to ${a.to}: ${a.why}`);
  let out = applyEdits(text, edits);
  // HAProxy 2.6+ makes a `default` resolvers section from /etc/resolv.conf by itself (its UDP
  // socket is connected to the system's name server at start): one of ours, after the user's
  // last line, points it at loopback where nobody answers.
  if (!ast.sections.some((sec) => sec.keyword === 'resolvers' && sec.name?.value === 'default'))
    out += `${out.endsWith('\n') || out === '' ? '' : '\n'}resolvers default\n    nameserver pt-loopback 127.0.0.1:1\n`;
  return {
    copy: path.join(dir, 'haproxy.cfg'),
    original,
    text: out,
    listeners,
    portCount: slots,
    warnings,
    adjustments,
    reads,
  };
}
