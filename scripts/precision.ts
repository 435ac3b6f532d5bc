// `npm run precision`: how right the linter's advice is on the precision corpus (issue 32).
// Prints, from test/precision/judgements.tsv and the findings of test/precision/corpus.ts:
// useful / noise / wrong per rule and overall (warnings and information at the default
// settings), the density (those findings per 100 lines) per language, and the errors against
// the six binaries' verdicts (test/precision/corpus/verdicts.tsv): false errors (on files every
// binary accepts) and the genuine errors caught at the binary's line.
//
//   npm run precision [-- --write]
//
// `--write` records the split of every rule (all rules selected) in
// server/src/core/data/rule-precision.json, which docs/rules.md shows and test/precision checks
// the tiers of server/src/core/tiers.ts against.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CORPUS,
  VERSIONS,
  corpusFiles,
  corpusFindings,
  judged,
  keyOf,
  readJudgements,
  ruleKey,
  type Finding,
} from '../test/precision/corpus';

const files = corpusFiles();
const judgements = new Map(readJudgements().map((j) => [keyOf(j), j]));
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(0)}%` : '-');
console.log(
  `precision corpus: ${files.length} files (${files.filter((f) => f.language === 'nginx').length} nginx, ${files.filter((f) => f.language === 'haproxy').length} HAProxy)`,
);

type Split = { useful: number; noise: number; wrong: number; unjudged: number };

/** The split per rule, overall, and the density, for one rule selection. */
function split(title: string, findings: Finding[], lines: Record<string, number>): Map<string, Split> {
  const perRule = new Map<string, { useful: number; noise: number; wrong: number; unjudged: number }>();
  const total = { useful: 0, noise: 0, wrong: 0, unjudged: 0 };
  const density: Record<string, number> = { nginx: 0, haproxy: 0 };
  for (const f of findings.filter(judged)) {
    density[f.language]++;
    const j = judgements.get(keyOf(f));
    const v = j?.verdict ?? 'unjudged';
    const r = perRule.get(ruleKey(f)) ?? { useful: 0, noise: 0, wrong: 0, unjudged: 0 };
    r[v]++;
    total[v]++;
    perRule.set(ruleKey(f), r);
  }
  console.log(`\n== ${title}\n`);
  console.log('rule'.padEnd(36) + 'findings  useful  noise  wrong  unjudged  useful%');
  for (const [rule, r] of [...perRule].sort((a, b) => b[1].useful + b[1].noise + b[1].wrong - (a[1].useful + a[1].noise + a[1].wrong))) {
    const n = r.useful + r.noise + r.wrong + r.unjudged;
    console.log(
      `${rule.padEnd(36)}${String(n).padStart(8)}${String(r.useful).padStart(8)}${String(r.noise).padStart(7)}${String(r.wrong).padStart(7)}${String(r.unjudged).padStart(10)}${pct(r.useful, n).padStart(9)}`,
    );
  }
  const n = total.useful + total.noise + total.wrong + total.unjudged;
  console.log(
    `\noverall: ${n} findings: ${total.useful} useful (${pct(total.useful, n)}), ${total.noise} noise (${pct(total.noise, n)}), ${total.wrong} wrong (${pct(total.wrong, n)}), ${total.unjudged} unjudged`,
  );
  for (const lang of ['nginx', 'haproxy'] as const)
    console.log(
      `density ${lang}: ${density[lang]} warnings+information in ${lines[lang]} lines = ${((100 * density[lang]) / lines[lang]).toFixed(2)} per 100 lines`,
    );
  return perRule;
}
const all = corpusFindings(files, { select: ['all'] });
const measured = split('every rule (--select all)', all.findings, all.lines);
if (process.argv.includes('--write')) {
  const rules = Object.fromEntries(
    [...measured].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [k, { useful: v.useful, noise: v.noise, wrong: v.wrong }]),
  );
  const out = { generated: 'npm run precision -- --write; do not edit', corpus: 'test/precision/corpus', rules };
  writeFileSync(join(__dirname, '../server/src/core/data/rule-precision.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log('\nwrote server/src/core/data/rule-precision.json');
}
const { findings, lines } = corpusFindings(files);
split('the default set', findings, lines);

// errors against the binaries
const verdicts = readFileSync(join(CORPUS, 'verdicts.tsv'), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .slice(1)
  .map((l) => {
    const [product, version, file, verdict, cls, line] = l.split('\t');
    return { product, version, file: `${product}/${file}`, verdict, cls, line: Number(line) || 0 };
  });
const accepted = new Set(
  files.map((f) => f.file).filter((file) => verdicts.filter((v) => v.file === file).every((v) => v.verdict === 'ok')),
);
console.log(
  "\nerrors (the linter judging at each binary's version): false errors on files every binary accepts, and on files this binary accepts; genuine errors caught by an error finding on the binary's line (nginx errors without a line: any error finding in the file)",
);
for (const version of [...new Set(verdicts.map((v) => `${v.product} ${v.version}`))]) {
  const [product, ver] = version.split(' ');
  const at = corpusFindings(
    files.filter((f) => f.language === product),
    undefined,
    { ...VERSIONS, [product]: ver },
  ).findings.filter((f) => f.severity === 'error');
  const errorsOf = (file: string): Finding[] => at.filter((f) => f.file === file);
  const rows = verdicts.filter((v) => v.product === product && v.version === ver);
  const ok = rows.filter((v) => v.verdict === 'ok');
  const falseAll = ok.filter((v) => accepted.has(v.file) && errorsOf(v.file).length > 0);
  const falseHere = ok.filter((v) => errorsOf(v.file).length > 0);
  const genuine = rows.filter((v) => v.cls === 'genuine');
  const caught = genuine.filter((v) => errorsOf(v.file).some((f) => v.line === 0 || f.line === v.line));
  const missed = genuine.filter((v) => !caught.includes(v)).map((v) => `${v.file.split('/')[1].replace(/\.d\/.*/, '')}:${v.line}`);
  console.log(
    `  ${version}: ${ok.length} accepted, ${falseAll.length} false errors on files every binary accepts, ${falseHere.length} on files this one accepts${falseHere.length ? ` (${falseHere.map((v) => v.file.split('/')[1]).join(', ')})` : ''}; ${genuine.length} genuine errors, ${caught.length} caught at the binary's line${missed.length ? ` (missed: ${missed.join(', ')})` : ''}`,
  );
}
