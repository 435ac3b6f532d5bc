// `bench FILE --slo 'p99<50ms'`: the capacity search (bench/src/capacity.ts) from the command
// line: each step as it runs, the curve of P50/P99/P99.9/errors against the offered rate, the
// knee with its uncertainty; with two --binary or --compare-config, both knees A/B.
import * as path from 'node:path';
import type { BenchOptions } from '../../protocol/bench';
import { reportBenchError } from './benchError';
import { formatSlo, runCapacity, type CapacityResult, type CapacityStep, type Slo } from '../../bench/src/capacity';

export type Side = { label: string; options: BenchOptions; result?: CapacityResult & { proxy: { version: string } | null } };

const pad = (s: string | number, n: number) => String(s).padStart(n);

export function stepLine(s: CapacityStep): string {
  return `${pad(s.rate, 9)} ${pad(s.rps, 9)} ${pad(s.p50, 9)} ${pad(s.p99, 9)} ${pad(s.p999, 9)} ${pad(`${Math.round(s.errorRate * 10000) / 100}%`, 8)}  ${s.pass ? 'met ' : 'MISS'}  ${s.phase}`;
}

/** "6k", "21.5k", "800". */
export function shortRate(n: number): string {
  return n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(n);
}

export function kneeLine(r: CapacityResult): string {
  if (r.knee === 0) return `knee         none: the first step missed ${formatSlo(r.slo)}`;
  const gap = r.firstFailing !== null ? `first miss at ${r.firstFailing} req/s, ±${r.uncertaintyPercent}%` : 'no step missed';
  return `knee         ${r.knee} req/s (${gap}); repeats at the knee met the target ${r.repeatsPassed} of ${r.repeats}`;
}

export function formatCapacity(sides: Side[], slo: Slo, o: BenchOptions): string {
  const lines: string[] = [];
  lines.push(
    `capacity at ${formatSlo(slo)}: ${o.scenario ?? 'http1-keepalive'}, open model, ${o.connections ?? 10} connections, ${(o.durationMs ?? 10000) / 1000}s per step`,
  );
  for (const s of sides) {
    const r = s.result!;
    lines.push(
      '',
      `${s.label}`,
      `${pad('offered', 9)} ${pad('req/s', 9)} ${pad('p50 ms', 9)} ${pad('p99 ms', 9)} ${pad('p99.9 ms', 9)} ${pad('errors', 8)}`,
    );
    for (const st of [...r.steps].sort((a, b) => a.rate - b.rate || (a.phase === 'repeat' ? 1 : -1))) lines.push(stepLine(st));
    lines.push(kneeLine(r));
    for (const n of r.notes) lines.push(`note: ${n}`);
  }
  if (sides.length === 2) {
    const [a, b] = sides.map((s) => s.result!.knee);
    const ratio = a > 0 ? ` (x${Math.round((b / a) * 100) / 100})` : '';
    lines.push(
      '',
      `A/B: the knee moves from ${shortRate(a)} (${sides[0].label}) to ${shortRate(b)} req/s (${sides[1].label}) at ${formatSlo(slo)}${ratio}`,
    );
  }
  return lines.join('\n') + '\n';
}

export async function capacityCommand(
  options: BenchOptions,
  slo: Slo,
  binaries: string[],
  compareConfig: string | undefined,
  json: boolean,
): Promise<number> {
  const sides: Side[] =
    binaries.length > 1
      ? binaries.map((b) => ({ label: b, options: { ...options, binary: b } }))
      : compareConfig
        ? [
            { label: path.basename(options.configPath ?? 'A'), options },
            { label: path.basename(compareConfig), options: { ...options, configPath: compareConfig } },
          ]
        : [
            {
              label: options.configPath ? path.basename(options.configPath) : 'target',
              options: binaries[0] ? { ...options, binary: binaries[0] } : options,
            },
          ];
  const tty = !json && !!process.stderr.isTTY;
  const ac = new AbortController();
  const onSig = () => ac.abort();
  process.once('SIGINT', onSig);
  process.once('SIGTERM', onSig);
  try {
    for (const s of sides) {
      s.result = await runCapacity(
        s.options,
        slo,
        {},
        {
          signal: ac.signal,
          onStep: (st) => {
            if (tty) process.stderr.write(`\r\x1b[K${s.label}: ${st.rate} req/s offered: P99 ${st.p99} ms, ${st.pass ? 'met' : 'missed'}`);
          },
        },
      );
      if (binaries.length > 1 && s.result.proxy) s.label = `${s.result.proxy.version} (${s.label})`;
    }
    if (tty) process.stderr.write('\r\x1b[K');
    process.stdout.write(
      json
        ? JSON.stringify({ slo, sides: sides.map((s) => ({ label: s.label, ...s.result })) }, null, 2) + '\n'
        : formatCapacity(sides, slo, options),
    );
    return 0;
  } catch (e) {
    return reportBenchError(e, tty);
  } finally {
    process.removeListener('SIGINT', onSig);
    process.removeListener('SIGTERM', onSig);
  }
}
