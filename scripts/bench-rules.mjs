// `npm run bench:rules`: measures the before/after config pair of every version-bound or
// default-dependent tuning rule (scripts/rule-evidence/cases.ts) with the product's own bench
// (`proxy-tuner bench FILE --binary B --json`: sandbox, the real binary, the built-in backend and
// generator) on every binary of the version matrix (.matrix/binaries.json), and writes
// docs/rule-evidence.md: the pairs, each binary's req/s, P99 and backend connections per request,
// and the verdict (the rule fires iff the measurement shows the problem).
// Short runs (RULES_DURATION, default 1s after a 0.5s warm-up), RULES_REPEATS (default 2)
// alternated repeats per pair (before/after, then after/before). Verdicts read backend
// connections per request, resumed TLS sessions, errors or the binary's own warnings, never a
// timing: the machine may be shared. RULES_ONLY=substring limits the cases (the doc is then not written).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadavg, machine, median, REPO, sh } from './bench-common.mjs';

const { CASES, NOT_MEASURED, afterFor, ruleFires, boundOf, verdict } = await import('./rule-evidence/cases.ts');
const { loadMatrix } = await import('../server/src/runner/matrix.ts');

const durationS = Number(process.env.RULES_DURATION ?? 1);
const repeats = Number(process.env.RULES_REPEATS ?? 2);
const only = process.env.RULES_ONLY;
const cli = path.join(REPO, 'dist', 'cli.js');

const binaries = loadMatrix();
if (binaries.length === 0) {
  console.error('bench:rules: no version matrix found (.matrix/binaries.json): run npm run setup');
  process.exit(1);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'proxy-tuner-rules-'));
let n = 0;
function write(text, product) {
  const d = path.join(dir, String(n++));
  sh('mkdir', ['-p', d]);
  const f = path.join(d, product === 'nginx' ? 'nginx.conf' : 'haproxy.cfg');
  writeFileSync(f, text);
  return f;
}

function benchOnce(file, binary, c) {
  const args = [
    cli,
    'bench',
    file,
    '--binary',
    binary,
    '-c',
    String(c.bench.connections),
    '--duration',
    `${durationS}s`,
    '--warmup',
    '500ms',
    '--json',
  ];
  if (c.bench.scenario) args.push('--scenario', c.bench.scenario);
  const t0 = Date.now();
  const r = sh('node', args, { timeout: (durationS + 60) * 1000 });
  const wallS = (Date.now() - t0) / 1000;
  if (r.code !== 0) {
    const msg = r.err.split('\n').find((l) => l.trim()) ?? `exit ${r.code}`;
    if (/rejected the config/.test(msg)) return { refused: msg.replace(/^bench: /, '').trim(), wallS };
    throw new Error(`${c.key} on ${binary}: ${msg}`);
  }
  const j = JSON.parse(r.out);
  return {
    rps: j.rps,
    p99: j.latencyMs.p99,
    cpr: j.backend.connectionsPerRequest,
    requests: j.requests,
    errors: Object.values(j.errors).reduce((a, b) => a + b, 0),
    tlsHandshakes: j.tls?.handshakes,
    tlsResumed: j.tls?.resumed,
    warnings: j.warnings,
    cpu: j.cpuSeconds.proxy,
    wallS,
  };
}

/** Median of the repeats (sums for counts; warnings and refusals from any repeat). */
function combine(runs) {
  const refused = runs.find((r) => r.refused)?.refused;
  if (refused) return { refused, rps: 0, p99: 0, cpr: 0, requests: 0, errors: 0, warnings: [], runs };
  const sum = (k) => runs.reduce((a, r) => a + (r[k] ?? 0), 0);
  const round = (x, d) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    rps: Math.round(median(runs.map((r) => r.rps))),
    p99: round(median(runs.map((r) => r.p99)), 2),
    cpr: round(median(runs.map((r) => r.cpr)), 4),
    requests: sum('requests'),
    errors: sum('errors'),
    tlsHandshakes: runs.some((r) => r.tlsHandshakes !== undefined) ? sum('tlsHandshakes') : undefined,
    tlsResumed: runs.some((r) => r.tlsResumed !== undefined) ? sum('tlsResumed') : undefined,
    warnings: [...new Set(runs.flatMap((r) => r.warnings))],
    cpu: Math.round(sum('cpu') * 100) / 100,
    runs,
  };
}

const results = [];
const loadBefore = loadavg();
const t0 = Date.now();
try {
  for (const c of CASES) {
    if (only && !c.key.includes(only)) continue;
    for (const b of binaries.filter((x) => x.product === c.product)) {
      const afterText = afterFor(c, b.version);
      const files = { before: write(c.before, c.product), after: afterText === null ? null : write(afterText, c.product) };
      const runs = { before: [], after: [] };
      for (let rep = 0; rep < repeats; rep++) {
        const order = rep % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
        for (const which of order) if (files[which]) runs[which].push(benchOnce(files[which], b.path, c));
      }
      const before = combine(runs.before);
      const after = files.after ? combine(runs.after) : null;
      const problem = c.problem(before, after);
      const firesBefore = ruleFires(c, c.before, b.version);
      const firesAfter = afterText === null ? null : ruleFires(c, afterText, b.version);
      const v = verdict(problem, firesBefore, firesAfter);
      results.push({ c, b, before, after, afterText, problem, firesBefore, firesAfter, verdict: v });
      const show = (m) =>
        m
          ? m.refused
            ? 'refused'
            : `${m.rps} req/s p99 ${m.p99} ms cpr ${m.cpr} err ${m.errors}${m.tlsResumed !== undefined ? ` resumed ${m.tlsResumed}/${m.tlsHandshakes}` : ''}`
          : '-';
      console.log(
        `${c.key.padEnd(44)} ${b.product} ${b.version.padEnd(7)} before: ${show(before)} | after: ${show(after)} | problem ${problem} fires ${firesBefore}/${firesAfter} -> ${v}  (load ${loadavg()})`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const wall = Math.round((Date.now() - t0) / 1000);
const loadAfter = loadavg();
const bad = results.filter((r) => r.verdict !== 'agrees');
console.log(
  `\n${results.length} measurements in ${wall}s; ${bad.length} contradict the rule table${bad.length ? `: ${bad.map((r) => `${r.c.key}@${r.b.version}`).join(', ')}` : ''}`,
);
if (only) process.exit(bad.length ? 1 : 0);

// ---- docs/rule-evidence.md ------------------------------------------------------------------

const yes = (x) => (x === null ? 'n/a' : x ? 'yes' : 'no');
const cell = (m, k) => (!m ? '-' : m.refused ? 'refused' : String(m[k]));
const extra = (m) => {
  if (!m) return 'no such fix on this version';
  if (m.refused) return `binary refused: ${m.refused.replace(/\|/g, '\\|').slice(0, 160)}`;
  const parts = [];
  if (m.errors) parts.push(`${m.errors} errors`);
  if (m.tlsResumed !== undefined) parts.push(`TLS resumed ${m.tlsResumed}/${m.tlsHandshakes}`);
  const dep = m.warnings.filter((w) => /deprecated/i.test(w));
  if (dep.length) parts.push(`warns: ${dep[0].replace(/\|/g, '\\|').slice(0, 120)}`);
  parts.push(`${m.cpu} proxy CPU s`);
  return parts.join('; ');
};
const measuredRules = [...new Set(results.map((r) => r.c.rule))];
const sections = CASES.map((c) => {
  const rows = results.filter((r) => r.c === c);
  const afterTexts = [...new Set(rows.map((r) => r.afterText).filter((t) => t !== null))];
  return `### \`${c.key}\`

Rests on: ${c.restsOn}. Signal: ${c.signal}. Load: ${c.bench.scenario ?? 'http1-keepalive'}, ${c.bench.connections} connections.

<details><summary>before</summary>

\`\`\`${c.product}
${c.before.trimEnd()}
\`\`\`
</details>
${afterTexts
  .map(
    (t) => `<details><summary>after${
      afterTexts.length > 1 || rows.some((r) => r.afterText === null)
        ? ` (${rows
            .filter((r) => r.afterText === t)
            .map((r) => r.b.version)
            .join(', ')})`
        : ''
    }</summary>

\`\`\`${c.product}
${t.trimEnd()}
\`\`\`
</details>`,
  )
  .join('\n')}

| binary | config | req/s | P99 ms | backend connections per request | notes |
|---|---|---|---|---|---|
${rows
  .flatMap((r) =>
    [
      ['before', r.before],
      ['after', r.after],
    ].map(([w, m]) => `| ${r.b.product} ${r.b.version} | ${w} | ${cell(m, 'rps')} | ${cell(m, 'p99')} | ${cell(m, 'cpr')} | ${extra(m)} |`),
  )
  .join('\n')}
`;
});

const body = `# Rule evidence: tuning rules measured on every binary

Written by \`npm run bench:rules\` (scripts/bench-rules.mjs, cases in scripts/rule-evidence/cases.ts)
on ${new Date().toISOString()}; do not edit by hand. test/tuning/ruleEvidence.test.ts keeps the
summary below in step with the rule table: every bound in it must be the row's, and the linter at
each binary's version must fire on each \`before\` exactly where the measurement showed the problem.

Every tuning rule with a version bound (\`since\`/\`until\`) and every rule whose advice rests on a
default gets a before/after config pair, measured with the product's own bench
(\`proxy-tuner bench FILE --binary B --duration ${durationS}s --warmup 500ms --json\`: a sandboxed copy, the real
binary, the built-in Node backend and load generator) on each binary of the version matrix,
${repeats} alternated repeats per pair (medians; counts summed). The verdicts read robust signals
(backend connections per request, resumed TLS sessions, failed requests, the binary's own
warnings or refusal), never a timing: req/s and P99 are shown for scale only.

Machine: ${machine()}. Shared by several engineers while measured: load average ${loadBefore} before,
${loadAfter} after; the whole run took ${wall} s. Absolute req/s and P99 are noisy; compare within a row pair.

## Summary

${results.length} measurements of ${CASES.length} cases (${measuredRules.length} rules) on ${binaries.length} binaries; ${bad.length} contradict the rule table.

Bounds and messages changed by these measurements:
- \`nginx/proxy-pass-no-upstream\`: was "until 1.29.7"; now all versions. \`proxy_pass\` to a literal
  address opens one backend connection per request on 1.22.1, 1.26.3 and 1.30.6 alike; from 1.29.7
  the message says an \`upstream\` block alone is enough, and its fix no longer adds the HTTP/1.1 lines there.
- \`nginx/upstream-keepalive-small\`: from 1.29.7 it also flags an \`upstream\` without \`keepalive\`
  (the default pool is \`keepalive 32 local\`: with 50 clients it reconnects as an explicit \`keepalive 32\` does).
- \`nginx/upstream-keepalive\` and \`nginx/upstream-keepalive-headers\`: bound "until 1.29.7" confirmed
  (1.26.3 opens a connection per request, 1.30.6 reuses), messages unchanged.

| rule | bound | case | binary | problem shown | rule fires on before | fires on after | verdict |
|---|---|---|---|---|---|---|---|
${results.map((r) => `| \`${r.c.rule}\` | ${boundOf(r.c.rule)} | \`${r.c.key}\` | ${r.b.product} ${r.b.version} | ${yes(r.problem)} | ${yes(r.firesBefore)} | ${yes(r.firesAfter)} | ${r.verdict} |`).join('\n')}

## Not measured here

Rules whose advice rests on a default but whose effect this bench cannot show on this machine:

${NOT_MEASURED.map((x) => `- \`${x.rule}\`: ${x.why}.`).join('\n')}

## The pairs

${sections.join('\n')}`;
writeFileSync(path.join(REPO, 'docs', 'rule-evidence.md'), body);
console.log(`wrote docs/rule-evidence.md`);
process.exit(bad.length ? 1 : 0);
