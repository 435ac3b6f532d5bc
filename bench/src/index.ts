// The benchmark engine's public API (plain Node, no `vscode`): used by the `bench` command line
// and by the editor panel. runBenchmark sandboxes the user's config, starts the real binary and
// the built-in backend on loopback, drives load, and always cleans up (end, error, cancel).
import * as os from 'node:os';
import type { BenchOptions, BenchResult, DirectResult, ScenarioName, SecondSample } from '../../protocol/bench';
import * as path from 'node:path';
import { BODYLESS_METHODS, HTTP_METHODS, MAX_REQUEST_BODY_BYTES, RUN_LIMITS, SCENARIOS } from '../../protocol/bench';
import { GET_POST_MIX, needsTls, scenarioFacts, sendsOwnRequests } from '../../protocol/scenarios';
import { Backend, MAX_RESPONSE_BYTES } from './backend';
import type { ExportRequest, ExportScenario } from './export';
import { chooseNativeBinary, NativeBackend, NativeBackendUnsupported, checkNativeOptions } from './nativeBackend';
import type { LoadTarget } from './generator';
import { distribution, summarize } from './histogram';
import { abortError, MAX_DURATION_MS, runLoad, type LoadOptions } from './load';
import { loadavg } from '../../server/src/runner/proc';
import { pinGroup, planPlacement } from './placement';
import { FAILOVER_HOST, isLoopbackAddress, type SandboxListener } from '../../server/src/runner/sandbox/common';
import { ProxySandbox } from '../../server/src/runner/sandbox/index';
import { configFacts, cpusAvailable, makeDiagnosis, Probe } from './diagnosis/index';
import { FAIL_MODES, type DiagnosisReadings } from '../../protocol/diagnosis';
import { failoverFinding, failoverSummary } from './failover';

export { Backend } from './backend';
export { NativeBackend, chooseNativeBinary } from './nativeBackend';
export { k6Script, locustfile, readScenarioLine, EXPORT_ENGINES, type ExportEngine, type ExportScenario } from './export';
export { runLoad } from './load';
export { planPlacement, pinGroup, pinProcess, cpuList, AUTO_PIN_MIN_CPUS, type Placement } from './placement';
export { ProxySandbox, detectKind, SandboxRefusal, ConfigCheckError } from '../../server/src/runner/sandbox/index';
export { SupervisedProcess, findBinary, binaryVersion } from '../../server/src/runner/proxy';
export type { SuperviseOptions } from '../../server/src/runner/proxy';
export { Containment, hostListeners, closeHostListeners, INHERITED_FD_BASE } from '../../server/src/runner/contain';
export type { ContainmentMode } from '../../server/src/runner/contain';
export type { LoadOptions, LoadResult } from './load';
export type { LoadTarget } from './generator';

export interface RunHooks {
  onProgress?(sample: SecondSample): void;
  signal?: AbortSignal;
  /** Called with the sandbox once the proxy accepts connections (tests, the panel's "show config"). */
  onProxyReady?(info: {
    pgid: number;
    dir: string;
    listeners: SandboxListener[];
    backend: Backend | NativeBackend;
    mode: 'namespace' | 'rewrite-only';
  }): void;
  /** Called once the proxy has stopped, before its folder is removed (tests read what it left there). */
  onProxyStopped?(info: { dir: string }): void;
}

/** Bad options: the caller's mistake (the command line exits 2 on it). */
export class BenchUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchUsageError';
  }
}

export interface ResolvedOptions {
  scenario: ScenarioName;
  connections: number;
  rate: number;
  durationMs: number;
  warmupMs: number;
  path: string;
  streams: number;
  threads: number;
  timeoutMs: number;
  method: string;
  /** The body's bytes, or null without one. */
  body: Buffer | null;
  contentType: string;
}

/** Checks and completes options; throws BenchUsageError. */
export function resolveOptions(o: BenchOptions): ResolvedOptions {
  const scenario = o.scenario ?? 'http1-keepalive';
  if (!(SCENARIOS as readonly string[]).includes(scenario))
    throw new BenchUsageError(`unknown scenario "${scenario}" (one of: ${SCENARIOS.join(', ')})`);
  const int = (v: number | undefined, def: number, min: number, max: number, what: string) => {
    const x = v ?? def;
    if (!Number.isFinite(x) || x < min || x > max) throw new BenchUsageError(`${what} must be between ${min} and ${max} (got ${v})`);
    return x;
  };
  const connections = Math.floor(int(o.connections, 10, ...RUN_LIMITS.connections, 'connections'));
  const rate = int(o.rate, 0, ...RUN_LIMITS.rate, 'rate');
  const durationMs = int(o.durationMs, 10_000, ...RUN_LIMITS.durationMs, 'duration (ms)');
  const warmupMs = int(o.warmupMs, 2000, ...RUN_LIMITS.warmupMs, 'warm-up (ms)');
  const streams = Math.floor(int(o.streams, 10, ...RUN_LIMITS.streams, 'streams'));
  const threads = Math.floor(int(o.threads, 1, ...RUN_LIMITS.threads, 'threads'));
  const timeoutMs = int(o.timeoutMs, 5000, ...RUN_LIMITS.timeoutMs, 'timeout (ms)');
  const path = o.path ?? '/';
  if (!path.startsWith('/') || /[\s\r\n]/.test(path))
    throw new BenchUsageError(`path must start with "/" and contain no spaces (got "${path}")`);
  if (o.backend?.responseBytes !== undefined && (o.backend.responseBytes < 0 || o.backend.responseBytes > MAX_RESPONSE_BYTES))
    throw new BenchUsageError(`response size must be at most ${MAX_RESPONSE_BYTES} bytes`);
  if (o.step && (!(o.step.percent > 0) || !(o.step.intervalMs >= 100)))
    throw new BenchUsageError('step load needs a percent > 0 and an interval >= 100 ms');
  const method = o.method ?? 'GET';
  if (!(HTTP_METHODS as readonly string[]).includes(method))
    throw new BenchUsageError(`method must be one of ${HTTP_METHODS.join(', ')} (got "${method}")`);
  const own = sendsOwnRequests(scenario);
  if (o.method !== undefined && own)
    throw new BenchUsageError(`scenario "${scenario}" sets its own requests: a method cannot be given with it`);
  let body: Buffer | null = null;
  if (o.body !== undefined) {
    if (typeof o.body !== 'string') throw new BenchUsageError('body must be a string');
    if (own) throw new BenchUsageError(`scenario "${scenario}" sets its own requests: a body cannot be given with it`);
    if (BODYLESS_METHODS.includes(method))
      throw new BenchUsageError(`a request body needs a method that carries one (POST, PUT, PATCH, DELETE, OPTIONS), not ${method}`);
    body = Buffer.from(o.body, 'utf8');
    if (body.length > MAX_REQUEST_BODY_BYTES)
      throw new BenchUsageError(`body must be at most ${MAX_REQUEST_BODY_BYTES} bytes (got ${body.length})`);
  }
  const contentType = o.contentType ?? 'application/octet-stream';
  if (o.contentType !== undefined && body === null) throw new BenchUsageError('a content type needs a body');
  if (!/^[\x21-\x7e][\x20-\x7e]{0,254}$/.test(contentType))
    throw new BenchUsageError(`content type must be printable ASCII, at most 255 characters (got "${contentType}")`);
  if (o.listener !== undefined) {
    if (o.target) throw new BenchUsageError('a listener line picks a block of the config: not with a target');
    if (!Number.isInteger(o.listener.line) || o.listener.line < 1)
      throw new BenchUsageError(`listener line must be a positive integer (got ${o.listener.line})`);
  }
  if (!o.configPath && !o.target) throw new BenchUsageError('a config file (or a target) is required');
  if (o.failover) {
    if (!(FAIL_MODES as readonly string[]).includes(o.failover.mode))
      throw new BenchUsageError(`failover mode must be one of ${FAIL_MODES.join(', ')} (got "${o.failover.mode}")`);
    if (o.target) throw new BenchUsageError('failover makes a backend server of the config fail: not with a target');
    if (o.backend?.kind === 'native') throw new BenchUsageError('failover needs the built-in Node backend (--backend node)');
    if (scenarioFacts(scenario).transport !== 'http1')
      throw new BenchUsageError('failover runs HTTP/1.1 scenarios (its failing server speaks HTTP/1.1)');
  }
  if (o.target && !isLoopbackAddress(o.target.host))
    throw new BenchUsageError(`target ${o.target.host} is not a loopback address: load is only ever sent to this machine`);
  return { scenario, connections, rate, durationMs, warmupMs, path, streams, threads, timeoutMs, method, body, contentType };
}

/**
 * Which backend a run gets: the native one (a real server binary) for fixed responses, the Node
 * one for what only it does. Throws BenchUsageError when 'native' was asked for and cannot be had.
 */
export function pickBackend(
  r: ResolvedOptions,
  o: BenchOptions,
  proxy?: { kind: 'nginx' | 'haproxy'; binary: string },
): { kind: 'native'; choice: { kind: 'nginx' | 'haproxy'; binary: string } } | { kind: 'node'; why?: string } {
  const asked = o.backend?.kind ?? 'auto';
  if (asked === 'node') return { kind: 'node' };
  const refuse = (why: string) => {
    if (asked === 'native') throw new BenchUsageError(`the native backend cannot serve this run: ${why}`);
    return { kind: 'node' as const, why };
  };
  const nodeOnly = scenarioFacts(r.scenario).nodeBackendOnly;
  if (nodeOnly !== null) return refuse(`scenario "${r.scenario}" needs the built-in backend (${nodeOnly})`);
  if (asked === 'auto' && (r.body !== null || !BODYLESS_METHODS.includes(r.method)))
    return refuse(`${r.method} requests with bodies are checked by the built-in backend's per-method accounting`);
  try {
    checkNativeOptions(o.backend ?? {});
  } catch (e) {
    if (e instanceof NativeBackendUnsupported) return refuse(e.message);
    throw e;
  }
  const choice = chooseNativeBinary(proxy);
  if (!choice) return refuse('neither nginx nor haproxy is installed for it');
  return { kind: 'native', choice };
}

/**
 * The listener a scenario sends its load to; throws BenchUsageError when the config has none.
 * With `block` (the header line of an nginx `server` or a HAProxy `frontend`/`listen`, and its
 * file), only that block's listeners are candidates.
 */
export function pickListener(
  all: SandboxListener[],
  scenario: ScenarioName,
  block?: { line: number; file: string },
): { main: SandboxListener; tls?: SandboxListener } {
  let listeners = all;
  if (block) {
    const file = path.resolve(block.file);
    listeners = all.filter((l) => l.block && l.block.line === block.line && path.resolve(l.block.file) === file);
    const where = `${file}:${block.line}`;
    if (listeners.length === 0)
      throw new BenchUsageError(
        `${where}: no listener belongs to a block starting on this line (an nginx \`server\` or a HAProxy \`frontend\`/\`listen\` header)`,
      );
    try {
      return pickListener(listeners, scenario);
    } catch (e) {
      if (e instanceof BenchUsageError)
        throw new BenchUsageError(
          `${where}: the block's listeners (${listeners.map((l) => l.original.trim()).join('; ')}) do not suit: ${e.message}`,
        );
      throw e;
    }
  }
  const http = listeners.filter((l) => !l.stream && !l.udp);
  const plain = http.filter((l) => !l.ssl && !l.h2cOnly);
  const secure = http.filter((l) => l.ssl);
  const facts = scenarioFacts(scenario);
  let main: SandboxListener | undefined;
  switch (facts.listener) {
    case 'stream':
      main = listeners.find((l) => l.stream && !l.udp && !l.ssl);
      if (!main)
        throw new BenchUsageError(
          `scenario "${scenario}" needs a plain TCP (L4) listener: nginx \`stream { server { listen ...; } }\` or a HAProxy frontend in \`mode tcp\``,
        );
      return { main };
    case 'tls':
      main = secure[0];
      if (!main)
        throw new BenchUsageError(
          `scenario "${scenario}" needs a TLS listener (nginx \`listen ... ssl\`, HAProxy \`bind ... ssl crt ...\`)`,
        );
      return { main };
    case 'http2':
      main = http.find((l) => l.http2 && l.ssl) ?? http.find((l) => l.http2);
      if (!main)
        throw new BenchUsageError(
          `scenario "${scenario}" needs an HTTP/2 listener (nginx \`listen ... http2\`, HAProxy \`bind ... alpn h2\` or \`proto h2\`)`,
        );
      return { main };
    case 'plain-http':
      main = plain[0];
      if (!main) throw new BenchUsageError(`scenario "${scenario}" needs a plain HTTP listener`);
      // a TLS listener, if any, takes the mix's TLS share
      return { main, tls: facts.mix ? secure[0] : undefined };
    case 'http':
      main = plain[0] ?? secure[0];
      if (!main) throw new BenchUsageError(`scenario "${scenario}" needs a plain HTTP listener`);
      return { main };
  }
}

function toTarget(l: SandboxListener): LoadTarget {
  return { host: '127.0.0.1', port: l.port, tls: l.ssl };
}

function loadOptions(r: ResolvedOptions, target: LoadTarget, hostHeader: string, o: BenchOptions, tlsTarget?: LoadTarget): LoadOptions {
  return {
    scenario: r.scenario,
    target,
    tlsTarget,
    connections: r.connections,
    rate: r.rate,
    durationMs: r.durationMs,
    warmupMs: r.warmupMs,
    path: r.path,
    hostHeader,
    streams: r.streams,
    threads: r.threads,
    timeoutMs: r.timeoutMs,
    step: o.step,
    method: r.method,
    body: r.body,
    contentType: r.contentType,
  };
}

/**
 * Runs one benchmark. Rejects with BenchUsageError (bad options / no suitable listener),
 * SandboxRefusal (cannot be confined to loopback), ConfigCheckError (the binary rejected the
 * config; message mapped to the user's lines), an AbortError on cancel, or another Error.
 * Nothing is left behind in any case: proxy process group, backend child, worker threads, temp folder.
 */
export async function runBenchmark(options: BenchOptions, hooks: RunHooks = {}): Promise<BenchResult> {
  const r = resolveOptions(options);
  const signal = hooks.signal;
  if (signal?.aborted) throw abortError();
  const warnings: string[] = [];
  const pinErrors: string[] = [];
  const loadStart = loadavg();
  let sandbox: ProxySandbox | null = null;
  let backend: Backend | NativeBackend | null = null;
  let probe: Probe | null = null;
  let failTimer: NodeJS.Timeout | null = null;
  const failAtMs = options.failover ? Math.min(r.durationMs, options.failover.atMs ?? Math.round(r.durationMs / 3)) : 0;
  const backendOptions = { ...options.backend };
  delete backendOptions.kind;
  let backendInfo: Pick<BenchResult['backend'], 'kind' | 'binary' | 'version' | 'why'> = { kind: 'node' };
  const facts = scenarioFacts(r.scenario);
  if (facts.response === 'max' && backendOptions.responseBytes === undefined) backendOptions.responseBytes = MAX_RESPONSE_BYTES;
  try {
    let main: LoadTarget;
    let tlsTarget: LoadTarget | undefined;
    let hostHeader = options.host ?? 'localhost';
    let listenerInfo: BenchResult['listener'];
    let proxyInfo: BenchResult['proxy'];
    const plan = planPlacement(options.pin, r.threads);
    const placed = plan.placement;
    if (options.target) {
      main = { host: options.target.host, port: options.target.port, tls: !!options.target.tls || needsTls(r.scenario) };
      listenerInfo = {
        host: main.host,
        port: main.port,
        tls: main.tls,
        http2: facts.transport === 'http2',
        stream: facts.transport === 'tcp',
      };
      proxyInfo = { kind: 'external', binary: '', version: '' };
    } else {
      sandbox = ProxySandbox.create({
        configPath: options.configPath!,
        kind: options.kind,
        binary: options.binary,
        allowUncontainedNativeCode: options.allowUncontainedNativeCode,
      });
      if (signal?.aborted) throw abortError();
      await sandbox.contain();
      sandbox.failover = !!options.failover;
      sandbox.plan();
      if (options.failover && !sandbox.copies().some((c) => c.text.includes(`${FAILOVER_HOST}:`)))
        throw new BenchUsageError(
          'failover needs an nginx `upstream` or a HAProxy `backend` with two servers or more (HTTP): the second one is made to fail',
        );
      const block = options.listener ? { line: options.listener.line, file: options.listener.file ?? options.configPath! } : undefined;
      const picked = pickListener(sandbox.listeners, r.scenario, block);
      const jail = sandbox.containment;
      const run = jail?.contained ? { containment: jail, dir: sandbox.dir } : undefined;
      const bplan = options.failover
        ? ({ kind: 'node', why: 'failover: the built-in backend makes one server fail' } as const)
        : pickBackend(r, options, { kind: sandbox.kind, binary: sandbox.binary });
      let nb: NativeBackend | null = null;
      if (bplan.kind === 'native') {
        try {
          nb = await NativeBackend.start(backendOptions, bplan.choice, sandbox.tls, run);
        } catch (e) {
          // `auto` falls back to the Node backend (say so); an explicit `native` fails the run
          if ((options.backend?.kind ?? 'auto') !== 'auto') throw e;
          warnings.push(`${(e as Error).message}: the built-in Node backend answered instead (it costs more CPU per request)`);
        }
      }
      if (nb) {
        backend = nb;
        backendInfo = { kind: nb.kind, binary: nb.binary, version: nb.version };
      } else {
        backend = await Backend.start(backendOptions, { certFile: sandbox.tls.certFile, keyFile: sandbox.tls.keyFile }, run, {
          second: !!options.failover,
        });
        backendInfo = { kind: 'node', why: bplan.kind === 'node' ? bplan.why : 'the native backend did not start' };
      }
      sandbox.setBackend(backend.ports);
      if (facts.mix && facts.mix.tlsClose > 0 && !picked.tls)
        warnings.push(`${r.scenario}: the config has no TLS listener; the TLS share runs as plain short connections`);
      await sandbox.start(signal);
      hooks.onProxyReady?.({
        pgid: sandbox.pgid,
        dir: sandbox.dir,
        listeners: sandbox.listeners,
        backend,
        mode: sandbox.containment?.mode ?? 'rewrite-only',
      });
      warnings.push(...sandbox.warnings);
      if (placed) {
        // nginx forks its workers before it listens, so the whole group is there now
        for (const [what, pgid] of [
          [sandbox.kind, sandbox.pgid],
          ['backend', backend.pgid],
        ] as const) {
          if (pgid <= 0) continue; // the in-process Node backend: nothing to move
          const e = pinGroup(pgid, placed.system);
          if (e) pinErrors.push(`${what}: ${e}`);
        }
      }
      if (options.diagnose !== false)
        probe = new Probe({
          kind: sandbox.kind,
          pgid: sandbox.pgid,
          dir: sandbox.dir,
          mode: sandbox.containment?.mode ?? 'rewrite-only',
          cpusGiven: placed && pinErrors.length === 0 ? placed.system.length : cpusAvailable(),
        });
      main = toTarget(picked.main);
      tlsTarget = picked.tls ? toTarget(picked.tls) : undefined;
      hostHeader = options.host ?? picked.main.serverName ?? 'localhost';
      listenerInfo = { host: main.host, port: main.port, tls: main.tls, http2: picked.main.http2, stream: picked.main.stream };
      proxyInfo = { kind: sandbox.kind, binary: sandbox.binary, version: sandbox.version };
    }
    if (signal?.aborted) throw abortError();

    const sb = sandbox;
    const be = backend;
    let proxyCpu0 = 0;
    let backendCpu0 = 0;
    const cpus = placed && pinErrors.length === 0 ? placed.generator : undefined;
    const load = await runLoad(
      { ...loadOptions(r, main, hostHeader, options, tlsTarget), cpus },
      {
        onProgress: hooks.onProgress,
        signal,
        onMeasureStart: () => {
          proxyCpu0 = sb?.cpuSeconds() ?? 0;
          backendCpu0 = be?.cpuSeconds() ?? 0;
          probe?.start();
          const failing = be;
          if (options.failover && failing instanceof Backend)
            failTimer = setTimeout(() => void failing.fail(options.failover!.mode).catch(() => undefined), failAtMs);
        },
      },
    );
    if (failTimer) clearTimeout(failTimer);
    const readings: DiagnosisReadings | null = probe ? await probe.finish() : null;
    const proxyCpu = (sb?.cpuSeconds() ?? 0) - proxyCpu0;
    const backendCpu = (be?.cpuSeconds() ?? 0) - backendCpu0;
    const bstats = be
      ? await be.statsBetween(load.measuredFrom, load.measuredTo)
      : { connections: 0, requests: 0, tcpConnections: 0, tcpBytes: 0 };
    // what reached the backend through the proxy (before a direct baseline adds its own requests)
    const tcp = facts.transport === 'tcp';
    const life = be && !tcp ? await be.stats() : null;
    const received =
      life && life.methods
        ? { methods: life.methods, bodyBytesMin: life.bodyBytesMin ?? 0, bodyBytesMax: life.bodyBytesMax ?? 0 }
        : undefined;
    const receivedRequests = life ? (life.methods ? Object.values(life.methods).reduce((a, b) => a + b, 0) : life.requests) : undefined;
    const bConn = tcp ? bstats.tcpConnections : bstats.connections;
    const bReq = tcp ? load.requests : bstats.requests;

    if (load.tlsFull + load.tlsResumed > 0 && facts.tls === 'resume' && load.tlsResumed === 0)
      warnings.push(`${r.scenario}: no TLS session was resumed (the server offers neither session tickets nor a session cache)`);
    if (sb?.proxyExited)
      warnings.push(
        `${sb.kind} exited during the run (crashed or killed): the requests after that failed, so these numbers do not measure the config`,
      );
    if (be instanceof NativeBackend && be.exited)
      warnings.push(`the native ${be.kind} backend exited during the run: the requests after that failed`);
    if (load.inFlightDropped > 0) warnings.push(`${load.inFlightDropped} request(s) still in flight at the end were not counted`);

    let direct: DirectResult | undefined;
    if (options.direct && be) {
      const hp = be.hostPorts;
      const port = tcp ? hp.tcp : facts.transport === 'http2' ? hp.h2c : needsTls(r.scenario) ? hp.https : hp.http;
      if (facts.transport === 'http2' && listenerInfo.tls)
        warnings.push(`direct baseline for ${r.scenario}: HTTP/2 without TLS (h2c) straight to the backend`);
      const dl = await runLoad(
        {
          ...loadOptions(
            r,
            { host: '127.0.0.1', port, tls: needsTls(r.scenario) },
            'localhost',
            options,
            tlsTarget ? { host: '127.0.0.1', port: hp.https, tls: true } : undefined,
          ),
          cpus,
        },
        { signal },
      );
      const ds = await be.statsBetween(dl.measuredFrom, dl.measuredTo);
      direct = {
        requests: dl.requests,
        rps: Math.round(dl.requests / dl.durationS),
        latencyMs: summarize(dl.whole),
        errors: dl.errors,
        backend: { connections: tcp ? ds.tcpConnections : ds.connections, requests: tcp ? dl.requests : ds.requests },
      };
    }

    const cost = costOf(load, proxyCpu, backendCpu, r.threads);
    if (cost?.bottleneck === 'generator')
      warnings.push(
        `the load generator was the bottleneck (its busiest thread at ${Math.round(cost.generatorCoreShare * 100)}% of a core): the proxy could do more than measured; add --threads or use fewer connections`,
      );
    if (cost?.bottleneck === 'backend')
      warnings.push(
        `the ${backendInfo.kind === 'node' ? 'built-in Node' : `native ${backendInfo.kind}`} backend was the bottleneck (${Math.round(cost.backendCoreShare * 100)}% of a core): these numbers measure the backend, not the proxy`,
      );
    pinErrors.push(...load.pinErrors);
    if (placed && pinErrors.length > 0) warnings.push(`CPU placement failed, the run was not (fully) pinned: ${pinErrors.join('; ')}`);
    const placement: BenchResult['placement'] =
      placed && pinErrors.length === 0
        ? { pinned: true, generatorCpus: placed.generator, systemCpus: placed.system }
        : { pinned: false, note: placed ? 'CPU placement failed (see the warnings)' : (plan.why ?? undefined) };
    const loadEnd = loadavg();
    const ncpu = os.cpus().length;
    if (loadStart[0] > ncpu * 0.5)
      warnings.push(
        `the machine was busy before the run (load average ${loadStart[0]} on ${ncpu} CPUs): absolute numbers are noisy, compare ratios measured in one run`,
      );
    const result: BenchResult = {
      scenario: r.scenario,
      model: r.rate > 0 ? 'open' : 'closed',
      connections: r.connections,
      rate: r.rate > 0 ? r.rate : undefined,
      durationS: load.durationS,
      proxy: proxyInfo,
      listener: listenerInfo,
      requests: load.requests,
      rps: Math.round(load.requests / load.durationS),
      latencyMs: summarize(load.whole),
      distribution: distribution(load.whole),
      perSecond: load.perSecond,
      errors: load.errors,
      cpuSeconds: {
        proxy: round2(proxyCpu),
        generator: round2(load.generatorCpuSeconds),
        generatorProcess: round2(load.processCpuSeconds),
        backend: round2(backendCpu),
      },
      backend: {
        ...(be ? backendInfo : {}),
        connections: bConn,
        requests: bReq,
        connectionsPerRequest: bReq > 0 ? Math.round((bConn / bReq) * 10000) / 10000 : 0,
        received,
        receivedRequests,
      },
      direct,
      cost,
      tls: load.tlsFull + load.tlsResumed > 0 ? { handshakes: load.tlsFull + load.tlsResumed, resumed: load.tlsResumed } : undefined,
      placement,
      host: { cpus: ncpu, loadavgStart: loadStart, loadavgEnd: loadEnd },
      sandbox: sb
        ? { mode: sb.containment?.mode ?? 'rewrite-only', reason: sb.containment?.reason, adjustments: [...sb.adjustments] }
        : undefined,
      warnings,
    };
    if (options.failover) result.failover = failoverSummary(options.failover.mode, load.perSecond, failAtMs / 1000);
    if (readings && sb) {
      readings.statuses = load.statuses;
      const facts = configFacts(
        sb.kind,
        sb.copies().map((c) => c.original),
      );
      result.diagnosis = makeDiagnosis(result, readings, facts, options.backend?.status ?? 200);
      const ff = result.failover ? failoverFinding(result.failover, facts) : null;
      if (ff) result.diagnosis.findings.push(ff);
    }
    return result;
  } finally {
    probe?.dispose();
    if (failTimer) clearTimeout(failTimer);
    if (sandbox && hooks.onProxyStopped) {
      await sandbox.stop();
      try {
        hooks.onProxyStopped({ dir: sandbox.dir });
      } catch {
        // a test's hook: never stops the clean-up
      }
    }
    await Promise.all([sandbox?.dispose(), backend?.stop()]);
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** A core busier than this over the measured time counts as saturated ("at 100%"). */
export const SATURATED_CORE = 0.9;

/** The bench's own CPU per request and which part, if not the proxy, limited the run. */
export function costOf(
  load: {
    requests: number;
    durationS: number;
    generatorCpuSeconds: number;
    processCpuSeconds: number;
    busiestThreadCpuSeconds: number | null;
  },
  proxyCpu: number,
  backendCpu: number,
  threads: number,
): BenchResult['cost'] {
  if (load.requests <= 0 || load.durationS <= 0) return undefined;
  const us = (s: number) => Math.round((s / load.requests) * 1e6 * 100) / 100;
  const gen = load.processCpuSeconds || load.generatorCpuSeconds;
  const busiest = load.busiestThreadCpuSeconds ?? load.generatorCpuSeconds / Math.max(1, threads);
  const generatorCoreShare = Math.round((busiest / load.durationS) * 100) / 100;
  // the native backend runs one worker (nginx) or one thread (HAProxy), the Node backend one thread
  const backendCoreShare = Math.round((backendCpu / load.durationS) * 100) / 100;
  const bottleneck =
    generatorCoreShare >= SATURATED_CORE || backendCoreShare >= SATURATED_CORE
      ? generatorCoreShare >= backendCoreShare
        ? 'generator'
        : 'backend'
      : undefined;
  return {
    benchCpuUsPerRequest: us(gen + backendCpu),
    generatorCpuUsPerRequest: us(gen),
    backendCpuUsPerRequest: us(backendCpu),
    proxyCpuUsPerRequest: us(proxyCpu),
    generatorCoreShare,
    backendCoreShare,
    bottleneck,
  };
}

/** Where a listener line (`listen 8080 ssl;`, `bind :443 ssl crt ...`) listens, as a URL origin; wildcards become 127.0.0.1. */
export function listenerOrigin(original: string, tls: boolean): string {
  const words = original.replace(/;\s*$/, '').trim().split(/\s+/);
  const addr = words[1] ?? '';
  let host = '127.0.0.1';
  let port = tls ? '443' : '80';
  const m = /^(\[[^\]]*\]|[^:]*):(\d+)$/.exec(addr);
  if (/^\d+$/.test(addr)) port = addr;
  else if (m) {
    port = m[2];
    const h = m[1];
    if (h && h !== '*' && h !== '0.0.0.0' && h !== '[::]' && h !== '::') host = h;
  } else if (addr && !addr.startsWith('unix:') && !addr.startsWith('/')) host = addr;
  const scheme = tls ? 'https' : 'http';
  return `${scheme}://${host}${(tls && port === '443') || (!tls && port === '80') ? '' : `:${port}`}`;
}

/**
 * The scenario `runBenchmark` would run, for an engine that scales out (k6, Locust): the config's
 * listener as it is written (not the sandbox's port) is the default target. Throws
 * BenchUsageError for what the engines cannot send (L4 echo) and SandboxRefusal / binary errors
 * like a run would; nothing is started.
 */
export async function exportScenario(options: BenchOptions, p99ThresholdMs: number): Promise<ExportScenario> {
  const r = resolveOptions(options);
  const facts = scenarioFacts(r.scenario);
  if (facts.transport === 'tcp') throw new BenchUsageError(`scenario "${r.scenario}" (an L4 echo) has no HTTP equivalent in k6 or Locust`);
  if (!(p99ThresholdMs > 0)) throw new BenchUsageError('the P99 threshold must be a positive duration');
  let baseUrl: string;
  let tlsBaseUrl: string | null = null;
  let hostHeader = options.host ?? 'localhost';
  if (options.target) {
    baseUrl = `${options.target.tls || needsTls(r.scenario) ? 'https' : 'http'}://${options.target.host}:${options.target.port}`;
  } else {
    const sandbox = ProxySandbox.create({ configPath: options.configPath!, kind: options.kind, binary: options.binary });
    try {
      sandbox.plan();
      const block = options.listener ? { line: options.listener.line, file: options.listener.file ?? options.configPath! } : undefined;
      const picked = pickListener(sandbox.listeners, r.scenario, block);
      baseUrl = listenerOrigin(picked.main.original, picked.main.ssl);
      if (picked.tls) tlsBaseUrl = listenerOrigin(picked.tls.original, true);
      hostHeader = options.host ?? picked.main.serverName ?? 'localhost';
    } finally {
      await sandbox.dispose();
    }
  }
  const body = r.body ? r.body.toString('utf8') : null;
  const one = (close: boolean, tls = false): ExportRequest => ({
    weight: 1,
    method: r.method,
    path: r.path,
    body,
    contentType: body !== null ? r.contentType : null,
    close,
    tls,
  });
  const notes: string[] = [
    'only the requests are exported: the answers come from the proxy you point it at and its real upstreams (no built-in backend)',
  ];
  let requests: ExportRequest[];
  let kindBy: ExportScenario['kindBy'] = 'per-request';
  if (facts.requests === 'get-post-mix') {
    const posts = GET_POST_MIX.postAt.length;
    requests = [
      { weight: GET_POST_MIX.of - posts, method: 'GET', path: r.path, body: null, contentType: null, close: false, tls: false },
      {
        weight: posts,
        method: 'POST',
        path: r.path,
        body: GET_POST_MIX.postBody,
        contentType: GET_POST_MIX.postContentType,
        close: false,
        tls: false,
      },
    ];
    notes.push(
      `${Math.round(((GET_POST_MIX.of - posts) / GET_POST_MIX.of) * 100)}% GET / ${Math.round((posts / GET_POST_MIX.of) * 100)}% POST drawn at random per request (the built-in generator interleaves them in a fixed order)`,
    );
  } else if (facts.connections === 'mix' && facts.mix) {
    const m = facts.mix;
    kindBy = 'per-connection';
    requests = [
      { ...one(false), weight: m.keepAlive },
      { ...one(true), weight: tlsBaseUrl ? m.close : m.close + m.tlsClose },
      ...(tlsBaseUrl ? [{ ...one(true, true), weight: m.tlsClose }] : []),
    ];
  } else if (facts.connections === 'per-request') {
    requests = [one(true)];
    notes.push('a new connection per request (`Connection: close`); whether a TLS session is resumed is up to the engine');
  } else {
    requests = [one(false)];
  }
  if (facts.transport === 'http2') notes.push('HTTP/2: k6 negotiates it over TLS only (no h2c); Locust speaks HTTP/1.1 only');
  return {
    scenario: r.scenario,
    model: r.rate > 0 ? 'open' : 'closed',
    connections: r.connections,
    rate: r.rate,
    durationS: r.durationMs / 1000,
    warmupS: r.warmupMs / 1000,
    baseUrl,
    tlsBaseUrl,
    hostHeader,
    timeoutS: r.timeoutMs / 1000,
    p99ThresholdMs,
    kindBy,
    requests,
    notes,
  };
}
