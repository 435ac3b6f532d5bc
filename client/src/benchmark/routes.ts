// Where the CodeLenses go: the benchmarkable routes of a config, found with the project's own
// parsers (pure modules, bundled into the client). An nginx `server` gives a listener and a Host
// name, a `location` a request path; a HAProxy `frontend`/`listen` gives its listener. No vscode
// import here: the unit tests call it directly.
import type { ScenarioName } from '../../../protocol/bench';
import { keywordName, parseHaproxy, parseNginx, walk, type Directive } from '../../../server/src/service/published';

export interface Route {
  /** Stable key for the last-result lens: `config`, `server:NAME@LISTEN`, `location:PATH`, `frontend:NAME`. */
  key: string;
  /** Offset where the lens goes (the start of the directive / section header). */
  offset: number;
  /** Lens title after "Benchmark". */
  label: string;
  path: string;
  /** Host header, when the route names a server. */
  host: string;
  /** The `listen` / `bind` address as written, for display. */
  listen?: string;
  /** A scenario the route needs (L4 routes need `tcp`). */
  scenario?: ScenarioName;
  /**
   * Offset of the block whose listener the route is reached through (the nginx `server` itself or
   * a location's server, the HAProxy section): its line is the engine's `listener` option.
   */
  blockOffset: number;
}

/**
 * The literal path a location matches: the argument of a prefix, `=` or `^~` location, or the
 * literal start of a regex anchored at `^/`. Named (`@x`) and unanchored regex locations have
 * no path to send.
 */
export function locationPath(args: readonly string[]): string | undefined {
  if (args.length === 0) return undefined;
  const [first, second] = args;
  if (first === '=' || first === '^~') return second?.startsWith('/') ? second : undefined;
  if (first === '~' || first === '~*') {
    if (!second?.startsWith('^/')) return undefined;
    let out = '';
    for (let i = 1; i < second.length; i++) {
      const c = second[i];
      if (c === '\\' && i + 1 < second.length && /[./\-_]/.test(second[i + 1])) {
        out += second[++i];
        continue;
      }
      if (/[.*+?()[\]{}|$^\\]/.test(c)) break;
      out += c;
    }
    return out || '/';
  }
  if (first.startsWith('@')) return undefined;
  return first.startsWith('/') ? first : undefined;
}

/** A usable Host header from `server_name` arguments (skips `_`, wildcards and regexes). */
export function pickServerName(names: readonly string[]): string {
  return names.find((n) => n && n !== '_' && !n.includes('*') && !n.startsWith('~') && /^[A-Za-z0-9.:[\]_-]+$/.test(n)) ?? '';
}

function childArgs(d: Directive, name: string): string[][] {
  return (d.block?.children ?? []).filter((c) => c.name === name).map((c) => c.args.map((a) => a.value));
}

export function nginxRoutes(text: string): Route[] {
  const file = parseNginx(text);
  const routes: Route[] = [];
  walk(file, (d, ancestors) => {
    const parent = ancestors[ancestors.length - 1];
    if (d.name === 'server' && d.block && (parent?.name === 'http' || parent?.name === 'stream')) {
      const stream = parent.name === 'stream';
      const listen = childArgs(d, 'listen')[0]?.[0];
      const host = stream ? '' : pickServerName(childArgs(d, 'server_name').flat());
      const where = [host, listen].filter(Boolean).join(' @ ') || 'server';
      routes.push({
        key: `server:${stream ? 'stream:' : ''}${host}@${listen ?? ''}`,
        offset: d.start,
        label: stream ? `stream ${listen ?? ''}`.trim() : where,
        path: '/',
        host,
        listen,
        scenario: stream ? 'tcp' : undefined,
        blockOffset: d.start,
      });
    } else if (d.name === 'location' && d.block) {
      const server = ancestors.find((a) => a.name === 'server');
      const http = ancestors.some((a) => a.name === 'http');
      const path = locationPath(d.args.map((a) => a.value));
      if (!server || !http || !path) return;
      const host = pickServerName(childArgs(server, 'server_name').flat());
      routes.push({
        key: `location:${host}${path}`,
        offset: d.start,
        label: path,
        path,
        host,
        listen: childArgs(server, 'listen')[0]?.[0],
        blockOffset: server.start,
      });
    }
  });
  return routes;
}

export function haproxyRoutes(text: string): Route[] {
  const file = parseHaproxy(text);
  const routes: Route[] = [];
  for (const s of file.sections) {
    if (s.keyword !== 'frontend' && s.keyword !== 'listen') continue;
    const name = s.name?.value ?? '';
    const bind = s.statements.find((st) => keywordName(st) === 'bind');
    const listen = bind?.args[0]?.value;
    const tcp = s.statements.some((st) => keywordName(st) === 'mode' && st.args[0]?.value === 'tcp');
    routes.push({
      key: `${s.keyword}:${name}`,
      offset: s.start,
      label: `${s.keyword} ${name}${listen ? ` @ ${listen}` : ''}`,
      path: '/',
      host: '',
      listen,
      scenario: tcp ? 'tcp' : undefined,
      blockOffset: s.start,
    });
  }
  return routes;
}

export function findRoutes(kind: 'nginx' | 'haproxy', text: string): Route[] {
  try {
    return kind === 'nginx' ? nginxRoutes(text) : haproxyRoutes(text);
  } catch {
    // The parsers do not throw; a CodeLens must never fail the editor even if one did.
    return [];
  }
}
