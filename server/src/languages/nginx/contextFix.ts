// Quick fixes for a directive in the wrong block (`nginx/not-allowed-here`): remove it, or move it
// into a block of the file where nginx allows it (`worker_connections` from `http` into `events`).
// Computed when the editor asks for code actions, from the current tree, so a moved block's
// offsets are never stale.
import type { CodeAction, Diagnostic, Range, TextEdit } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import { childContext, walk, type Directive, type NginxFile } from './ast';
import { DIRECTIVES, variantInVersion } from './data';
import { inferContext } from './inferContext';

const RULE = 'nginx/not-allowed-here';

function overlaps(a: Range, b: Range): boolean {
  const before = (x: Range['start'], y: Range['start']) => x.line < y.line || (x.line === y.line && x.character < y.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/** The line span of a directive: its whole lines when nothing else stands on them, else its own text. */
function lineSpan(text: string, d: Directive): { start: number; end: number } {
  let s = d.start;
  while (s > 0 && (text[s - 1] === ' ' || text[s - 1] === '\t')) s--;
  let e = d.end;
  while (e < text.length && (text[e] === ' ' || text[e] === '\t')) e++;
  const wholeStart = s === 0 || text[s - 1] === '\n';
  const wholeEnd = e >= text.length || text[e] === '\n' || text[e] === '\r';
  if (!wholeStart || !wholeEnd) return { start: d.start, end: d.end };
  if (text.startsWith('\r\n', e)) e += 2;
  else if (e < text.length) e++;
  return { start: s, end: e };
}

function indentOf(text: string, offset: number): string {
  let s = offset;
  while (s > 0 && text[s - 1] !== '\n') s--;
  return /^[ \t]*/.exec(text.slice(s, offset))![0];
}

/** The remove and move fixes for the wrong-context diagnostics in `range`. */
export function contextFixes(
  doc: TextDocument,
  file: NginxFile,
  range: Range,
  diagnostics: Diagnostic[],
  settings: ServiceSettings,
): CodeAction[] {
  const wanted = diagnostics.filter((d) => d.code === RULE && overlaps(d.range, range));
  if (!wanted.length) return [];
  const text = file.text;
  // every directive with the context it is read in, and every block with the context of its body
  const where: { d: Directive; ctx: string; body?: string }[] = [];
  const top = inferContext(file, settings.nginxContext);
  const ctxOf = (ancestors: readonly Directive[]) => ancestors.reduce((c, a) => childContext(c, a.name), top);
  walk(file, (d, ancestors) => {
    if (d.entry) return false;
    const ctx = ctxOf(ancestors);
    where.push({ d, ctx, body: d.block && !d.rawBody ? childContext(ctx, d.name) : undefined });
    return undefined;
  });
  const out: CodeAction[] = [];
  for (const diag of wanted) {
    const at = doc.offsetAt(diag.range.start);
    const hit = where.find((w) => w.d.nameStart === at);
    if (!hit) continue;
    const d = hit.d;
    const span = lineSpan(text, d);
    const remove: TextEdit = { range: { start: doc.positionAt(span.start), end: doc.positionAt(span.end) }, newText: '' };
    out.push({
      title: `Remove "${d.name}" (not allowed in ${hit.ctx})`,
      kind: 'quickfix',
      diagnostics: [diag],
      edit: { changes: { [doc.uri]: [remove] } },
    });
    // a block of this file where some variant of the directive is allowed at the target version
    const allowed = new Set(
      (DIRECTIVES.get(d.name) ?? []).filter((v) => variantInVersion(v, settings.nginxVersion) === 'yes').flatMap((v) => v.contexts),
    );
    const target = where.find(
      (w) => w.body !== undefined && w.d !== d && w.d.block?.closed && allowed.has(w.body) && !(d.start <= w.d.start && w.d.end <= d.end),
    );
    if (!target || !target.d.block) continue;
    const own = text.slice(d.start, d.end);
    const indent = `${indentOf(text, target.d.start)}    `;
    const brace = target.d.block.start + 1;
    // an empty `events {}` gets its closing brace on a line of its own
    const after = text[brace] === '}' ? `\n${indentOf(text, target.d.start)}` : '';
    const insert: TextEdit = { range: { start: doc.positionAt(brace), end: doc.positionAt(brace) }, newText: `\n${indent}${own}${after}` };
    out.push({
      title: `Move "${d.name}" into the ${target.body} block${target.d.args.length ? ` (${target.d.name} ${target.d.args.map((a) => a.value).join(' ')})` : ''}`,
      kind: 'quickfix',
      diagnostics: [diag],
      edit: { changes: { [doc.uri]: target.d.block.start < d.start ? [insert, remove] : [remove, insert] } },
    });
  }
  return out;
}
