// `proxy-tuner format`: the language server's formatter from a shell, with prettier's
// conventions: FILE... prints the formatted text, --check says which files would change (exit 1),
// --write rewrites them in place (atomically, mode kept), `-` reads stdin and writes stdout.
// Indentation: --indent, else the project config's `format.indent`, else 4 spaces.
import { readFileSync } from 'node:fs';
import { escapeControls, notTextReason } from '../../server/src/core/text';
import { formatText } from '../../server/src/service/languageService';
import type { LanguageId } from '../../server/src/core/types';
import { parseArgs, UsageError, type FlagSpec } from './args';
import { documentOf } from './checkCore';
import { expandFiles, ProjectConfigs, readConfigFile, writeAtomic } from './files';
import type { Output } from './check';

export const FORMAT_USAGE = `Usage: proxy-tuner format [--check | --list-different | --write] [options] FILE|FOLDER... | -

Formats nginx and HAProxy configs as the editor does: one statement per line, indented by
block (nginx) or section (HAProxy), words, comments and quoted text kept as written.

Options:
  --check                 print nothing but the files that would change ([warn] FILE on stderr);
                          exit 1 when there is one
  -l, --list-different    print the names of the files that would change; exit 1 when there is one
  --write                 rewrite changed files in place (atomically, file mode kept)
  --language L            nginx or haproxy: every FILE is in that language
  --indent N|tab          indentation (default: the project config's "format.indent", else 4)
  --stdin-filename NAME   name for '-' (tells the language and finds the project config)
  -h, --help              show this help

Without --check, --list-different or --write the formatted text goes to stdout.
Exit status: 0 done (or everything formatted), 1 a file would change (--check, -l),
2 bad usage, a file that cannot be read or written, or a file with syntax errors (left as it is).
`;

const SPEC: Record<string, FlagSpec> = {
  check: { value: false },
  'list-different': { value: false, aliases: ['-l'] },
  write: { value: false },
  language: { value: true, choices: ['nginx', 'haproxy'] },
  indent: { value: true },
  'stdin-filename': { value: true },
  help: { value: false, aliases: ['-h'] },
};

const processOutput: Output = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

export async function formatCommand(argv: string[], out: Output = processOutput): Promise<number> {
  const fail = (message: string, usage = false) => {
    out.stderr(`proxy-tuner format: ${message}\n${usage ? `\n${FORMAT_USAGE}` : ''}`);
    return 2;
  };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(argv, SPEC);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return fail(err.message, true);
  }
  const { flags, positionals: args } = parsed;
  if (flags.has('help')) {
    out.stdout(FORMAT_USAGE);
    return 0;
  }
  if (args.length === 0) return fail('no file given (use - for stdin)', true);
  const modes = ['check', 'list-different', 'write'].filter((m) => flags.has(m));
  if (modes.length > 1) return fail(`--${modes[0]} and --${modes[1]} do not go together`);
  const mode = (modes[0] ?? 'print') as 'check' | 'list-different' | 'write' | 'print';
  if (args.filter((a) => a === '-').length > 1) return fail('stdin (-) can be read once');
  if (mode === 'write' && args.includes('-')) return fail('--write cannot write stdin back: leave out --write to get the text on stdout');
  let indent: { tabSize: number; insertSpaces: boolean } | undefined;
  const indentFlag = flags.get('indent') as string | undefined;
  if (indentFlag !== undefined) {
    if (indentFlag === 'tab') indent = { tabSize: 4, insertSpaces: false };
    else if (/^\d+$/.test(indentFlag) && Number(indentFlag) >= 1 && Number(indentFlag) <= 16)
      indent = { tabSize: Number(indentFlag), insertSpaces: true };
    else return fail(`--indent must be a number of spaces (1-16) or 'tab' (got '${indentFlag}')`);
  }
  const language = flags.get('language') as LanguageId | undefined;
  const configs = new ProjectConfigs();
  let expanded;
  try {
    expanded = expandFiles(
      args.filter((a) => a !== '-'),
      configs,
    );
  } catch (err) {
    return fail((err as Error).message);
  }
  if (expanded.missing.length) {
    for (const m of expanded.missing) out.stderr(`proxy-tuner format: ${m.arg}: ${m.reason}\n`);
    return 2;
  }
  const inputs: { file: string; text?: string; stdin?: boolean }[] = [];
  for (const a of args) {
    if (a !== '-') continue;
    try {
      inputs.push({ file: (flags.get('stdin-filename') as string | undefined) ?? '<stdin>', text: readFileSync(0, 'utf8'), stdin: true });
    } catch (err) {
      return fail(`cannot read stdin: ${(err as Error).message}`);
    }
  }
  inputs.push(...expanded.files.map((file) => ({ file })));

  let failed = false;
  const different: string[] = [];
  for (const input of inputs) {
    let text = input.text;
    if (text === undefined) {
      try {
        text = readConfigFile(input.file);
      } catch (err) {
        out.stderr(`[error] ${input.file}: ${(err as Error).message}\n`);
        failed = true;
        continue;
      }
    }
    const notText = notTextReason(text);
    if (notText) {
      out.stderr(`[error] ${escapeControls(input.file)}: ${notText}\n`);
      failed = true;
      continue;
    }
    let options = indent;
    if (!options) {
      try {
        options = configs.for(input.file)?.format;
      } catch (err) {
        return fail((err as Error).message);
      }
    }
    const lang = documentOf(input.file, text, language).language;
    const r = formatText(text, lang, options ?? { tabSize: 4, insertSpaces: true });
    if ('error' in r) {
      out.stderr(`[error] ${escapeControls(input.file)}:${r.line + 1}:${r.character + 1}: not formatted: ${escapeControls(r.error)}\n`);
      failed = true;
      if (mode === 'print') out.stdout(text);
      continue;
    }
    const changed = r.text !== text;
    if (mode === 'print') out.stdout(r.text);
    else if (mode === 'check') {
      if (changed) {
        different.push(input.file);
        out.stderr(`[warn] ${input.file}\n`);
      }
    } else if (mode === 'list-different') {
      if (changed) {
        different.push(input.file);
        out.stdout(`${input.file}\n`);
      }
    } else if (changed) {
      try {
        writeAtomic(input.file, r.text);
      } catch (err) {
        out.stderr(`[error] ${input.file}: cannot write: ${(err as Error).message}\n`);
        failed = true;
        continue;
      }
      out.stdout(`${input.file}\n`);
    } else out.stdout(`${input.file} (unchanged)\n`);
  }
  if (mode === 'check') {
    if (different.length)
      out.stderr(
        `[warn] ${different.length === 1 ? 'A file is' : `${different.length} files are`} not formatted. Run proxy-tuner format --write to fix.\n`,
      );
    else if (!failed) out.stderr(`${inputs.length === 1 ? 'The file is' : `All ${inputs.length} files are`} formatted.\n`);
  }
  if (failed) return 2;
  return different.length ? 1 : 0;
}
