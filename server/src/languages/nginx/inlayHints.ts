// Inlay hints for nginx: what the config leaves out and nginx does anyway, at the target version.
// - after an http `upstream` header without `keepalive`: from 1.29.7 on, nginx keeps idle
//   connections to its servers (`keepalive 32 local` is the default); before, none;
// - on a `proxy_pass` line where no `proxy_http_version` is written in its blocks: the HTTP
//   version nginx speaks to the backend (1.0 before 1.29.7, 1.1 from it on);
// - in a main config without `worker_processes`: one worker process.
// Each was observed on the real binaries on both sides of the bound (test/nginx/inlayHints.test.ts).
import type { InlayHint, Range } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import type { Directive, NginxFile } from './ast';
import { childContext } from './ast';
import { compareVersions } from '../../core/version';
import { inferContext } from './inferContext';
import { isMainConfig } from './data';

/** The version from which an upstream keeps connections alive and proxy_http_version defaults to 1.1. */
export const KEEPALIVE_DEFAULT_SINCE = '1.29.7';
const KIND_PARAMETER = 2;

function atLeast(target: string | undefined, version: string): boolean {
  return !target || compareVersions(target, version) >= 0;
}

const PROXY_CONTEXTS = new Set(['location', 'if in location', 'limit_except']);

export function nginxInlayHints(doc: TextDocument, file: NginxFile, range: Range, settings: ServiceSettings): InlayHint[] {
  try {
    const target = settings.nginxVersion;
    const modern = atLeast(target, KEEPALIVE_DEFAULT_SINCE);
    const shown = target ? `nginx ${target}` : 'the newest nginx';
    const from = doc.offsetAt(range.start);
    const to = doc.offsetAt(range.end);
    const out: InlayHint[] = [];
    const inRange = (offset: number) => offset >= from && offset <= to;

    const walk = (list: Directive[], ctx: string, httpVersionSet: boolean): void => {
      const setHere = httpVersionSet || list.some((d) => d.name === 'proxy_http_version' && !d.entry);
      for (const d of list) {
        if (d.entry) continue;
        if (d.name === 'upstream' && ctx === 'http' && d.block && modern && !d.block.children.some((c) => c.name === 'keepalive')) {
          if (inRange(d.block.start))
            out.push({
              position: doc.positionAt(d.block.start + 1),
              label: 'keepalive 32 local',
              kind: KIND_PARAMETER,
              paddingLeft: true,
              tooltip: {
                kind: 'markdown',
                value: `Implicit at ${shown}: since ${KEEPALIVE_DEFAULT_SINCE} an \`upstream\` block without \`keepalive\` keeps up to 32 idle connections per worker to its servers, not shared between locations. Write \`keepalive\` to change the number; before ${KEEPALIVE_DEFAULT_SINCE} there was no connection cache without it.`,
              },
            });
        }
        if (d.name === 'proxy_pass' && PROXY_CONTEXTS.has(ctx) && !setHere) {
          const end = d.semicolon !== undefined ? d.semicolon + 1 : d.end;
          if (inRange(end))
            out.push({
              position: doc.positionAt(end),
              label: `proxy_http_version ${modern ? '1.1' : '1.0'}`,
              kind: KIND_PARAMETER,
              paddingLeft: true,
              tooltip: {
                kind: 'markdown',
                value: `Not written in this location or an enclosing block: ${shown} speaks HTTP/${modern ? '1.1' : '1.0'} to the backend (the default is 1.1 from ${KEEPALIVE_DEFAULT_SINCE} on, 1.0 before${modern ? '' : ', which closes the connection after each request'}).`,
              },
            });
        }
        if (d.block && !d.rawBody) walk(d.block.children, childContext(ctx, d.name), setHere);
      }
    };
    const start = inferContext(file);
    walk(file.directives, start, false);

    // A main config with an `events` block (where the worker settings are read) without
    // worker_processes runs one worker.
    if (
      start === 'main' &&
      isMainConfig(file.directives) &&
      file.directives.some((d) => d.name === 'events' && d.block) &&
      !file.directives.some((d) => d.name === 'worker_processes')
    ) {
      const first = file.directives[0];
      if (first && inRange(first.start)) {
        const cores = settings.host?.cpuCount;
        out.push({
          position: doc.positionAt(first.start),
          label: 'worker_processes 1;',
          kind: KIND_PARAMETER,
          paddingRight: true,
          tooltip: {
            kind: 'markdown',
            value: `Not written: nginx starts one worker process. \`worker_processes auto;\` starts one per CPU core${cores ? ` (${cores} on this machine)` : ''}.`,
          },
        });
      }
    }
    out.sort((a, b) => a.position.line - b.position.line || a.position.character - b.position.character);
    return out;
  } catch {
    return [];
  }
}
