// What the diagnosis needs to know of the user's config, with the lines it comes from: read from
// the user's files (never the sandbox's copies, whose paths and ports are the run's) with the
// languages' own parsers. Only the settings a finding can point at are collected.
import { readTextSafe } from '../../../server/src/runner/sandbox/common';
import { parseNginx } from '../../../server/src/languages/nginx/parser';
import { walk, type Directive, type NginxFile } from '../../../server/src/languages/nginx/ast';
import { parseHaproxy } from '../../../server/src/languages/haproxy/parser';
import type { Section, Statement } from '../../../server/src/languages/haproxy/ast';

/** A line of a config file: 1-based line, its text and its indentation. */
export interface Loc {
  file: string;
  line: number;
  text: string;
  indent: string;
}

function locAt(file: string, text: string, offset: number): Loc {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const endNl = text.indexOf('\n', offset);
  const lineText = text.slice(start, endNl < 0 ? text.length : endNl).replace(/\r$/, '');
  let line = 1;
  for (let i = 0; i < start; i++) if (text.charCodeAt(i) === 10) line++;
  return { file, line, text: lineText, indent: /^\s*/.exec(lineText)![0] };
}

export interface NginxSetting {
  value: string[];
  at: Loc;
}

export interface NginxFacts {
  kind: 'nginx';
  workerProcesses?: NginxSetting;
  workerConnections?: NginxSetting;
  events?: Loc;
  http?: Loc;
  upstreams: { name: string; at: Loc; servers: NginxSetting[]; keepalive?: NginxSetting; closeAt: Loc }[];
  proxyPasses: {
    target: string;
    at: Loc;
    httpVersion?: NginxSetting;
    connectionHeader?: NginxSetting;
    nextUpstream?: NginxSetting;
  }[];
  listens: { at: Loc; ssl: boolean; backlog?: number; server?: Loc }[];
  sslSessionCache: NginxSetting[];
  sslSessionTicketsOff?: NginxSetting;
  accessLogs: NginxSetting[];
  limitReqs: NginxSetting[];
  limitReqZones: NginxSetting[];
  limitConns: NginxSetting[];
}

/** The directive `name` in effect where `ancestors` lead (the innermost block that sets it). */
function inherited(file: NginxFile, ancestors: readonly Directive[], name: string): Directive | undefined {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const hit = ancestors[i].block?.children.find((c) => c.name === name);
    if (hit) return hit;
  }
  return file.directives.find((c) => c.name === name);
}

export function nginxFacts(files: readonly string[]): NginxFacts {
  const f: NginxFacts = {
    kind: 'nginx',
    upstreams: [],
    proxyPasses: [],
    listens: [],
    sslSessionCache: [],
    accessLogs: [],
    limitReqs: [],
    limitReqZones: [],
    limitConns: [],
  };
  for (const file of files) {
    let text: string;
    try {
      text = readTextSafe(file); // the user's file: regular, bounded, never blocking
    } catch {
      continue;
    }
    const ast = parseNginx(text);
    const at = (d: Directive) => locAt(file, text, d.start);
    const setting = (d: Directive): NginxSetting => ({ value: d.args.map((a) => a.value), at: at(d) });
    walk(ast, (d, ancestors) => {
      if (d.entry) return false;
      const parent = ancestors[ancestors.length - 1]?.name;
      switch (d.name) {
        case 'worker_processes':
          f.workerProcesses = setting(d);
          break;
        case 'worker_connections':
          f.workerConnections = setting(d);
          break;
        case 'events':
          f.events = at(d);
          break;
        case 'http':
          f.http = at(d);
          break;
        case 'upstream': {
          if (ancestors.some((a) => a.name === 'stream')) break;
          const kids = d.block?.children ?? [];
          const ka = kids.find((c) => c.name === 'keepalive');
          const close = d.block?.closeStart ?? d.end;
          f.upstreams.push({
            name: d.args[0]?.value ?? '',
            at: at(d),
            servers: kids.filter((c) => c.name === 'server').map(setting),
            keepalive: ka ? setting(ka) : undefined,
            closeAt: locAt(file, text, close),
          });
          return false;
        }
        case 'proxy_pass': {
          if (ancestors.some((a) => a.name === 'stream')) break;
          const hv = inherited(ast, ancestors, 'proxy_http_version');
          const headers = ancestors
            .flatMap((a) => a.block?.children ?? [])
            .filter((c) => c.name === 'proxy_set_header' && c.args[0]?.value.toLowerCase() === 'connection');
          const nu = inherited(ast, ancestors, 'proxy_next_upstream');
          f.proxyPasses.push({
            target: d.args[0]?.value ?? '',
            at: at(d),
            httpVersion: hv ? setting(hv) : undefined,
            connectionHeader: headers.length ? setting(headers[headers.length - 1]) : undefined,
            nextUpstream: nu ? setting(nu) : undefined,
          });
          break;
        }
        case 'listen': {
          if (parent !== 'server' || ancestors.some((a) => a.name === 'stream')) break;
          const words = d.args.map((a) => a.value);
          const bl = words.map((w) => /^backlog=(\d+)$/.exec(w)).find((m) => m);
          const server = ancestors[ancestors.length - 1];
          f.listens.push({ at: at(d), ssl: words.includes('ssl'), backlog: bl ? Number(bl[1]) : undefined, server: at(server) });
          break;
        }
        case 'ssl_session_cache':
          f.sslSessionCache.push(setting(d));
          break;
        case 'ssl_session_tickets':
          if (d.args[0]?.value === 'off') f.sslSessionTicketsOff = setting(d);
          break;
        case 'access_log':
          if (!ancestors.some((a) => a.name === 'stream')) f.accessLogs.push(setting(d));
          break;
        case 'limit_req':
          f.limitReqs.push(setting(d));
          break;
        case 'limit_req_zone':
          f.limitReqZones.push(setting(d));
          break;
        case 'limit_conn':
          f.limitConns.push(setting(d));
          break;
      }
      return true;
    });
  }
  return f;
}

export interface HaproxySetting {
  value: string[];
  at: Loc;
}

export interface HaproxyFacts {
  kind: 'haproxy';
  global?: Loc;
  maxconn?: HaproxySetting;
  nbthread?: HaproxySetting;
  defaults: { at: Loc; settings: Map<string, HaproxySetting> }[];
  /** backend and listen sections. */
  backends: {
    name: string;
    at: Loc;
    servers: { name: string; at: Loc; words: string[] }[];
    settings: Map<string, HaproxySetting>;
  }[];
  statsSocket: boolean;
}

/** A statement's key: `retries`, `option redispatch`, `http-reuse`, `no option redispatch`. */
function keyOf(st: Statement): string {
  const kw = st.keyword?.value ?? '';
  const k = kw === 'option' || kw === 'timeout' ? `${kw} ${st.sub?.value ?? ''}` : kw;
  return st.prefix?.value === 'no' ? `no ${k}` : k;
}

export function haproxyFacts(files: readonly string[]): HaproxyFacts {
  const f: HaproxyFacts = { kind: 'haproxy', defaults: [], backends: [], statsSocket: false };
  for (const file of files) {
    let text: string;
    try {
      text = readTextSafe(file); // the user's file: regular, bounded, never blocking
    } catch {
      continue;
    }
    const ast = parseHaproxy(text);
    const at = (st: { start: number }) => locAt(file, text, st.start);
    const setting = (st: Statement): HaproxySetting => ({ value: st.args.map((a) => a.value), at: at(st) });
    const settingsOf = (s: Section) => {
      const m = new Map<string, HaproxySetting>();
      for (const st of s.statements) if (st.keyword && !st.disabled) m.set(keyOf(st), setting(st));
      return m;
    };
    for (const s of ast.sections) {
      if (s.keyword === 'global') {
        f.global = at(s.header);
        for (const st of s.statements) {
          const k = keyOf(st);
          if (k === 'maxconn') f.maxconn = setting(st);
          if (k === 'nbthread') f.nbthread = setting(st);
          if (k === 'stats' && st.sub?.value === 'socket') f.statsSocket = true;
        }
      } else if (s.keyword === 'defaults') {
        f.defaults.push({ at: at(s.header), settings: settingsOf(s) });
      } else if (s.keyword === 'backend' || s.keyword === 'listen') {
        f.backends.push({
          name: s.name?.value ?? '',
          at: at(s.header),
          servers: s.statements
            .filter((st) => st.keyword?.value === 'server')
            .map((st) => ({ name: st.args[0]?.value ?? '', at: at(st), words: st.args.map((a) => a.value) })),
          settings: settingsOf(s),
        });
      }
    }
  }
  return f;
}

export type ConfigFacts = NginxFacts | HaproxyFacts;
