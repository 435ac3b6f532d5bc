// Hover: the directive's syntax, default, contexts, module, version and description (from
// @nginx/reference-lib at runtime), or a variable's module and description.
import type { Hover, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import type { NginxFile } from './ast';
import { blockContext, findNodeAt, variablesIn } from './ast';
import { DIRECTIVES, docUrl, lookupVariable, thirdPartyModule, type DirectiveVariant } from './data';
import { directiveReference, variableReference } from './reference';
import { loadableFacts, loadableSyntax } from './modules';
import { collectDefinedVariables } from './validation';
import { inferContext } from './inferContext';

function stripMarkdownSyntax(s: string): string {
  return s
    .replace(/\*`([^`]*)`\*/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The first paragraph of a reference text: up to the first blank line, and before a code
 * example when the paragraph runs long (`proxy_pass` starts with two of them).
 */
export function firstParagraph(md: string, long = 400): string {
  let p = md.split(/\n\s*\n/)[0]?.trim() ?? '';
  const fence = p.indexOf('```');
  if (fence > 0 && p.length > long)
    p =
      p
        .slice(0, fence)
        .trim()
        .replace(/[:,;]$/, '') + ' …';
  return p;
}

/** The versions line: "since 1.25.1", "obsolete since 1.19.7 (use X)", "removed in 1.25.1". */
export function versionsLine(v: DirectiveVariant): string | undefined {
  const parts: string[] = [];
  if (v.since) parts.push(`since ${v.since}`);
  if (v.deprecated) parts.push(`obsolete since ${v.deprecated.since}${v.deprecated.use ? ` (use \`${v.deprecated.use}\`)` : ''}`);
  if (v.until) parts.push(`removed in ${v.until}`);
  return parts.length ? parts.join('; ') : undefined;
}

// Facts first (syntax, default, context, versions, module), then the description's first
// paragraph and a link to the full reference: the whole page pushed the facts out of sight.
export function directiveMarkdown(name: string, variants: DirectiveVariant[]): string {
  const parts: string[] = [];
  for (const v of variants) {
    const ref = directiveReference(v.module, name);
    const syntax = ref?.syntax.map((s) => `${name} ${stripMarkdownSyntax(s)};`) ?? [loadableSyntax(v) ?? `${name} …;`];
    const lines = ['```nginx', ...syntax, '```'];
    const facts: string[] = [];
    if (v.default) facts.push(`**Default:** \`${name} ${v.default.replace(/\s+/g, ' ').trim()};\``);
    facts.push(`**Context:** ${v.contexts.map((c) => (c === '*' ? 'any' : `\`${c}\``)).join(', ')}`);
    const versions = versionsLine(v);
    if (versions) facts.push(`**Versions:** ${versions}`);
    facts.push(`**Module:** [${v.module}](${docUrl(v)})${v.commercial ? ' (commercial subscription)' : ''}`);
    facts.push(...loadableFacts(v));
    lines.push(facts.join('  \n'));
    const intro = ref?.description ? firstParagraph(ref.description) : '';
    if (intro) lines.push('', intro);
    lines.push('', `[More in the nginx reference](${docUrl(v)})`);
    parts.push(lines.join('\n'));
  }
  return parts.join('\n\n---\n\n');
}

export function doHover(doc: TextDocument, file: NginxFile, pos: Position, settings: ServiceSettings, startContext?: string): Hover | null {
  try {
    const offset = doc.offsetAt(pos);
    const at = findNodeAt(file, offset);
    if (!at.directive || !at.word || at.inRawBody || at.comment) return null;
    const d = at.directive;
    const range = { start: doc.positionAt(at.word.start), end: doc.positionAt(at.word.end) };
    // a variable under the cursor
    for (const r of variablesIn(at.word)) {
      if (offset >= r.start && offset <= r.end) {
        const info = lookupVariable(r.name);
        const vr = { start: doc.positionAt(r.start), end: doc.positionAt(r.end) };
        if (info) {
          const ref = variableReference(info.module, info.name);
          const title = info.prefix ? `$${info.name}<name>` : `$${info.name}`;
          const facts = [`**${title}** — ${info.module}${info.since ? `, appeared in ${info.since}` : ''}`];
          if (ref?.description) facts.push('', firstParagraph(ref.description));
          return { contents: { kind: 'markdown', value: facts.join('\n') }, range: vr };
        }
        if (collectDefinedVariables(file).has(r.name.toLowerCase())) {
          return { contents: { kind: 'markdown', value: `**$${r.name}** — defined in this file` }, range: vr };
        }
        return null;
      }
    }
    if (at.argIndex !== -1 || d.entry) return null;
    const variants = DIRECTIVES.get(d.name);
    if (!variants) {
      const tp = thirdPartyModule(d.name);
      return tp ? { contents: { kind: 'markdown', value: `**${d.name}** — third-party module: ${tp}` }, range } : null;
    }
    const ctx = blockContext(at.ancestors, startContext ?? inferContext(file, settings.nginxContext));
    const here = variants.filter((v) => v.contexts.includes(ctx) || v.contexts.includes('*'));
    return { contents: { kind: 'markdown', value: directiveMarkdown(d.name, here.length ? here : variants) }, range };
  } catch {
    return null;
  }
}
