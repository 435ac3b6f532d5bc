// From what a run measured to the config line that causes it: each finding names the measured
// fact with its numbers, the line responsible (when the config has one), the linter rule that reads
// the same cause from the config alone, and a fix. Pure: the readings and the config facts come in.
import type { BenchResult } from '../../../protocol/bench';
import type { DiagnosisReadings, Finding, FixEdit } from '../../../protocol/diagnosis';
import { scenarioFacts } from '../../../protocol/scenarios';
import type { ConfigFacts, HaproxyFacts, Loc, NginxFacts } from './config';

/** The run as the findings see it (a BenchResult before its diagnosis is attached). */
export type RunFacts = Pick<
  BenchResult,
  'scenario' | 'connections' | 'requests' | 'durationS' | 'errors' | 'backend' | 'tls' | 'proxy' | 'model' | 'rate' | 'failover'
>;

export interface DiagnoseInput {
  run: RunFacts;
  readings: DiagnosisReadings;
  config: ConfigFacts | null;
  /** The status the backend answers with (200 unless the run set one). */
  backendStatus: number;
}

const where = (at: Loc, setting: string) => ({ file: at.file, line: at.line, setting });
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const inner = (at: Loc) => at.indent + '    ';

/** nginx 1.29.7 made upstream keep-alive (and HTTP/1.1 to the upstream) the default. */
export function nginxKeepsAliveByDefault(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return a > 1 || (a === 1 && (b > 29 || (b === 29 && c >= 7)));
}

export function totalErrors(e: BenchResult['errors']): number {
  return e.connect + e.timeout + e.reset + e.non2xx + e.tls + e.protocol;
}

export function diagnose(input: DiagnoseInput): Finding[] {
  const out: Finding[] = [];
  const { run, readings, config } = input;
  const facts = scenarioFacts(run.scenario);
  if (config?.kind === 'nginx') nginxFindings(input, config, out);
  if (config?.kind === 'haproxy') haproxyFindings(input, config, out);
  workersFinding(input, out);
  const s = readings.sockets;
  if (s) {
    const size = s.portRange[1] - s.portRange[0] + 1;
    if (size > 0 && s.ephemeralInUsePeak > size / 2)
      out.push({
        kind: 'ephemeral-ports',
        severity: 'warning',
        measured: `${s.ephemeralInUsePeak} ephemeral ports in use (${s.timeWaitPeak} sockets in TIME_WAIT) of the ${size} in ${s.portRange[0]}-${s.portRange[1]}`,
        advice:
          'new connections will fail with EADDRNOTAVAIL once the range is used up: keep upstream connections alive instead of widening the range',
        numbers: { ephemeralInUse: s.ephemeralInUsePeak, timeWait: s.timeWaitPeak, rangeSize: size },
        rule: config?.kind === 'haproxy' ? 'haproxy/http-reuse' : 'nginx/upstream-keepalive',
      });
  }
  const fl = readings.files;
  if (fl && fl.limit && fl.peak > fl.limit * 0.8)
    out.push({
      kind: 'file-limit',
      severity: 'warning',
      measured: `the busiest proxy process had ${fl.peak} files open of its limit of ${fl.limit}`,
      advice: 'at the limit, accept() and connect() fail with EMFILE: raise the limit the workers get',
      numbers: { peak: fl.peak, limit: fl.limit },
      rule: config?.kind === 'nginx' ? 'nginx/worker-rlimit-nofile' : undefined,
    });
  errorsFinding(input, facts.transport === 'tcp', out);
  return out;
}

function nginxFindings(input: DiagnoseInput, c: NginxFacts, out: Finding[]): void {
  const { run, readings } = input;
  const facts = scenarioFacts(run.scenario);
  const log = readings.errorLog ?? {};
  // upstream keep-alive
  const cpr = run.backend.connectionsPerRequest;
  const pp = c.proxyPasses[0];
  if (facts.transport !== 'tcp' && pp && run.backend.requests > 0) {
    const upstream = c.upstreams.find((u) => pp.target.replace(/^https?:\/\//, '').replace(/\/.*$/, '') === u.name);
    const numbers = { connectionsPerRequest: cpr, backendConnections: run.backend.connections, backendRequests: run.backend.requests };
    const measured = `${run.backend.connections} backend connections for ${run.backend.requests} requests (${cpr} per request)`;
    const headersOk =
      nginxKeepsAliveByDefault(run.proxy.version) ||
      (pp.httpVersion?.value[0] === '1.1' && pp.connectionHeader !== undefined && (pp.connectionHeader.value[1] ?? '') === '');
    const headerEdits = (): FixEdit[] => {
      const lines: string[] = [];
      if (pp.httpVersion?.value[0] !== '1.1') lines.push(`${pp.at.indent}proxy_http_version 1.1;`);
      if (!pp.connectionHeader) lines.push(`${pp.at.indent}proxy_set_header Connection "";`);
      return lines.length ? [{ file: pp.at.file, line: pp.at.line, insertAfter: lines }] : [];
    };
    if (cpr > 0.5 && !upstream) {
      out.push({
        kind: 'upstream-keepalive',
        severity: 'warning',
        measured,
        advice:
          '`proxy_pass` to an address with no `upstream` block cannot keep backend connections alive: each request pays a TCP handshake and leaves a socket in TIME_WAIT; define an `upstream` with `keepalive`',
        numbers,
        at: where(pp.at, 'proxy_pass'),
        rule: 'nginx/proxy-pass-no-upstream',
      });
    } else if (cpr > 0.5 && upstream && !upstream.keepalive) {
      const pool = Math.max(32, Math.min(1024, run.connections * 2));
      out.push({
        kind: 'upstream-keepalive',
        severity: 'warning',
        measured,
        advice: `upstream \`${upstream.name}\` keeps no idle connections: add \`keepalive ${pool}\`${headersOk ? '' : ' and talk HTTP/1.1 to it (`proxy_http_version 1.1`, `proxy_set_header Connection ""`)'}`,
        numbers,
        at: where(upstream.at, 'upstream'),
        rule: 'nginx/upstream-keepalive',
        fix: {
          title: `Keep up to ${pool} idle connections to upstream ${upstream.name}`,
          edits: [
            { file: upstream.at.file, line: upstream.at.line, insertAfter: [`${inner(upstream.at)}keepalive ${pool};`] },
            ...(headersOk ? [] : headerEdits()),
          ],
        },
      });
    } else if (cpr > 0.5 && upstream?.keepalive && !headersOk) {
      out.push({
        kind: 'upstream-keepalive',
        severity: 'warning',
        measured,
        advice: `upstream \`${upstream.name}\` has \`keepalive\` but nginx ${run.proxy.version} talks HTTP/1.0 with \`Connection: close\` to it unless told otherwise`,
        numbers,
        at: where(pp.at, 'proxy_pass'),
        rule: 'nginx/upstream-keepalive-headers',
        fix: { title: 'Talk HTTP/1.1 to the upstream and clear the Connection header', edits: headerEdits() },
      });
    } else if (cpr > 0.1 && upstream?.keepalive) {
      const now = Number(upstream.keepalive.value[0]) || 0;
      const pool = Math.max(now * 2, run.connections * 2);
      out.push({
        kind: 'upstream-keepalive',
        severity: 'warning',
        measured: `${measured}: the pool of ${now} idle connections per worker is smaller than the ${run.connections} concurrent requests`,
        advice: 'connections beyond the pool are closed after each request; make the pool cover the concurrency per worker',
        numbers: { ...numbers, keepalive: now },
        at: where(upstream.keepalive.at, 'keepalive'),
        rule: 'nginx/upstream-keepalive-small',
        fix: {
          title: `Raise keepalive to ${pool}`,
          edits: [
            {
              file: upstream.keepalive.at.file,
              line: upstream.keepalive.at.line,
              replaceLine: `${upstream.keepalive.at.indent}keepalive ${pool};`,
            },
          ],
        },
      });
    }
  }
  // worker_connections: nginx logs the alert only when no idle keep-alive connection can be
  // closed instead (that reuse is a warning, below the default log level, and the client sees a
  // reset): failed connections with more clients than the workers' connections tell it too
  const wcLines = log.worker_connections ?? 0;
  const wcValue = c.workerConnections ? Number(c.workerConnections.value[0]) || 512 : 512;
  const workers = readings.cpu?.perWorker.length || 1;
  const needed = run.connections * (c.proxyPasses.length ? 2 : 1);
  const dropped = run.errors.reset + run.errors.connect;
  if (wcLines > 0 || (dropped > 0 && needed > wcValue * workers)) {
    const wc = c.workerConnections;
    const want = Math.max(1024, run.connections * 4);
    const errs = totalErrors(run.errors);
    out.push({
      kind: 'worker-connections',
      severity: 'warning',
      measured: `${errs} requests failed (${run.errors.reset} reset, ${run.errors.connect} refused) with ${run.connections} clients needing about ${needed} connections of ${workers} × ${wcValue}${wcLines ? `; nginx logged "worker_connections are not enough" ${wcLines} times` : ''}`,
      advice: `each worker handles at most ${wc ? wc.value[0] : 'the default 512'} connections, clients and upstream together: raise \`worker_connections\``,
      numbers: { logLines: wcLines, errors: errs, clients: run.connections, workerConnections: wc ? Number(wc.value[0]) : 512 },
      at: wc ? where(wc.at, 'worker_connections') : c.events ? where(c.events, 'events') : undefined,
      rule: 'nginx/worker-connections-low',
      fix: wc
        ? {
            title: `Raise worker_connections to ${want}`,
            edits: [{ file: wc.at.file, line: wc.at.line, replaceLine: `${wc.at.indent}worker_connections ${want};` }],
          }
        : c.events
          ? {
              title: `Set worker_connections ${want}`,
              edits: [{ file: c.events.file, line: c.events.line, insertAfter: [`${inner(c.events)}worker_connections ${want};`] }],
            }
          : undefined,
    });
  }
  // TLS session resumption
  const tls = run.tls;
  if (tls && tls.handshakes > 0 && facts.tls === 'resume' && tls.resumed / tls.handshakes < 0.5) {
    const cache = c.sslSessionCache.find((s) => s.value[0] !== 'off' && s.value[0] !== 'none');
    const sslListen = c.listens.find((l) => l.ssl);
    const full = tls.handshakes - tls.resumed;
    const measured = `${full} of ${tls.handshakes} TLS handshakes were full (${tls.resumed} resumed)${c.sslSessionTicketsOff ? ', session tickets are off' : ''}`;
    if (!cache && sslListen?.server) {
      const srv = sslListen.server;
      out.push({
        kind: 'tls-session-cache',
        severity: 'warning',
        measured,
        advice:
          'without `ssl_session_cache` (and with tickets off) every returning client pays a full handshake, several times the CPU of a resumption',
        numbers: { handshakes: tls.handshakes, resumed: tls.resumed, full },
        at: where(srv, 'server'),
        rule: 'nginx/ssl-session-cache',
        fix: {
          title: 'Add a shared TLS session cache',
          edits: [
            {
              file: srv.file,
              line: srv.line,
              insertAfter: [`${inner(srv)}ssl_session_cache shared:SSL:10m;`, `${inner(srv)}ssl_session_timeout 1h;`],
            },
          ],
        },
      });
    } else if (cache) {
      out.push({
        kind: 'tls-session-cache',
        severity: 'info',
        measured,
        advice: 'the session cache is set but sessions were not resumed: check its size and `ssl_session_timeout`',
        numbers: { handshakes: tls.handshakes, resumed: tls.resumed, full },
        at: where(cache.at, 'ssl_session_cache'),
      });
    }
  }
  // listen backlog
  const lq = readings.listen;
  if (lq && lq.overflows + lq.drops > 0) {
    const l = c.listens.find((x) => x.backlog !== undefined) ?? c.listens[0];
    const somax = lq.somaxconn ?? 4096;
    const backlog = Math.min(l?.backlog ?? 511, somax);
    if (l && backlog < run.connections) {
      const want = Math.min(somax, Math.max(511, run.connections * 2));
      const line =
        l.backlog !== undefined
          ? l.at.text.replace(/backlog=\d+/, `backlog=${want}`)
          : l.at.text.replace(/;(\s*(#.*)?)$/, ` backlog=${want};$1`);
      out.push({
        kind: 'listen-backlog',
        severity: 'warning',
        measured: `${lq.overflows} listen-queue overflows and ${lq.drops} dropped SYNs (host-wide counters) with a backlog of ${backlog} for ${run.connections} clients`,
        advice:
          'a dropped SYN is retried by the client after a second: a burst of new connections larger than the backlog turns into 1 s latencies; raise `backlog=` (it is capped by net.core.somaxconn)',
        numbers: { overflows: lq.overflows, drops: lq.drops, backlog, somaxconn: somax, clients: run.connections },
        at: where(l.at, 'listen'),
        rule: 'nginx/listen-backlog-somaxconn',
        fix: { title: `Raise the listen backlog to ${want}`, edits: [{ file: l.at.file, line: l.at.line, replaceLine: line }] },
      });
    }
  }
  // access log
  const bytes = readings.accessLogBytes ?? 0;
  const on = c.accessLogs.filter((a) => a.value[0] !== 'off');
  if (bytes > 0 && run.requests > 0 && !on.some((a) => a.value.some((v) => v.startsWith('buffer=')))) {
    const a = on[0];
    const cpu = readings.cpu;
    const sys = cpu && cpu.userSeconds + cpu.systemSeconds > 0 ? cpu.systemSeconds / (cpu.userSeconds + cpu.systemSeconds) : 0;
    const perReq = Math.round(bytes / run.requests);
    const at = a?.at ?? c.http;
    out.push({
      kind: 'access-log',
      severity: 'info',
      measured: `the access log got ${bytes} bytes (${perReq} per request) in one unbuffered write per request; the proxy spent ${pct(sys)} of its CPU in the kernel`,
      advice: 'under load, log with `buffer=64k flush=1s` (one write per 64 KiB) or turn the access log off for hot paths',
      numbers: { bytes, bytesPerRequest: perReq, systemShare: Math.round(sys * 1000) / 1000 },
      at: at ? where(at, a ? 'access_log' : 'http') : undefined,
      rule: 'nginx/access-log-unbuffered',
      fix: a
        ? {
            title: 'Buffer the access log',
            edits: [{ file: a.at.file, line: a.at.line, replaceLine: a.at.text.replace(/;(\s*(#.*)?)$/, ' buffer=64k flush=1s;$1') }],
          }
        : c.http
          ? {
              title: 'Turn the default access log off',
              edits: [{ file: c.http.file, line: c.http.line, insertAfter: [`${inner(c.http)}access_log off;`] }],
            }
          : undefined,
    });
  }
  // limit_req / limit_conn
  for (const [cause, list, name] of [
    ['limit_req', c.limitReqs, 'limit_req'],
    ['limit_conn', c.limitConns, 'limit_conn'],
  ] as const) {
    const n = log[cause] ?? 0;
    const rejected = Object.entries(readings.statuses ?? {})
      .filter(([k]) => k === '503' || k === '429')
      .reduce((x, [, v]) => x + v, 0);
    if (n === 0 || rejected === 0 || list.length === 0) continue;
    const lr = list[0];
    const zoneName = (lr.value.find((v) => v.startsWith('zone=')) ?? '').slice(5);
    const zone = c.limitReqZones.find((z) => z.value.some((v) => v === `zone=${zoneName}` || v.startsWith(`zone=${zoneName}:`)));
    const rate = zone?.value.find((v) => v.startsWith('rate='))?.slice(5);
    const share = run.requests > 0 ? rejected / run.requests : 0;
    const hasBurst = lr.value.some((v) => v.startsWith('burst='));
    // the benchmark's clients share one address (one key): a burst covering them all, and more
    const burst = Math.max(20, run.connections * 10);
    out.push({
      kind: 'rate-limit',
      severity: 'warning',
      measured: `${rejected} of ${run.requests} requests (${pct(share)}) were rejected with ${Object.keys(readings.statuses ?? {})
        .filter((k) => k === '503' || k === '429')
        .join('/')} by \`${name}\`${rate ? ` (rate=${rate})` : ''}; nginx logged ${n} "limiting" lines`,
      advice:
        name === 'limit_req' && !hasBurst
          ? 'without `burst=`, a second request of the same key within one interval of the rate is rejected however high the rate: add `burst=` (with `nodelay` to serve it at once), or benchmark below the limit'
          : 'the run measures the limiter, not the proxy: raise the limit if this load is legitimate, or benchmark below it',
      numbers: { rejected, requests: run.requests, logLines: n },
      at: where(lr.at, name),
      fix:
        name === 'limit_req' && !hasBurst
          ? {
              title: `Let bursts of ${burst} through at once (burst=${burst} nodelay)`,
              edits: [
                { file: lr.at.file, line: lr.at.line, replaceLine: lr.at.text.replace(/;(\s*(#.*)?)$/, ` burst=${burst} nodelay;$1`) },
              ],
            }
          : undefined,
    });
  }
}

function haproxyFindings(input: DiagnoseInput, c: HaproxyFacts, out: Finding[]): void {
  const { run, readings } = input;
  const facts = scenarioFacts(run.scenario);
  const cpr = run.backend.connectionsPerRequest;
  const be = c.backends[0];
  const defaults = c.defaults[c.defaults.length - 1]?.settings;
  const setting = (k: string) => be?.settings.get(k) ?? defaults?.get(k);
  if (facts.transport !== 'tcp' && be && cpr > 0.5 && run.backend.requests > 0) {
    const close = setting('option httpclose') ?? setting('option http-server-close');
    const reuse = setting('http-reuse');
    const numbers = { connectionsPerRequest: cpr, backendConnections: run.backend.connections, backendRequests: run.backend.requests };
    const measured = `${run.backend.connections} backend connections for ${run.backend.requests} requests (${cpr} per request)`;
    if (close) {
      out.push({
        kind: 'upstream-keepalive',
        severity: 'warning',
        measured,
        advice: `\`${close.at.text.trim()}\` closes the server connection after each request`,
        numbers,
        at: where(close.at, close.at.text.trim().split(/\s+/).slice(0, 2).join(' ')),
        rule: 'haproxy/option-httpclose',
        fix: {
          title: 'Keep server connections open',
          edits: [{ file: close.at.file, line: close.at.line, replaceLine: `${close.at.indent}option http-keep-alive` }],
        },
      });
    } else {
      out.push({
        kind: 'upstream-keepalive',
        severity: 'warning',
        measured,
        advice:
          'HAProxy reuses an idle server connection for another client only with `http-reuse always` (or `aggressive`); with clients that close, each request opens a server connection',
        numbers,
        at: where(reuse?.at ?? be.at, reuse ? 'http-reuse' : be.at.text.trim().split(/\s+/)[0]),
        rule: 'haproxy/http-reuse',
        fix: reuse
          ? {
              title: 'http-reuse always',
              edits: [{ file: reuse.at.file, line: reuse.at.line, replaceLine: `${reuse.at.indent}http-reuse always` }],
            }
          : {
              title: 'http-reuse always',
              edits: [{ file: be.at.file, line: be.at.line, insertAfter: [`${inner(be.at)}http-reuse always`] }],
            },
      });
    }
  }
  // one finding per backend: its servers' queues, else the backend's own (requests not yet given
  // a server wait there when every server is at its maxconn)
  const queues = readings.queues ?? [];
  const shown = queues.filter(
    (q) =>
      q.server !== 'FRONTEND' &&
      (q.server !== 'BACKEND' || !queues.some((o) => o.proxy === q.proxy && o.server !== 'BACKEND' && o.server !== 'FRONTEND')),
  );
  for (const q of shown) {
    const b = c.backends.find((x) => x.name === q.proxy);
    const srv = q.server === 'BACKEND' ? b?.servers.find((s) => s.words.includes('maxconn')) : b?.servers.find((s) => s.name === q.server);
    const mc = srv?.words.indexOf('maxconn') ?? -1;
    const limit = srv && mc >= 0 ? Number(srv.words[mc + 1]) : undefined;
    const at = srv?.at ?? b?.at;
    const want = limit ? Math.max(limit * 4, run.connections) : undefined;
    out.push({
      kind: 'server-queue',
      severity: 'warning',
      measured: `requests queued in ${q.proxy}/${q.server}: up to ${q.qmax} waiting at once (mean queue time ${q.qtime} ms over the last requests)${limit ? `, its maxconn is ${limit} for ${run.connections} clients` : ''}`,
      advice:
        "a request over `maxconn` waits in HAProxy's queue: the latency measured is the queue; raise `maxconn` if the server can take more, or keep it as deliberate protection",
      numbers: { qmax: q.qmax, qtime: q.qtime, ...(limit ? { maxconn: limit } : {}), clients: run.connections },
      at: at ? where(at, limit ? 'maxconn' : 'backend') : undefined,
      fix:
        srv && limit && want
          ? {
              title: `Raise the server's maxconn to ${want}`,
              edits: [{ file: srv.at.file, line: srv.at.line, replaceLine: srv.at.text.replace(/\bmaxconn\s+\d+/, `maxconn ${want}`) }],
            }
          : undefined,
    });
  }
}

/** A worker running or waiting for a CPU this share of the time counts as saturated. */
export const WORKER_BUSY = 0.6;

function workersFinding(input: DiagnoseInput, out: Finding[]): void {
  const { run, readings, config } = input;
  const cpu = readings.cpu;
  if (!cpu || cpu.perWorker.length === 0 || run.durationS <= 0) return;
  const workers = cpu.perWorker.length;
  const busiest = cpu.perWorker[0] / run.durationS;
  // busy: running or waiting for a CPU most of the time (on a shared machine a saturated worker
  // waits rather than runs); the CPU share alone where the kernel keeps no schedstat
  const demand = cpu.demand?.[0] ?? busiest;
  if (workers >= cpu.cpusGiven || demand < WORKER_BUSY) return;
  const measured = `${workers} worker${workers > 1 ? 's' : ''} for ${cpu.cpusGiven} CPUs; the busiest had work ${pct(demand)} of the time and used ${pct(busiest)} of a core`;
  const numbers = { workers, cpus: cpu.cpusGiven, busiestDemand: demand, busiestCoreShare: Math.round(busiest * 100) / 100 };
  if (config?.kind === 'nginx') {
    const wp = config.workerProcesses;
    if (wp && wp.value[0] === 'auto') return;
    out.push({
      kind: 'workers-below-cpus',
      severity: 'warning',
      measured,
      advice: 'nginx uses one CPU per worker: with fewer workers than CPUs the others stay idle while a worker is saturated',
      numbers,
      at: wp ? where(wp.at, 'worker_processes') : undefined,
      rule: 'nginx/worker-processes-not-auto',
      fix: wp
        ? {
            title: 'worker_processes auto',
            edits: [{ file: wp.at.file, line: wp.at.line, replaceLine: `${wp.at.indent}worker_processes auto;` }],
          }
        : undefined,
    });
  } else if (config?.kind === 'haproxy' && config.nbthread) {
    const nt = config.nbthread;
    out.push({
      kind: 'workers-below-cpus',
      severity: 'warning',
      measured,
      advice: '`nbthread` caps HAProxy below the CPUs it was given; without it HAProxy starts one thread per CPU',
      numbers,
      at: where(nt.at, 'nbthread'),
      fix: {
        title: `nbthread ${cpu.cpusGiven}`,
        edits: [{ file: nt.at.file, line: nt.at.line, replaceLine: `${nt.at.indent}nbthread ${cpu.cpusGiven}` }],
      },
    });
  }
}

function errorsFinding(input: DiagnoseInput, tcp: boolean, out: Finding[]): void {
  const { run, readings } = input;
  const e = run.errors;
  const total = totalErrors(e);
  if (total === 0) return;
  const parts: string[] = [];
  if (e.connect) parts.push(`${e.connect} refused`);
  if (e.reset) parts.push(`${e.reset} reset`);
  if (e.timeout) parts.push(`${e.timeout} timed out`);
  if (e.tls) parts.push(`${e.tls} TLS failures`);
  if (e.protocol) parts.push(`${e.protocol} protocol errors`);
  const statuses = readings.statuses ?? {};
  // a failover run's failing server answers errors itself: no telling whose a 502 is
  const backendOk = input.backendStatus >= 200 && input.backendStatus < 300 && !run.failover;
  for (const [k, v] of Object.entries(statuses).sort()) parts.push(`${v} × ${k}${backendOk ? ' (from the proxy)' : ''}`);
  if (!tcp && e.non2xx && Object.keys(statuses).length === 0) parts.push(`${e.non2xx} non-2xx`);
  const log = Object.entries(readings.errorLog ?? {}).map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`);
  const numbers: Record<string, number> = { total, ...e };
  for (const [k, v] of Object.entries(statuses)) numbers[`status${k}`] = v;
  out.push({
    kind: 'errors',
    severity: 'info',
    measured: `${total} of ${run.requests + e.connect + e.reset + e.timeout + e.tls + e.protocol} requests failed: ${parts.join(', ')}${log.length ? `; the error log: ${log.join(', ')}` : ''}`,
    advice: run.failover
      ? `a backend server was made to fail (${run.failover.mode}) during the run`
      : backendOk
        ? 'the backend answered every request it got with a success: the failures come from the proxy or the connections to it'
        : `the backend was set to answer ${input.backendStatus}`,
    numbers,
  });
}
