// `proxy-tuner check`: the editor's diagnostics on the command line. The same service facade
// the language server calls produces them, so a config that is clean in the editor is clean here.
import { readFileSync } from 'node:fs';
import { escapeControls, notTextReason } from '../../server/src/core/text';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import pkg from '../../package.json';
import { diagnose as diagnoseDoc, fixAll } from '../../server/src/service/languageService';
import { nodeHostProbe as host } from '../../server/src/host/nodeHost';
import type { LanguageId } from '../../server/src/core/types';
import { findRule } from '../../server/src/service/ruleTable';
import { eolNote } from '../../server/src/core/lifecycle';
import { parseArgs, UsageError, type FlagSpec } from './args';
import type { ProxyTunerConfig } from '../../server/src/service/settings';
import { checkInputs, documentOf, SettingsFor, workspaceOf, type CheckOptions, type FileResult, type Input } from './checkCore';
import { expandFiles, ProjectConfigs, readConfigFile, writeAtomic } from './files';
import { checkInParallel, defaultJobs, terminalProgress } from './pool';
import { formatGithub, formatText, severityName, toJson, toSarif } from './report';
import { trace, traceReport, TRACING } from './trace';

export { formatText, toJson } from './report';
export type { JsonProblem } from './report';
export const CHECK_USAGE = `Usage: proxy-tuner check [options] FILE|FOLDER...

Reports the problems Proxy Tuner finds in nginx and HAProxy configuration files. A FOLDER is
searched for configs (*.conf, *.cfg, nginx*/haproxy* names, sites-enabled/*). The language of
each file is told by its name and its content (nginx's blocks and ';' win over a HAProxy
section word), unless --language says it. Each file's .proxy-tuner.json (in its folder or the
nearest one above) gives target versions, rule severities, ignore globs and fragment contexts.

Options:
  --format text|json|sarif|github
                          text (default): one line per problem, file:line:col: severity: message [rule]
                          json: an array of {file, range, severity, code, message} (0-based positions)
                          sarif: SARIF 2.1.0 for code scanning (rules with help links, fixes)
                          github: GitHub Actions annotations (::error file=...,line=...,col=...::message)
  --language L            nginx or haproxy: every FILE is in that language
  --nginx-version V       judge nginx files against version V (default: the project config's,
                          else the local nginx -v, else the newest)
  --haproxy-version V     the same for HAProxy
  --select RULES          the rules to run instead of the default set: comma-separated rule ids,
                          groups (default, performance-deep, hardening, pedantic), a language
                          (nginx, haproxy) or all (docs/rules.md lists each rule's group)
  --extend-select RULES   rules or groups to run besides the selection (e.g. hardening)
  --ignore RULES          rules or groups not to run
  --fix                   apply every safe fix: print the fixed file (one FILE), or with --write
                          write every file back and report what is left
  --unsafe-fixes          with --fix: also apply fixes that change behaviour (a new upstream
                          block with keep-alive, enabling HTTP/2, ...)
  --fix-rule ID           apply only this rule's fixes, safe or not (may be repeated; implies --fix)
  --write                 with --fix: write the fixed files in place (atomically, mode kept)
  --stdin-filename NAME   FILE '-' reads the config from stdin; NAME (shown in the output, and
                          telling the language like a file name does) defaults to <stdin>
  -j, --jobs N            worker threads for many files (default: one per core; 1: none)
  -h, --help              show this help

Exit status: 1 when an error-severity problem was found (after --fix --write: one is left),
0 otherwise, 2 on bad usage or a file that cannot be read.
`;

const SPEC: Record<string, FlagSpec> = {
  format: { value: true, choices: ['text', 'json', 'sarif', 'github'] },
  language: { value: true, choices: ['nginx', 'haproxy'] },
  'nginx-version': { value: true },
  'haproxy-version': { value: true },
  select: { value: true, repeat: true },
  'extend-select': { value: true, repeat: true },
  ignore: { value: true, repeat: true },
  fix: { value: false },
  'unsafe-fixes': { value: false },
  'fix-rule': { value: true, repeat: true },
  write: { value: false },
  'stdin-filename': { value: true },
  jobs: { value: true, aliases: ['-j'] },
  help: { value: false, aliases: ['-h'] },
};

/** `--select` / `--extend-select` / `--ignore` (comma-separated, repeatable) as the settings' `lint`. */
export function lintFlags(lists: Map<string, string[]>): Pick<ProxyTunerConfig, 'lint'> {
  const list = (name: string) =>
    lists
      .get(name)
      ?.flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean);
  const select = list('select');
  const extendSelect = list('extend-select');
  const ignore = list('ignore');
  if (!select && !extendSelect && !ignore) return {};
  return { lint: { ...(select ? { select } : {}), ...(extendSelect ? { extendSelect } : {}), ...(ignore ? { ignore } : {}) } };
}

/** Files at least this many go to worker threads (a worker costs ~0.1 s to start). */
const PARALLEL_FROM = 48;

/** A place to write to; the command writes to process streams, tests can pass buffers. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processOutput: Output = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

function summary(results: FileResult[], ignored: number): string {
  let errors = 0;
  let warnings = 0;
  let others = 0;
  for (const r of results) {
    for (const d of r.diagnostics) {
      const s = severityName(d);
      if (s === 'error') errors++;
      else if (s === 'warning') warnings++;
      else others++;
    }
  }
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${plural(results.length, 'file')} checked${ignored ? ` (${ignored} ignored)` : ''}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${others} other\n`;
}

/** The end of life of each binary the run judged for, once per run (not on every file). */
function eolNotes(results: FileResult[], settingsFor: SettingsFor): string[] {
  const notes = new Set<string>();
  for (const r of results) {
    if (r.error) continue;
    const s = settingsFor.get(r.file);
    const note = eolNote(r.language, r.language === 'nginx' ? s.nginxVersion : s.haproxyVersion);
    if (note) notes.add(note);
  }
  return [...notes];
}

function fail(out: Output, message: string, usage = false): number {
  out.stderr(`proxy-tuner check: ${message}\n${usage ? `\n${CHECK_USAGE}` : ''}`);
  return 2;
}

/** Runs `check` with its arguments (without the subcommand); resolves to the exit code. */
export async function checkCommand(argv: string[], out: Output = processOutput): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(argv, SPEC);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return fail(out, err.message, true);
  }
  const { flags, positionals: args, lists } = parsed;
  if (flags.has('help')) {
    out.stdout(CHECK_USAGE);
    return 0;
  }
  if (args.length === 0) return fail(out, 'no file given', true);
  const fixRules = lists.get('fix-rule') ?? [];
  const fixing = flags.has('fix') || fixRules.length > 0;
  const write = flags.has('write');
  const unknownRule = fixRules.find((id) => !findRule(id));
  if (unknownRule) return fail(out, `--fix-rule: no rule '${unknownRule}' (proxy-tuner rules lists them)`);
  if (flags.has('unsafe-fixes') && !fixing) return fail(out, '--unsafe-fixes goes with --fix (or --fix-rule)');
  if (write && !fixing)
    return fail(out, '--write goes with --fix (check never changes a file otherwise; `proxy-tuner format --write` formats)');
  let jobs = defaultJobs();
  if (flags.has('jobs')) {
    jobs = Number(flags.get('jobs'));
    if (!Number.isInteger(jobs) || jobs < 1) return fail(out, `--jobs must be a whole number of at least 1 (got '${flags.get('jobs')}')`);
  }
  if (args.filter((f) => f === '-').length > 1) return fail(out, 'stdin (-) can be read once');
  if (write && args.includes('-')) return fail(out, '--write cannot write stdin back: leave out --write to print the fixed text');

  const configs = new ProjectConfigs();
  let expanded;
  try {
    expanded = expandFiles(
      args.filter((a) => a !== '-'),
      configs,
    );
  } catch (err) {
    return fail(out, (err as Error).message);
  }
  if (expanded.missing.length) {
    for (const m of expanded.missing) out.stderr(`proxy-tuner check: ${m.arg}: ${m.reason}\n`);
    return 2;
  }
  const inputs: Input[] = [];
  const stdinName = (flags.get('stdin-filename') as string | undefined) ?? '<stdin>';
  for (const arg of args) {
    if (arg !== '-') continue;
    try {
      inputs.push({ file: stdinName, text: readFileSync(0, 'utf8') });
    } catch (err) {
      return fail(out, `cannot read stdin: ${(err as Error).message}`);
    }
  }
  inputs.push(...expanded.files.map((file) => ({ file })));
  if (inputs.length === 0) {
    out.stderr(summary([], expanded.ignored));
    return 0;
  }
  if (fixing && !write && inputs.length > 1)
    return fail(out, '--fix prints one fixed file; give exactly one FILE, or add --write to fix them all in place');

  // a project config that is not JSON is an error; a wrong entry in one is a warning, once
  const told = new Set<string>();
  for (const input of inputs) {
    let cfg;
    try {
      cfg = configs.for(input.file);
    } catch (err) {
      return fail(out, (err as Error).message);
    }
    if (cfg && cfg.problems.length && !told.has(cfg.file)) {
      told.add(cfg.file);
      for (const p of cfg.problems) out.stderr(`proxy-tuner check: ${cfg.file}: ${p} (ignored)\n`);
    }
  }

  const format = (flags.get('format') as string | undefined) ?? 'text';
  const opts: CheckOptions = {
    language: flags.get('language') as LanguageId | undefined,
    flags: {
      nginx: { version: flags.get('nginx-version') as string | undefined },
      haproxy: { version: flags.get('haproxy-version') as string | undefined },
      ...lintFlags(lists),
    },
    fixData: format === 'sarif',
  };
  // The local binaries' versions (`nginx -v`, ~40 ms) are asked in the background while files
  // are read and parsed; a setting's first read waits for them.
  const probing = Promise.all((['nginx', 'haproxy'] as const).filter((l) => !opts.flags[l]?.version).map((l) => host.prefetchVersion?.(l)));

  if (fixing) {
    await probing;
    const select = { unsafe: flags.has('unsafe-fixes'), rules: fixRules.length ? new Set(fixRules) : undefined };
    const settingsFor = new SettingsFor(opts, configs);
    let changed = 0;
    for (const input of inputs) {
      let text = input.text;
      if (text === undefined) {
        try {
          text = readConfigFile(input.file);
        } catch (err) {
          return fail(out, `${input.file}: ${(err as Error).message}`);
        }
      }
      const notText = notTextReason(text);
      if (notText) return fail(out, `${escapeControls(input.file)}: ${notText}`);
      const { doc, language } = documentOf(input.file, text, opts.language);
      const settings = settingsFor.get(input.file, true);
      // each round judged like `check` (and the editor's source.fixAll): in the workspace
      const diagnose = (d: TextDocument): Diagnostic[] => diagnoseDoc(d, language, settings, workspaceOf([d]));
      const fixed = fixAll(doc, language, settings, 5, diagnose, select);
      if (!write) {
        out.stdout(fixed);
        return 0;
      }
      if (fixed !== text) {
        try {
          writeAtomic(input.file, fixed);
        } catch (err) {
          return fail(out, `${input.file}: cannot write: ${(err as Error).message}`);
        }
        changed++;
      }
    }
    out.stderr(`proxy-tuner check: fixed ${changed} of ${inputs.length} file${inputs.length === 1 ? '' : 's'}; what is left:\n`);
  }

  await probing;
  trace('main', 'versions known');
  let results: FileResult[];
  if (jobs > 1 && inputs.length >= PARALLEL_FROM && !inputs.some((i) => i.text !== undefined)) {
    // workers judge with the versions found here, once, rather than each asking the binaries
    opts.localVersions = { nginx: host.version('nginx') ?? null, haproxy: host.version('haproxy') ?? null };
    opts.nginxBuild = host.nginxBuild?.() ?? null;
    results = await checkInParallel(inputs, opts, jobs, __filename, terminalProgress());
  } else {
    results = checkInputs(inputs, opts, new SettingsFor(opts, configs));
  }
  const unreadable = results.filter((r) => r.error);
  for (const r of unreadable) out.stderr(`proxy-tuner check: ${escapeControls(r.file)}: ${r.error}\n`);

  if (format === 'json') out.stdout(`${JSON.stringify(toJson(results), null, 2)}\n`);
  else if (format === 'sarif') out.stdout(`${JSON.stringify(toSarif(results, pkg.version), null, 2)}\n`);
  else if (format === 'github') out.stdout(formatGithub(results));
  else {
    out.stdout(formatText(results));
    out.stderr(summary(results, expanded.ignored));
    for (const note of eolNotes(results, new SettingsFor(opts, configs))) out.stderr(`proxy-tuner check: note: ${note}\n`);
  }
  if (TRACING) {
    trace('main', 'report written');
    // the collector's pause entries reach the observer on later turns of the event loop
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    out.stderr(traceReport());
  }
  if (unreadable.length) return 2;
  return results.some((r) => r.diagnostics.some((d) => d.severity === 1)) ? 1 : 0;
}
