// The diagnosis as text for `bench`: one block per finding (the measured fact, the line
// responsible, the rule and the fix), then the readings behind them in one line each.
import * as path from 'node:path';
import type { Diagnosis, Finding } from '../../protocol/diagnosis';

function findingLines(f: Finding, cwd: string): string[] {
  const out = [`${f.severity === 'warning' ? '!' : '-'} ${f.kind}: ${f.measured}`];
  if (f.at) {
    const rel = path.relative(cwd, f.at.file);
    out.push(`    at ${rel && !rel.startsWith('..') ? rel : f.at.file}:${f.at.line} (${f.at.setting})`);
  }
  out.push(`    ${f.advice}`);
  if (f.rule || f.fix) out.push(`    ${[f.rule ? `rule ${f.rule}` : '', f.fix ? `fix: ${f.fix.title}` : ''].filter(Boolean).join('; ')}`);
  for (const e of f.fix?.edits ?? [])
    for (const l of e.replaceLine !== undefined ? [e.replaceLine] : (e.insertAfter ?? []))
      out.push(`      ${e.replaceLine !== undefined ? `line ${e.line} →` : `after line ${e.line} +`} ${l.trim()}`);
  return out;
}

export function diagnosisLines(d: Diagnosis | undefined, cwd = process.cwd()): string[] {
  if (!d) return [];
  const lines: string[] = ['', d.findings.length ? `diagnosis    ${d.findings.length} finding(s)` : 'diagnosis    nothing to report'];
  for (const f of d.findings) lines.push(...findingLines(f, cwd));
  const r = d.readings;
  const read: string[] = [];
  if (r.cpu) {
    const total = r.cpu.userSeconds + r.cpu.systemSeconds;
    read.push(
      `proxy cpu ${Math.round(r.cpu.userSeconds * 100) / 100}s user, ${Math.round(r.cpu.systemSeconds * 100) / 100}s system` +
        `${total > 0 ? ` (${Math.round((r.cpu.systemSeconds / total) * 100)}% system)` : ''}; per worker ${r.cpu.perWorker.join(', ')}s` +
        `${r.cpu.demand ? ` (busy ${r.cpu.demand.map((x) => `${Math.round(x * 100)}%`).join(', ')})` : ''} on ${r.cpu.cpusGiven} CPUs`,
    );
  }
  if (r.sockets)
    read.push(
      `sockets ${r.sockets.timeWaitPeak} in TIME_WAIT, ${r.sockets.ephemeralInUsePeak} ephemeral ports in use of ${r.sockets.portRange[1] - r.sockets.portRange[0] + 1} (end of run)`,
    );
  if (r.listen)
    read.push(
      `listen queue ${r.listen.overflows} overflows, ${r.listen.drops} drops (host-wide); backlog ${r.listen.backlog ?? '?'}, somaxconn ${r.listen.somaxconn ?? '?'}`,
    );
  if (r.files) read.push(`files ${r.files.peak} open (peak) of ${r.files.limit ?? 'unlimited'}`);
  const st = Object.entries(r.statuses ?? {});
  if (st.length) read.push(`statuses ${st.map(([k, v]) => `${k} × ${v}`).join(', ')}`);
  const el = Object.entries(r.errorLog ?? {});
  if (el.length) read.push(`error log ${el.map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`).join(', ')}`);
  if (r.accessLogBytes) read.push(`access log +${r.accessLogBytes} bytes`);
  for (const q of r.queues ?? []) read.push(`queue ${q.proxy}/${q.server} up to ${q.qmax}, ${q.qtime} ms`);
  for (const m of r.missing) read.push(`not read: ${m}`);
  for (const x of read) lines.push(`  reading    ${x}`);
  return lines;
}
