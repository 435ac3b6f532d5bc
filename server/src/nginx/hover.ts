// Hover: the directive's syntax, default, contexts, module, version and description (from
// @nginx/reference-lib at runtime), or a variable's module and description.
import type { Hover, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../service/types';
import type { NginxFile } from './ast';
import { blockContext, findNodeAt, variablesIn } from './ast';
import { DIRECTIVES, docUrl, lookupVariable, thirdPartyModule, type DirectiveVariant } from './data';
import { directiveReference, variableReference } from './reference';
import { loadableFacts, loadableSyntax } from './modules';
import { collectDefinedVariables, inferContext } from './validation';

function stripMarkdownSyntax(s: string): string {
  return s.replace(/\*`([^`]*)`\*/g, '$1').replace(/`([^`]*)`/g, '$1').replace(/\s+/g, ' ').trim();
}

export function directiveMarkdown(name: string, variants: DirectiveVariant[]): string {
  const parts: string[] = [];
  for (const v of variants) {
    const ref = directiveReference(v.module, name);
    const syntax = ref?.syntax.map((s) => `${name} ${stripMarkdownSyntax(s)};`) ?? [loadableSyntax(v) ?? `${name} …;`];
    const lines = ['```nginx', ...syntax, '```'];
    const facts: string[] = [];
    if (v.default) facts.push(`**Default:** \`${name} ${v.default.replace(/\s+/g, ' ').trim()};\``);
    facts.push(`**Context:** ${v.contexts.map((c) => (c === '*' ? 'any' : `\`${c}\``)).join(', ')}`);
    facts.push(`**Module:** [${v.module}](${docUrl(v)})${v.commercial ? ' (commercial subscription)' : ''}`);
    if (v.since) facts.push(`**Appeared in:** ${v.since}`);
    if (v.deprecated) facts.push(`**Obsolete since:** ${v.deprecated.since}${v.deprecated.use ? ` (use \`${v.deprecated.use}\`)` : ''}`);
    if (v.until) facts.push(`**Removed in:** ${v.until}`);
    facts.push(...loadableFacts(v));
    lines.push(facts.join('  \n'));
    if (ref?.description) lines.push('', ref.description);
    parts.push(lines.join('\n'));
  }
  return parts.join('\n\n---\n\n');
}

export function doHover(doc: TextDocument, file: NginxFile, pos: Position, _settings: ServiceSettings, startContext?: string): Hover | null {
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
          if (ref?.description) facts.push('', ref.description);
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
    const ctx = blockContext(at.ancestors, startContext ?? inferContext(file));
    const here = variants.filter((v) => v.contexts.includes(ctx) || v.contexts.includes('*'));
    return { contents: { kind: 'markdown', value: directiveMarkdown(d.name, here.length ? here : variants) }, range };
  } catch {
    return null;
  }
}
