// The rule engine shared by both languages. A rule is a row of data (see RuleMeta); the
// language modules produce Findings (offsets, a rule id, fixes) and this file turns them into
// LSP diagnostics: severity from the row or the user's settings, suppression comments, and the
// quick fixes carried in `Diagnostic.data` so that code actions need no second analysis.
import type { CodeAction, Diagnostic, DiagnosticSeverity, Position, TextEdit } from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageId, RuleSeverity, ServiceSettings } from './types';
import { versionInRange } from './version';
import { lineOffsetsOf, positionIn } from './positions';
import type { DiagnosticData } from '../../../protocol/fix';

export type RuleCategory = 'syntax' | 'correctness' | 'compatibility' | 'performance' | 'security' | 'style';

export interface RuleMeta<Id extends string = string> {
  /** Stable id, `<language>/<kebab-name>`, shown as the diagnostic code. */
  id: Id;
  language: LanguageId;
  category: RuleCategory;
  severity: Exclude<RuleSeverity, 'off'>;
  /** One line: what the rule flags. */
  title: string;
  /** Why it matters, in our own words. */
  why: string;
  /** The official documentation the rule rests on. */
  docUrl: string;
  /** Target versions the rule applies to: [since, until). Omitted bounds are open. */
  since?: string;
  until?: string;
  /** What the quick fix does, when there is one. */
  fix?: string;
  /**
   * The opt-in group the rule belongs to rather than the default set (`performance-deep`,
   * `pedantic`, `hardening`): findings that are right but rarely worth acting on for a deployed
   * config. Data for the tier mechanism, which decides what selecting a group does.
   */
  group?: 'performance-deep' | 'pedantic' | 'hardening';
}

export interface FixEdit {
  start: number;
  end: number;
  newText: string;
}

export interface Fix {
  title: string;
  edits: FixEdit[];
  /** Safe fixes are applied by `source.fixAll` and `check --fix`. */
  safe: boolean;
}

/**
 * What a check reports. `Id` is the language's union of registered rule ids (NginxRuleId,
 * HaproxyRuleId in languages/<lang>/rules.ts), so tsc refuses an id that has no row.
 */
export interface Finding<Id extends string = string> {
  ruleId: Id;
  start: number;
  end: number;
  message: string;
  fixes?: Fix[];
  /** Overrides the rule's severity for this finding (e.g. a hint-level variant). */
  severity?: Exclude<RuleSeverity, 'off'>;
  unnecessary?: boolean;
  deprecated?: boolean;
}

export type { DiagnosticData, FixData } from '../../../protocol/fix';

const SEVERITY: Record<Exclude<RuleSeverity, 'off'>, DiagnosticSeverity> = {
  error: 1,
  warning: 2,
  information: 3,
  hint: 4,
};

export const SEVERITY_NAME: Record<number, Exclude<RuleSeverity, 'off'>> = {
  1: 'error',
  2: 'warning',
  3: 'information',
  4: 'hint',
};

export const DISABLE_COMMENT = 'proxy-tuner-disable-next-line';

/**
 * The `source` of the diagnostics whose codes are rule ids: the service's own, and the local
 * binaries' (`nginx -V` module notes, the messages of a real `nginx -t` / `haproxy -c` run).
 */
export const RULE_SOURCES: ReadonlySet<string> = new Set(['proxy-tuner', 'nginx -V', 'nginx -t', 'haproxy -c']);

interface Suppression {
  line: number; // the line the comment suppresses
  ids: Set<string>;
  reason: string;
  commentLine: number;
  used: boolean;
}

const LIBRARY_POSITION_AT = TextDocument.create('file:///', 'plaintext', 0, '').positionAt;
/** Per library document, the line table of its last text (several registries ask for positions). */
const linePositions = new WeakMap<TextDocument, { text: string; lineOffsets: number[] }>();

/** `doc.positionAt` as a function, sharing one line table per document text. */
export function positionsOf(doc: TextDocument): (offset: number) => Position {
  if (doc.positionAt !== LIBRARY_POSITION_AT) return (offset) => doc.positionAt(offset);
  const text = doc.getText();
  let p = linePositions.get(doc);
  if (!p || p.text !== text) linePositions.set(doc, (p = { text, lineOffsets: lineOffsetsOf(text) }));
  const { lineOffsets } = p;
  return (offset) => positionIn(text, lineOffsets, offset);
}

/** The suppression comments of one text, as found in it (each call hands out fresh `Suppression`s). */
interface ScannedSuppression {
  ids: readonly string[];
  reason: string;
  commentLine: number;
}

/**
 * Per document, the last text scanned: every registry's `toDiagnostics` and `finalizeDiagnostics`
 * ask for the same document's comments (a scan of the whole text each time otherwise).
 */
const scanned = new WeakMap<TextDocument, { text: string; found: ScannedSuppression[] }>();
const NONE_SCANNED: ScannedSuppression[] = [];

function scanSuppressions(doc: TextDocument): ScannedSuppression[] {
  const text = doc.getText();
  const hit = scanned.get(doc);
  if (hit && hit.text === text) return hit.found;
  let found = NONE_SCANNED;
  if (text.indexOf(DISABLE_COMMENT) >= 0) {
    found = [];
    const re = /#\s*proxy-tuner-disable-next-line\b([^\n]*)/g;
    let m: RegExpExecArray | null;
    const positionAt = positionsOf(doc);
    while ((m = re.exec(text))) {
      const rest = m[1];
      const dash = rest.indexOf('--');
      const idsPart = dash >= 0 ? rest.slice(0, dash) : rest;
      const reason = dash >= 0 ? rest.slice(dash + 2).trim() : '';
      found.push({ ids: idsPart.split(/[\s,]+/).filter(Boolean), reason, commentLine: positionAt(m.index).line });
    }
  }
  scanned.set(doc, { text, found });
  return found;
}

/** `# proxy-tuner-disable-next-line RULE[, RULE] -- reason` comments, by suppressed line. */
export function findSuppressions(doc: TextDocument): Map<number, Suppression> {
  const out = new Map<number, Suppression>();
  for (const s of scanSuppressions(doc)) {
    out.set(s.commentLine + 1, { line: s.commentLine + 1, ids: new Set(s.ids), reason: s.reason, commentLine: s.commentLine, used: false });
  }
  return out;
}

export class RuleRegistry<Id extends string = string> {
  private readonly rules = new Map<string, RuleMeta<Id>>();

  constructor(rows: Iterable<RuleMeta<Id>> = []) {
    for (const r of rows) this.add(r);
  }

  add(rule: RuleMeta<Id>): void {
    if (this.rules.has(rule.id)) throw new Error(`duplicate rule id ${rule.id}`);
    this.rules.set(rule.id, rule);
  }

  get(id: string): RuleMeta<Id> | undefined {
    return this.rules.get(id);
  }

  all(): RuleMeta<Id>[] {
    return [...this.rules.values()];
  }

  /** Whether a rule is on for the target version and the user's settings. */
  isActive(id: string, settings: ServiceSettings): boolean {
    const rule = this.rules.get(id);
    if (!rule) return true;
    if (settings.rules?.[id] === 'off') return false;
    const target = rule.language === 'nginx' ? settings.nginxVersion : settings.haproxyVersion;
    return versionInRange(target, rule.since, rule.until);
  }

  /**
   * Findings to diagnostics: applies settings and suppression comments. Comments without a
   * reason are reported once per document by `finalizeDiagnostics`, not here, because several
   * registries (the language module's, the tuning rules') each produce diagnostics.
   */
  toDiagnostics(doc: TextDocument, findings: readonly Finding<Id>[], settings: ServiceSettings, language: LanguageId): Diagnostic[] {
    const suppressions = findSuppressions(doc);
    const out: Diagnostic[] = [];
    // whether a rule is on depends on the rule and the settings only: once per rule id, not per finding
    const active = new Map<string, boolean>();
    const positionAt = findings.length ? positionsOf(doc) : undefined;
    for (let i = 0; i < findings.length; i++) {
      const f = findings[i];
      const id = f.ruleId;
      let on = active.get(id);
      if (on === undefined) active.set(id, (on = this.isActive(id, settings)));
      if (!on) continue;
      const rule = this.rules.get(id);
      const start = positionAt!(f.start);
      const end = positionAt!(Math.max(f.start, f.end));
      if (suppressions.size) {
        const sup = suppressions.get(start.line);
        if (sup && (sup.ids.has(id) || sup.ids.has('all'))) {
          sup.used = true;
          continue;
        }
      }
      const configured = settings.rules?.[id];
      const sev = configured && configured !== 'off' ? configured : (f.severity ?? rule?.severity ?? 'warning');
      const d: Diagnostic = {
        range: { start, end },
        severity: SEVERITY[sev],
        code: id,
        source: 'proxy-tuner',
        message: f.message,
      };
      if (rule?.docUrl) d.codeDescription = { href: rule.docUrl };
      if (f.unnecessary || f.deprecated) d.tags = f.unnecessary && f.deprecated ? [1, 2] : f.unnecessary ? [1] : [2];
      if (f.fixes?.length && settings.fixData !== false) {
        const data: DiagnosticData = {
          fixes: f.fixes.map((fx) => ({
            title: fx.title,
            safe: fx.safe,
            edits: fx.edits.map((e) => ({
              range: { start: positionAt!(e.start), end: positionAt!(e.end) },
              newText: e.newText,
            })),
          })),
        };
        d.data = data;
      }
      out.push(d);
    }
    return out;
  }

  /**
   * What `toDiagnostics` does, for diagnostics made elsewhere (the `nginx -V` module notes, the
   * `nginx -t` / `haproxy -c` messages): a registered code is dropped when the user turned it
   * off, outside its versions or under a suppression comment on its line, takes the user's
   * severity, and gets its row's documentation link. Other diagnostics pass as they are.
   */
  applyTo(doc: TextDocument, diagnostics: readonly Diagnostic[], settings: ServiceSettings): Diagnostic[] {
    if (!diagnostics.length) return [];
    const suppressions = findSuppressions(doc);
    const out: Diagnostic[] = [];
    for (const d of diagnostics) {
      const id = typeof d.code === 'string' ? d.code : undefined;
      const rule = id === undefined ? undefined : this.rules.get(id);
      if (!rule || id === undefined) {
        out.push(d);
        continue;
      }
      if (!this.isActive(id, settings)) continue;
      const sup = suppressions.get(d.range.start.line);
      if (sup && (sup.ids.has(id) || sup.ids.has('all'))) continue;
      const configured = settings.rules?.[id];
      const next: Diagnostic = { ...d };
      if (configured && configured !== 'off') next.severity = SEVERITY[configured];
      if (rule.docUrl && !next.codeDescription) next.codeDescription = { href: rule.docUrl };
      out.push(next);
    }
    return out;
  }
}

/** The diagnostic code of a suppression comment that gives no reason. */
export function suppressionWithoutReasonId<L extends LanguageId>(language: L): `${L}/suppression-without-reason` {
  return `${language}/suppression-without-reason`;
}

/** The code of the notice on a document too large to analyse while typing (service/largeDocument.ts). */
export function largeDocumentId<L extends LanguageId>(language: L): `${L}/large-document` {
  return `${language}/large-document`;
}

/** Rows of the rules the engine itself reports, one per language. */
export function engineRules<L extends LanguageId>(language: L): RuleMeta<`${L}/suppression-without-reason`>[] {
  return [
    {
      id: suppressionWithoutReasonId(language),
      language,
      category: 'style',
      severity: 'information',
      title: 'A `proxy-tuner-disable-next-line` comment gives no reason',
      why: 'Turning a rule off for a line is fine when the next reader learns why. The comment takes the rule ids, then `--` and a reason: the reason is what keeps a silenced warning from hiding a real problem later.',
      docUrl: '',
      fix: 'None: write the reason after `--`.',
    },
  ];
}

/** The row of the notice on a document too large to analyse while typing, one per language. */
export function largeDocumentRules<L extends LanguageId>(language: L): RuleMeta<`${L}/large-document`>[] {
  return [
    {
      id: largeDocumentId(language),
      language,
      category: 'style',
      severity: 'information',
      title: 'A document too large to analyse while typing gets a syntax check only',
      why: "Over 2 MB a document is not parsed in the editor (a 20 MB file takes seconds and hundreds of MB): the server checks only its braces, quotes and unterminated statements in one pass, reported as this language's `syntax` rule, and turns rules, completion, hover and navigation off for it. `proxy-tuner check` still analyses the whole file.",
      docUrl: '',
    },
  ];
}

/**
 * The last pass over a document's diagnostics, run once by the facade after every registry:
 * drops any suppression report a registry still produced and adds exactly one per comment
 * that gives no reason (honouring a user's severity setting, or `off`, for that rule).
 */
export function finalizeDiagnostics(
  doc: TextDocument,
  language: LanguageId,
  diagnostics: Diagnostic[],
  settings: ServiceSettings = {},
): Diagnostic[] {
  const id = suppressionWithoutReasonId(language);
  const out = diagnostics.filter((d) => d.code !== id);
  const configured = settings.rules?.[id];
  if (configured === 'off') return out;
  for (const sup of findSuppressions(doc).values()) {
    if (sup.reason) continue;
    const line = doc.getText({ start: { line: sup.commentLine, character: 0 }, end: { line: sup.commentLine + 1, character: 0 } });
    out.push({
      range: {
        start: { line: sup.commentLine, character: 0 },
        end: { line: sup.commentLine, character: line.replace(/\r?\n$/, '').length },
      },
      severity: SEVERITY[configured ?? 'information'],
      code: id,
      source: 'proxy-tuner',
      message: `Say why the rule is turned off: "# ${DISABLE_COMMENT} RULE -- reason".`,
    });
  }
  return out;
}

/** Quick-fix code actions carried by the diagnostics (plus a "disable for this line" action). */
export function quickFixes(doc: TextDocument, diagnostics: Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of diagnostics) {
    const data = d.data as DiagnosticData | undefined;
    data?.fixes?.forEach((fx, i) => {
      actions.push({
        title: fx.title,
        kind: 'quickfix',
        diagnostics: [d],
        isPreferred: i === 0 && fx.safe,
        edit: { changes: { [doc.uri]: fx.edits } },
      });
    });
    if (
      typeof d.code === 'string' &&
      d.source !== undefined &&
      RULE_SOURCES.has(d.source) &&
      !d.code.endsWith('/suppression-without-reason')
    ) {
      const line = d.range.start.line;
      const lineText = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
      const indent = /^[ \t]*/.exec(lineText)?.[0] ?? '';
      actions.push({
        title: `Disable ${d.code} for this line`,
        kind: 'quickfix',
        diagnostics: [d],
        edit: {
          changes: {
            [doc.uri]: [
              {
                range: { start: { line, character: 0 }, end: { line, character: 0 } },
                newText: `${indent}# ${DISABLE_COMMENT} ${d.code} -- reason\n`,
              },
            ],
          },
        },
      });
    }
  }
  return actions;
}

/** Every safe fix, without overlapping edits (first come, first kept), as one edit list. */
export function safeFixEdits(diagnostics: Diagnostic[]): TextEdit[] {
  const chosen: TextEdit[] = [];
  const cmp = (a: { line: number; character: number }, b: { line: number; character: number }) =>
    a.line - b.line || a.character - b.character;
  for (const d of diagnostics) {
    const data = d.data as DiagnosticData | undefined;
    const fx = data?.fixes?.find((f) => f.safe);
    if (!fx) continue;
    const overlaps = fx.edits.some((e) => chosen.some((c) => cmp(e.range.start, c.range.end) < 0 && cmp(c.range.start, e.range.end) < 0));
    if (!overlaps) chosen.push(...fx.edits);
  }
  return chosen;
}

/** Which fixes a batch fix applies: the safe ones (the default), also unsafe ones, only some rules'. */
export interface FixSelection {
  /** Also fixes that change behaviour (ruff's `--unsafe-fixes`). */
  unsafe?: boolean;
  /** Only these rules' fixes; a rule named here has its first fix applied, safe or not. */
  rules?: ReadonlySet<string>;
}

/**
 * The fixes a selection picks from the diagnostics, without overlapping edits (first come, first
 * kept), as one edit list. With no selection this is `safeFixEdits`.
 */
export function selectedFixEdits(diagnostics: Diagnostic[], select: FixSelection = {}): TextEdit[] {
  if (!select.unsafe && !select.rules) return safeFixEdits(diagnostics);
  const chosen: TextEdit[] = [];
  const cmp = (a: { line: number; character: number }, b: { line: number; character: number }) =>
    a.line - b.line || a.character - b.character;
  for (const d of diagnostics) {
    const data = d.data as DiagnosticData | undefined;
    if (!data?.fixes?.length) continue;
    let fx: NonNullable<DiagnosticData['fixes']>[number] | undefined;
    if (select.rules) {
      if (typeof d.code !== 'string' || !select.rules.has(d.code)) continue;
      fx = data.fixes[0];
    } else fx = data.fixes.find((f) => f.safe) ?? data.fixes[0];
    if (!fx) continue;
    const overlaps = fx.edits.some((e) => chosen.some((c) => cmp(e.range.start, c.range.end) < 0 && cmp(c.range.start, e.range.end) < 0));
    if (!overlaps) chosen.push(...fx.edits);
  }
  return chosen;
}

/** Applies LSP text edits to a text (edits must not overlap). */
export function applyEdits(doc: TextDocument, edits: TextEdit[]): string {
  const text = doc.getText();
  const sorted = edits
    .map((e) => ({ s: doc.offsetAt(e.range.start), e: doc.offsetAt(e.range.end), t: e.newText }))
    .sort((a, b) => b.s - a.s || b.e - a.e);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.s) + e.t + out.slice(e.e);
  return out;
}
