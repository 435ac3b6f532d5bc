// `proxy-tuner rules [--format json] [--language L]` lists every rule; `proxy-tuner explain RULE`
// prints one rule's why, versions, fix and link. Both read the rule rows (server/src/service/ruleTable.ts).
import { tierOf } from '../../server/src/core/tiers';
import type { RuleMeta } from '../../server/src/core/rules';
import { allRules, findRule, ruleVersions } from '../../server/src/service/ruleTable';
import { parseArgs, UsageError, type FlagSpec } from './args';
import type { Output } from './check';
import { RULES_DOC } from './report';

export const RULES_USAGE = `Usage: proxy-tuner rules [--format text|json] [--language nginx|haproxy] [--category C]

Lists every rule: its id, category, default severity, tier (the default set or an opt-in group) and what it flags.
`;

export const EXPLAIN_USAGE = `Usage: proxy-tuner explain RULE

Prints what RULE (for example nginx/proxy-pass-no-upstream) flags, why it matters, the versions
it applies to, what its fix does and its documentation link.
`;

const processOutput: Output = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

const RULES_SPEC: Record<string, FlagSpec> = {
  format: { value: true, choices: ['text', 'json'] },
  language: { value: true, choices: ['nginx', 'haproxy'] },
  category: { value: true },
  help: { value: false, aliases: ['-h'] },
};

function helpUri(r: RuleMeta): string {
  return r.docUrl || `${RULES_DOC}#${r.id.replace(/[^a-z0-9 -]/g, '')}`;
}

export function rulesCommand(argv: string[], out: Output = processOutput): number {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(argv, RULES_SPEC);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    out.stderr(`proxy-tuner rules: ${err.message}\n\n${RULES_USAGE}`);
    return 2;
  }
  const { flags, positionals } = parsed;
  if (flags.has('help')) {
    out.stdout(RULES_USAGE);
    return 0;
  }
  if (positionals.length) {
    out.stderr(`proxy-tuner rules: unexpected '${positionals[0]}' (to read one rule: proxy-tuner explain ${positionals[0]})\n`);
    return 2;
  }
  const rules = allRules().filter(
    (r) =>
      (!flags.has('language') || r.language === flags.get('language')) && (!flags.has('category') || r.category === flags.get('category')),
  );
  if (flags.get('format') === 'json') {
    const rows = rules.map((r) => ({
      id: r.id,
      language: r.language,
      category: r.category,
      severity: r.severity,
      tier: tierOf(r.id),
      title: r.title,
      why: r.why,
      ...(r.since ? { since: r.since } : {}),
      ...(r.until ? { until: r.until } : {}),
      fix: r.fix ?? null,
      helpUri: helpUri(r),
    }));
    out.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const idWidth = Math.max(...rules.map((r) => r.id.length), 4);
  const catWidth = Math.max(...rules.map((r) => r.category.length), 8);
  const lines = [
    `${'rule'.padEnd(idWidth)}  ${'category'.padEnd(catWidth)}  ${'severity'.padEnd(11)}  ${'tier'.padEnd(16)}  what it flags`,
  ];
  for (const r of rules)
    lines.push(
      `${r.id.padEnd(idWidth)}  ${r.category.padEnd(catWidth)}  ${r.severity.padEnd(11)}  ${tierOf(r.id).padEnd(16)}  ${r.title.replace(/`/g, '')}`,
    );
  out.stdout(`${lines.join('\n')}\n`);
  out.stderr(`${rules.length} rules (proxy-tuner explain RULE for one)\n`);
  return 0;
}

/** Ids close to `wanted` (same name in the other language, shared words), for "did you mean". */
function nearest(wanted: string): string[] {
  const name = wanted.includes('/') ? wanted.split('/')[1] : wanted;
  const words = new Set(name.split('-').filter((w) => w.length > 2));
  const scored = allRules()
    .map((r) => {
      const own = r.id.split('/')[1];
      const shared = own.split('-').filter((w) => words.has(w)).length;
      return { id: r.id, score: own === name ? 100 : own.includes(name) || name.includes(own) ? 50 : shared };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, 3).map((s) => s.id);
}

export function explainCommand(argv: string[], out: Output = processOutput): number {
  if (argv.includes('-h') || argv.includes('--help')) {
    out.stdout(EXPLAIN_USAGE);
    return 0;
  }
  if (argv.length !== 1 || argv[0].startsWith('-')) {
    out.stderr(`proxy-tuner explain: give exactly one RULE\n\n${EXPLAIN_USAGE}`);
    return 2;
  }
  const r = findRule(argv[0]);
  if (!r) {
    const near = nearest(argv[0]);
    out.stderr(
      `proxy-tuner explain: no rule '${argv[0]}'${near.length ? `; did you mean ${near.join(', ')}?` : ''} (proxy-tuner rules lists them)\n`,
    );
    return 2;
  }
  const text = [
    `${r.id}: ${r.title.replace(/`/g, '')}`,
    '',
    `Category: ${r.category}. Default severity: ${r.severity}. Applies to: ${ruleVersions(r)}.`,
    tierOf(r.id) === 'default'
      ? 'Tier: default (on unless ignored: --ignore, "lint": {"ignore": [...]}).'
      : `Tier: ${tierOf(r.id)} (opt-in: --extend-select ${tierOf(r.id)} or ${r.id}, "lint": {"extendSelect": [...]}).`,
    '',
    'Why:',
    wrap(r.why),
    '',
    'Fix:',
    wrap(r.fix ?? 'No automatic fix: the right change depends on the setup.'),
    '',
    `Documentation: ${helpUri(r)}`,
    `Turn it off for one line: # proxy-tuner-disable-next-line ${r.id} -- reason`,
    `Change its severity: "rules": { "${r.id}": "off" | "error" | "warning" | "information" | "hint" } in .proxy-tuner.json`,
  ];
  out.stdout(`${text.join('\n')}\n`);
  return 0;
}

/** Text wrapped at 96 columns, indented by 2. */
function wrap(text: string): string {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > 94) {
      out.push(`  ${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(`  ${line}`);
  return out.join('\n');
}
