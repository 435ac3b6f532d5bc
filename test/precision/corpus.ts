// The precision corpus (test/precision/corpus, issue 32) and what the linter finds on it at the
// default settings: each file judged alone, as a new user opens it, at the versions of the host's
// binaries (nginx 1.22.1, HAProxy 2.6.12, what `check` takes on this machine by default), with no
// facts of the linting machine (they would make the result depend on where it runs). Read by
// scripts/precision.mjs (`npm run precision`) and test/precision/precision.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createWorkspaceIndex, detectLanguage, validateInWorkspace } from '../../server/src/service/languageService';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import type { LanguageId, ServiceSettings } from '../../server/src/core/types';
import { RULE_TIERS } from '../../server/src/core/tiers';

export const CORPUS = join(__dirname, 'corpus');
export const JUDGEMENTS = join(__dirname, 'judgements.tsv');
export const VERSIONS = { nginx: '1.22.1', haproxy: '2.6.12' } as const;

export interface CorpusFile {
  /** `<language>/<folder>/<original name>` under CORPUS. */
  file: string;
  language: LanguageId;
  repo: string;
  path: string;
  commit: string;
  context?: string;
}

export interface Finding {
  file: string;
  language: LanguageId;
  rule: string;
  severity: 'error' | 'warning' | 'information' | 'hint';
  /** 1-based. */
  line: number;
  /** The line's text, trimmed, whitespace runs as one space: the judgement's key with file and rule. */
  text: string;
  message: string;
}

export type Verdict = 'useful' | 'noise' | 'wrong';

export interface Judgement {
  file: string;
  rule: string;
  text: string;
  verdict: Verdict;
  reason: string;
  line: number;
}

export const corpusPresent = (): boolean => existsSync(join(CORPUS, 'manifest.json'));

export function corpusFiles(): CorpusFile[] {
  const m = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as { files: CorpusFile[] };
  return m.files.map((f) => ({ ...f, file: `${f.language}/${f.file}` }));
}

const SEVERITY = ['error', 'error', 'warning', 'information', 'hint'] as const;
export const normalize = (line: string): string => line.trim().replace(/\s+/g, ' ');

/** Every diagnostic the service gives each corpus file at the default settings (or with the rule selection `lint`). */
export function corpusFindings(
  files = corpusFiles(),
  lint?: ServiceSettings['lint'],
  versions: { nginx: string; haproxy: string } = VERSIONS,
): { findings: Finding[]; lines: Record<LanguageId, number> } {
  const findings: Finding[] = [];
  const lines: Record<LanguageId, number> = { nginx: 0, haproxy: 0 };
  for (const f of files) {
    const path = join(CORPUS, f.file);
    const text = readFileSync(path, 'utf8');
    const language = detectLanguage(path, text);
    const doc = TextDocument.create(pathToFileURL(path).href, language, 1, text);
    const ws = createWorkspaceIndex({
      open: { get: (uri) => (uri === doc.uri ? doc : undefined), all: () => [doc] },
      fs: nodeFileSystem,
      incremental: false,
    });
    const settings: ServiceSettings = {
      nginxVersion: versions.nginx,
      haproxyVersion: versions.haproxy,
      lint: lint ?? { select: ['default'] },
    };
    const textLines = text.split('\n');
    lines[f.language] += textLines.length - (text.endsWith('\n') ? 1 : 0);
    for (const d of validateInWorkspace(doc, language, settings, ws)) {
      const line = d.range.start.line;
      findings.push({
        file: f.file,
        language: f.language,
        rule: String(d.code ?? d.source ?? ''),
        severity: SEVERITY[d.severity ?? 1],
        line: line + 1,
        text: normalize(textLines[line] ?? ''),
        message: d.message.split('\n')[0],
      });
    }
  }
  findings.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.rule < b.rule ? -1 : 1)));
  return { findings, lines };
}

/** The committed judgements: `file rule line verdict text reason`, tab-separated, `#` lines are comments. */
export function readJudgements(): Judgement[] {
  if (!existsSync(JUDGEMENTS)) return [];
  const rows = readFileSync(JUDGEMENTS, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  return rows.slice(1).map((l) => {
    const [file, rule, line, verdict, text, reason] = l.split('\t');
    return { file, rule, line: Number(line), verdict: verdict as Verdict, text, reason };
  });
}

export const keyOf = (x: { file: string; rule: string; text: string }): string => `${x.file}\0${x.rule}\0${x.text}`;

/** Warnings and information: what the judgement table covers (errors are measured against the binaries, hints are not shown as squiggles). */
export const judged = (f: Finding): boolean => f.severity === 'warning' || f.severity === 'information';

/**
 * The key of a finding's tier: the rule id, or `RULE@SEVERITY` for the findings a rule reports
 * below its row's severity when core/tiers.ts gives those a tier of their own.
 */
export function ruleKey(f: Finding): string {
  const variant = `${f.rule}@${f.severity}`;
  return variant in RULE_TIERS ? variant : f.rule;
}
