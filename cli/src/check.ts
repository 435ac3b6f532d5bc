// `proxy-tuner check`: the editor's diagnostics on the command line. The same service facade
// the language server calls produces them, so a config that is clean in the editor is clean here.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic, Range } from 'vscode-languageserver-types';
import { createWorkspaceIndex, detectLanguage, fixAll, validateInWorkspace } from '../../server/src/service/languageService';
import { SEVERITY_NAME } from '../../server/src/service/rules';
import { prefetchLocalVersion } from '../../server/src/service/localVersions';
import { resolveSettings } from '../../server/src/service/settings';
import type { LanguageId, RuleSeverity, ServiceSettings } from '../../server/src/service/types';
import { parseArgs, UsageError, type FlagSpec } from './args';

export const CHECK_USAGE = `Usage: proxy-tuner check [options] FILE...

Reports the problems Proxy Tuner finds in nginx and HAProxy configuration files.
The language of each file is told by its name, its folder and its content.

Options:
  --format text|json      text (default): one line per problem, file:line:col: severity: message [rule]
                          json: an array of {file, range, severity, code, message} (0-based positions)
  --nginx-version V       judge nginx files against version V (default: the local nginx -v, else the newest)
  --haproxy-version V     judge HAProxy files against version V (default: the local haproxy -v, else the newest)
  --fix                   print the file with every safe fix applied (one FILE)
  --stdin-filename NAME   FILE '-' reads the config from stdin; NAME (shown in the output, and
                          telling the language like a file name does) defaults to <stdin>
  -h, --help              show this help

Exit status: 1 when an error-severity problem was found, 0 otherwise, 2 on bad usage.
`;

const SPEC: Record<string, FlagSpec> = {
  format: { value: true, choices: ['text', 'json'] },
  'nginx-version': { value: true },
  'haproxy-version': { value: true },
  fix: { value: false },
  'stdin-filename': { value: true },
  help: { value: false, aliases: ['-h'] },
};

export interface CheckedFile {
  file: string;
  language: LanguageId;
  diagnostics: Diagnostic[];
}

export interface JsonProblem {
  file: string;
  range: Range;
  severity: Exclude<RuleSeverity, 'off'>;
  code: string;
  message: string;
}

/** A place to write to; the command writes to process streams, tests can pass buffers. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processOutput: Output = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

function byPosition(a: Diagnostic, b: Diagnostic): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

/**
 * The diagnostics of one text as the editor computes them: through the workspace index, so the
 * files loaded with this one (its includer, included files, a split HAProxy folder) count.
 */
function diagnoseInWorkspace(doc: TextDocument, language: LanguageId, settings: ServiceSettings, ws = workspaceOf(doc)): Diagnostic[] {
  return validateInWorkspace(doc, language, settings, ws);
}

/** The index of the files loaded with `doc` (its includer, included files, its folder's `.cfg`s). */
function workspaceOf(doc: TextDocument) {
  return createWorkspaceIndex({ open: { get: (uri) => (uri === doc.uri ? doc : undefined), all: () => [doc] } });
}

function documentOf(file: string, text: string): { doc: TextDocument; language: LanguageId } {
  const language = detectLanguage(file, text);
  return { doc: TextDocument.create(pathToFileURL(resolve(file)).href, language, 1, text), language };
}


function severityName(d: Diagnostic): Exclude<RuleSeverity, 'off'> {
  return SEVERITY_NAME[d.severity ?? 1] ?? 'error';
}

/** One line per problem, like a compiler: `file:line:col: severity: message [rule-id]`, 1-based. */
export function formatText(results: CheckedFile[]): string {
  const lines: string[] = [];
  for (const r of results) {
    for (const d of r.diagnostics) {
      const code = d.code === undefined ? '' : ` [${d.code}]`;
      const message = typeof d.message !== 'string' ? String(d.message) : d.message.indexOf('\n') < 0 ? d.message : d.message.replace(/\r?\n/g, ' ');
      lines.push(`${r.file}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${severityName(d)}: ${message}${code}`);
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export function toJson(results: CheckedFile[]): JsonProblem[] {
  return results.flatMap((r) =>
    r.diagnostics.map((d) => ({
      file: r.file,
      range: { start: { ...d.range.start }, end: { ...d.range.end } },
      severity: severityName(d),
      code: d.code === undefined ? '' : String(d.code),
      message: d.message,
    })),
  );
}

function summary(results: CheckedFile[]): string {
  const count = (s: string) => results.reduce((n, r) => n + r.diagnostics.filter((d) => severityName(d) === s).length, 0);
  const errors = count('error');
  const warnings = count('warning');
  const others = count('information') + count('hint');
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${plural(results.length, 'file')} checked: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${others} other\n`;
}

/** Runs `check` with its arguments (without the subcommand); resolves to the exit code. */
export async function checkCommand(argv: string[], out: Output = processOutput): Promise<number> {
  let flags: Map<string, string | true>;
  let files: string[];
  try {
    ({ flags, positionals: files } = parseArgs(argv, SPEC));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    out.stderr(`proxy-tuner check: ${err.message}\n\n${CHECK_USAGE}`);
    return 2;
  }
  if (flags.has('help')) {
    out.stdout(CHECK_USAGE);
    return 0;
  }
  if (files.length === 0) {
    out.stderr(`proxy-tuner check: no file given\n\n${CHECK_USAGE}`);
    return 2;
  }
  const fix = flags.has('fix');
  if (fix && files.length > 1) {
    out.stderr('proxy-tuner check: --fix prints one fixed file; give exactly one FILE\n');
    return 2;
  }

  if (files.filter((f) => f === '-').length > 1) {
    out.stderr('proxy-tuner check: stdin (-) can be read once\n');
    return 2;
  }
  const stdinName = (flags.get('stdin-filename') as string | undefined) ?? '<stdin>';
  const texts: { file: string; text: string }[] = [];
  for (const file of files) {
    if (file === '-') {
      try {
        texts.push({ file: stdinName, text: readFileSync(0, 'utf8') });
      } catch (err) {
        out.stderr(`proxy-tuner check: cannot read stdin: ${(err as Error).message}\n`);
        return 2;
      }
      continue;
    }
    try {
      if (statSync(file).isDirectory()) {
        out.stderr(`proxy-tuner check: ${file}: is a directory\n`);
        return 2;
      }
      texts.push({ file, text: readFileSync(file, 'utf8') });
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
      out.stderr(`proxy-tuner check: ${file}: ${reason}\n`);
      return 2;
    }
  }

  const config = {
    nginx: { version: flags.get('nginx-version') as string | undefined },
    haproxy: { version: flags.get('haproxy-version') as string | undefined },
  };
  const docs = texts.map(({ file, text }) => ({ file, ...documentOf(file, text) }));
  // The local binaries' versions (`nginx -v`, ~40 ms) are asked in the background, for the
  // languages present and not given, while the files are parsed; validation waits for them.
  const versions = Promise.all(
    [...new Set(docs.map((d) => d.language))].filter((lang) => !config[lang].version).map((lang) => prefetchLocalVersion(lang)),
  );

  if (fix) {
    await versions;
    const settings = resolveSettings(config);
    const { doc, language } = docs[0];
    // each round judged like `check` (and the editor's source.fixAll): in the workspace
    out.stdout(fixAll(doc, language, settings, 5, (d) => diagnoseInWorkspace(d, language, settings)));
    return 0;
  }

  const first = workspaceOf(docs[0].doc);
  first.get(docs[0].doc.uri); // the first file's parse, which its validation reuses
  await versions;
  const settings = resolveSettings(config);
  settings.fixData = false; // the report shows no fixes (--fix, above, applies them)
  const results: CheckedFile[] = docs.map(({ file, doc, language }, i) => ({
    file,
    language,
    diagnostics: diagnoseInWorkspace(doc, language, settings, i === 0 ? first : workspaceOf(doc)).sort(byPosition),
  }));
  if (flags.get('format') === 'json') {
    out.stdout(`${JSON.stringify(toJson(results), null, 2)}\n`);
  } else {
    out.stdout(formatText(results));
    out.stderr(summary(results));
  }
  return results.some((r) => r.diagnostics.some((d) => d.severity === 1)) ? 1 : 0;
}
