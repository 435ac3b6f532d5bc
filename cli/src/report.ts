// The shapes `check` reports in: text (compiler style), json (LSP positions), sarif (SARIF 2.1.0
// for code scanning) and github (workflow commands that annotate a pull request).
import { relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, Range } from 'vscode-languageserver-types';
import type { DiagnosticData, RuleMeta } from '../../server/src/core/rules';
import { SEVERITY_NAME } from '../../server/src/core/rules';
import { escapeControls } from '../../server/src/core/text';
import { allRules } from '../../server/src/service/ruleTable';
import type { RuleSeverity } from '../../server/src/core/types';
import type { FileResult } from './checkCore';

export type Severity = Exclude<RuleSeverity, 'off'>;

export function severityName(d: Diagnostic): Severity {
  return SEVERITY_NAME[d.severity ?? 1] ?? 'error';
}

function oneLine(message: unknown): string {
  const m = typeof message === 'string' ? message : String(message);
  return escapeControls(m.indexOf('\n') < 0 ? m : m.replace(/\r?\n/g, ' '));
}

/** One line per problem, like a compiler: `file:line:col: severity: message [rule-id]`, 1-based. */
export function formatText(results: FileResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    for (const d of r.diagnostics) {
      const code = d.code === undefined ? '' : ` [${d.code}]`;
      lines.push(
        `${escapeControls(r.file)}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${severityName(d)}: ${oneLine(d.message)}${code}`,
      );
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export interface JsonProblem {
  file: string;
  range: Range;
  severity: Severity;
  code: string;
  message: string;
}

export function toJson(results: FileResult[]): JsonProblem[] {
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

// ---------------------------------------------------------------------------------------------
// GitHub Actions workflow commands: `::error file=F,line=L,col=C,endLine=..,endColumn=..,title=T::message`.

const GITHUB_LEVEL: Record<Severity, string> = { error: 'error', warning: 'warning', information: 'notice', hint: 'notice' };

/** A workflow command's message: `%`, CR and LF escaped. */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value: also `:` and `,`. */
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function formatGithub(results: FileResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    const file = escapeProperty(r.file.split(sep).join('/'));
    for (const d of r.diagnostics) {
      const { start, end } = d.range;
      const props = [
        `file=${file}`,
        `line=${start.line + 1}`,
        `col=${start.character + 1}`,
        `endLine=${end.line + 1}`,
        `endColumn=${end.character + 1}`,
      ];
      if (d.code !== undefined) props.push(`title=${escapeProperty(String(d.code))}`);
      out.push(`::${GITHUB_LEVEL[severityName(d)]} ${props.join(',')}::${escapeData(String(d.message))}`);
    }
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

// ---------------------------------------------------------------------------------------------
// SARIF 2.1.0 (OASIS): one run, the tool's rule table, one result per diagnostic.

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const RULES_DOC = 'https://example.invalid/proxy-tuner/docs/rules.md';

interface SarifRegion {
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

/** An LSP range as a SARIF region: 1-based lines and columns (UTF-16 units, SARIF's default), end column exclusive. */
function region(r: Range): SarifRegion {
  return { startLine: r.start.line + 1, startColumn: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

function sarifRule(r: RuleMeta): Record<string, unknown> {
  const rule: Record<string, unknown> = {
    id: r.id,
    name: r.id
      .split('/')[1]
      .replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
      .replace(/^[a-z]/, (c) => c.toUpperCase()),
    shortDescription: { text: r.title.replace(/`/g, '') },
    fullDescription: { text: r.why.replace(/`/g, '') },
    help: {
      text: `${r.why.replace(/`/g, '')}${r.fix ? `\nFix: ${r.fix.replace(/`/g, '')}` : ''}`,
      markdown: `${r.why}${r.fix ? `\n\n**Fix**: ${r.fix}` : ''}`,
    },
    defaultConfiguration: { level: SARIF_LEVEL[r.severity] },
    properties: {
      category: r.category,
      language: r.language,
      tags: [r.language, r.category],
      ...(r.since ? { since: r.since } : {}),
      ...(r.until ? { until: r.until } : {}),
    },
  };
  // the rule's own documentation link; rules without one point at the generated rules page
  rule.helpUri = r.docUrl || `${RULES_DOC}#${r.id.replace(/[^a-z0-9 -]/g, '')}`;
  return rule;
}

/** A file's location in SARIF: relative to the working folder (`%SRCROOT%`) when below it, else an absolute file URI. */
function artifactLocation(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const abs = resolve(cwd, file);
  const rel = relative(cwd, abs);
  if (rel && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel)) {
    return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
  }
  return { uri: pathToFileURL(abs).href };
}

export function toSarif(results: FileResult[], version: string, cwd = process.cwd()): Record<string, unknown> {
  const rules = allRules();
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const sarifResults: Record<string, unknown>[] = [];
  for (const r of results) {
    const location = artifactLocation(r.file, cwd);
    for (const d of r.diagnostics) {
      const id = d.code === undefined ? 'proxy-tuner/unknown' : String(d.code);
      const result: Record<string, unknown> = {
        ruleId: id,
        level: SARIF_LEVEL[severityName(d)],
        message: { text: oneLine(d.message) },
        locations: [{ physicalLocation: { artifactLocation: location, region: region(d.range) } }],
      };
      if (index.has(id)) result.ruleIndex = index.get(id);
      const fixes = (d.data as DiagnosticData | undefined)?.fixes ?? [];
      if (fixes.length) {
        result.fixes = fixes.map((fx) => ({
          description: { text: `${fx.title}${fx.safe ? '' : ' (changes behaviour: review it)'}` },
          artifactChanges: [
            {
              artifactLocation: location,
              replacements: fx.edits.map((e) => ({ deletedRegion: region(e.range), insertedContent: { text: e.newText } })),
            },
          ],
        }));
      }
      sarifResults.push(result);
    }
  }
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'proxy-tuner',
            version,
            semanticVersion: version,
            informationUri: 'https://example.invalid/proxy-tuner',
            rules: rules.map(sarifRule),
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(cwd.endsWith(sep) ? cwd : cwd + sep).href } },
        columnKind: 'utf16CodeUnits',
        results: sarifResults,
      },
    ],
  };
}
