// Panel form options to engine options (no vscode import: unit-tested with the engine itself).
import type { BenchOptions, ProxyKind } from '../../../protocol/bench';
import type { PanelRunOptions } from '../../../protocol/panel';
import { sendsOwnRequests } from '../../../protocol/scenarios';

/**
 * Panel options to engine options. `listenerLine`: the 1-based header line of the block (nginx
 * `server`, HAProxy `frontend`/`listen`) of a route started from its CodeLens, whose own listener
 * takes the load. The method and body go with the scenarios that send the run's requests (not with
 * those that send their own: protocol/scenarios.ts).
 */
export function toBenchOptions(
  o: PanelRunOptions,
  configPath: string,
  kind: ProxyKind,
  binary: string | undefined,
  listenerLine?: number,
): BenchOptions {
  const own = sendsOwnRequests(o.scenario);
  const body = !own && o.body ? o.body : undefined;
  return {
    configPath,
    kind,
    binary: binary || undefined,
    scenario: o.scenario,
    connections: o.connections,
    rate: o.model === 'open' ? o.rate : 0,
    durationMs: o.durationS * 1000,
    warmupMs: o.warmupS * 1000,
    path: o.path,
    host: o.host || undefined,
    method: own || o.method === 'GET' ? undefined : o.method,
    body,
    contentType: body === undefined ? undefined : bodyContentType(body),
    listener: listenerLine !== undefined ? { line: listenerLine } : undefined,
    direct: o.direct,
  };
}

/** JSON when the body parses as JSON, plain text otherwise. */
export function bodyContentType(body: string): string {
  const t = body.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      JSON.parse(body);
      return 'application/json';
    } catch {
      // not JSON after all
    }
  }
  return 'text/plain; charset=utf-8';
}
