// Failover: one server of an upstream/backend fails mid-run (the built-in backend's second
// address, see sandbox/common.ts FAILOVER_HOST). What the clients saw comes from the per-second
// samples; the finding names the setting that would have retried the failed requests elsewhere.
import type { SecondSample } from '../../protocol/bench';
import type { FailMode, FailoverResult, Finding } from '../../protocol/diagnosis';
import type { ConfigFacts } from './diagnosis/config';

/** Errors, P99 before/during/after and the time to recovery, from the measured seconds. */
export function failoverSummary(mode: FailMode, perSecond: readonly SecondSample[], failedAtS: number): FailoverResult {
  const measured = perSecond.filter((s) => s.phase === 'measure');
  // sample t covers (t-1, t]: the failure falls in the sample whose end is past it
  const before = measured.filter((s) => s.t <= failedAtS);
  const after = measured.filter((s) => s.t > failedAtS);
  // a second with errors, or with nothing completed (every request stuck), is not recovered
  const withErrors = after.filter((s) => s.errors > 0 || s.rps === 0);
  const last = withErrors.length ? withErrors[withErrors.length - 1].t : null;
  const endT = measured.length ? measured[measured.length - 1].t : 0;
  const during = last === null ? [] : after.filter((s) => s.t <= last);
  const calm = last === null ? after : after.filter((s) => s.t > last);
  const maxP99 = (xs: SecondSample[]) => xs.reduce((m, s) => Math.max(m, s.p99), 0);
  return {
    mode,
    failedAtS,
    errorsBefore: before.reduce((a, s) => a + s.errors, 0),
    errorsAfter: after.reduce((a, s) => a + s.errors, 0),
    p99BeforeMs: maxP99(before),
    p99DuringMs: maxP99(during.length ? during : after),
    p99AfterMs: calm.length ? maxP99(calm) : null,
    recoveredAfterS: last === null ? 0 : last >= endT ? null : Math.round((last - failedAtS) * 10) / 10,
  };
}

const inner = (indent: string) => indent + '    ';

/** The finding for failures that reached the clients although a setting would have retried them. */
export function failoverFinding(r: FailoverResult, config: ConfigFacts | null): Finding | null {
  // clients saw errors, or the run never recovered (requests stuck behind the failed server)
  if ((r.errorsAfter === 0 && r.recoveredAfterS !== null) || !config) return null;
  const numbers = {
    errors: r.errorsAfter,
    p99BeforeMs: r.p99BeforeMs,
    p99DuringMs: r.p99DuringMs,
    recoveredAfterS: r.recoveredAfterS ?? -1,
  };
  const measured = `one server failed (${r.mode}) ${r.failedAtS}s into the run: the clients got ${r.errorsAfter} errors, P99 ${r.p99BeforeMs} → ${r.p99DuringMs} ms, ${
    r.recoveredAfterS === null ? 'still failing at the end of the run' : `no more errors ${r.recoveredAfterS}s after the failure`
  }`;
  if (config.kind === 'nginx') {
    const pp = config.proxyPasses[0];
    if (!pp) return null;
    const nu = pp.nextUpstream?.value ?? ['error', 'timeout'];
    const want = r.mode === '502' ? 'http_502' : r.mode === 'hang' ? 'timeout' : 'error';
    if (nu.includes('off') || !nu.includes(want) || r.mode === 'hang') {
      const list = [
        ...new Set([
          ...nu.filter((v) => v !== 'off'),
          'error',
          'timeout',
          ...(r.mode === '502' ? ['http_502', 'http_503', 'http_504'] : []),
        ]),
      ];
      const line = `proxy_next_upstream ${list.join(' ')};`;
      const hang = r.mode === 'hang';
      return {
        kind: 'failover',
        severity: 'warning',
        measured,
        advice: hang
          ? 'a server that hangs is retried only after `proxy_read_timeout` (60 s by default), longer than clients wait: lower it for this location (and cap retries with `proxy_next_upstream_tries`)'
          : `\`proxy_next_upstream\` ${pp.nextUpstream ? `is \`${nu.join(' ')}\`` : 'defaults to `error timeout`'}: a ${r.mode === '502' ? '502 answer' : 'failed connection'} is not retried on the next server`,
        numbers,
        at: {
          file: (pp.nextUpstream ?? pp).at.file,
          line: (pp.nextUpstream ?? pp).at.line,
          setting: pp.nextUpstream ? 'proxy_next_upstream' : 'proxy_pass',
        },
        fix: hang
          ? {
              title: 'Give up on a silent server after 5 s',
              edits: [{ file: pp.at.file, line: pp.at.line, insertAfter: [`${pp.at.indent}proxy_read_timeout 5s;`] }],
            }
          : pp.nextUpstream
            ? {
                title: 'Retry on the next server',
                edits: [
                  { file: pp.nextUpstream.at.file, line: pp.nextUpstream.at.line, replaceLine: `${pp.nextUpstream.at.indent}${line}` },
                ],
              }
            : {
                title: 'Retry on the next server',
                edits: [{ file: pp.at.file, line: pp.at.line, insertAfter: [`${pp.at.indent}${line}`] }],
              },
      };
    }
    return null;
  }
  const be = config.backends.find((b) => b.servers.length >= 2);
  if (!be) return null;
  const defaults = config.defaults[config.defaults.length - 1]?.settings;
  const has = (k: string) => be.settings.has(k) || !!defaults?.has(k);
  const redispatch = has('option redispatch') && !be.settings.has('no option redispatch');
  const retryOn = be.settings.get('retry-on') ?? defaults?.get('retry-on');
  const checked = be.servers.every((s) => s.words.includes('check'));
  const need = r.mode === '502' ? '502' : r.mode === 'reset' ? 'empty-response' : r.mode === 'hang' ? 'response-timeout' : 'conn-failure';
  const retried = (retryOn?.value ?? ['conn-failure']).includes(need) || (retryOn?.value ?? []).includes('all-retryable-errors');
  const lines: string[] = [];
  if (!redispatch) lines.push(`${inner(be.at.indent)}option redispatch`);
  if (!retried) lines.push(`${inner(be.at.indent)}retry-on conn-failure empty-response response-timeout 502 503 504`);
  if (lines.length === 0 && checked) return null;
  return {
    kind: 'failover',
    severity: 'warning',
    measured,
    advice: [
      !redispatch ? 'without `option redispatch` the retries (`retries`, 3 by default) go to the same failed server' : '',
      !retried ? `\`retry-on\` does not cover ${need} (its default is conn-failure)` : '',
      !checked ? 'servers without `check` are never marked down, so every request still tries the failed one first' : '',
    ]
      .filter(Boolean)
      .join('; '),
    numbers,
    at: { file: be.at.file, line: be.at.line, setting: be.at.text.trim().split(/\s+/)[0] },
    fix: lines.length
      ? { title: 'Retry failed requests on another server', edits: [{ file: be.at.file, line: be.at.line, insertAfter: lines }] }
      : undefined,
  };
}
