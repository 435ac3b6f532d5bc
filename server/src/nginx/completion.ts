// Completion: directives valid in the enclosing block (snippets from the syntax), values of
// flag/enum directives, and `$variables` (built-in, prefixes and the file's own).
import type { CompletionItem, CompletionList, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../service/types';
import type { NginxFile } from './ast';
import { blockContext, findNodeAt } from './ast';
import { DIRECTIVES, VARIABLES, VARIABLE_PREFIXES, variantInVersion, type DirectiveVariant } from './data';
import { directiveReference } from './reference';
import { collectDefinedVariables, inferContext } from './validation';

const KIND_KEYWORD = 14;
const KIND_PROPERTY = 10;
const KIND_VALUE = 12;
const KIND_VARIABLE = 6;
const FORMAT_SNIPPET = 2;

// The directive tables are static, so a snippet depends only on (name, variant): built once.
const snippetCache = new WeakMap<DirectiveVariant, Map<string, string>>();

/** A snippet for a directive from its first syntax string: required placeholders, choices for flags. */
export function directiveSnippet(name: string, v: DirectiveVariant): string {
  let byName = snippetCache.get(v);
  if (!byName) snippetCache.set(v, (byName = new Map()));
  let s = byName.get(name);
  if (s === undefined) byName.set(name, (s = buildSnippet(name, v)));
  return s;
}

function buildSnippet(name: string, v: DirectiveVariant): string {
  if (v.flag) return `${name} \${1|on,off|};`;
  if (v.values && v.values.length <= 12 && v.max === 1) return `${name} \${1|${v.values.join(',')}|};`;
  const ref = directiveReference(v.module, name);
  const args: string[] = [];
  if (ref?.syntax[0]) {
    // required part: drop optional groups, keep the first `min` words
    const required = ref.syntax[0].replace(/\[[^\[\]]*(\[[^\[\]]*\][^\[\]]*)*\]/g, ' ').replace(/`\{\.\.\.\}`/g, ' ').replace(/\.\.\./g, ' ');
    const words = required.split(/\s+/).filter(Boolean).slice(0, Math.max(v.min, 0));
    words.forEach((w, i) => {
      const label = w.replace(/\*`([^`]*)`\*/g, '$1').replace(/`([^`]*)`/g, '$1').replace(/[$}|\\]/g, '');
      args.push(`\${${i + 1}:${label || 'value'}}`);
    });
  } else {
    for (let i = 0; i < v.min; i++) args.push(`\${${i + 1}:value}`);
  }
  const head = args.length ? `${name} ${args.join(' ')}` : name;
  if (v.block) return `${head} {\n\t$0\n}`;
  return `${head};`;
}

export function doComplete(doc: TextDocument, file: NginxFile, pos: Position, settings: ServiceSettings, startContext?: string): CompletionList {
  const empty: CompletionList = { isIncomplete: false, items: [] };
  try {
    const offset = doc.offsetAt(pos);
    const text = doc.getText();
    const at = findNodeAt(file, offset);
    if (at.comment || at.inRawBody) return empty;
    const ctx = blockContext(at.ancestors, startContext ?? inferContext(file));
    const word = at.word;
    // `$` variables
    if (word && offset > word.start) {
      const before = text.slice(word.start, offset);
      const m = /\$\{?([A-Za-z0-9_]*)$/.exec(before);
      if (m) return variableItems(doc, file, offset - m[1].length, offset);
    }
    const d = at.directive;
    let argIndex = at.argIndex;
    if (d && argIndex === undefined) argIndex = d.args.filter((a) => a.end < offset).length;
    if (!d || argIndex === -1) {
      if (ctx.startsWith('block:') || ['map', 'geo', 'types', 'split_clients', 'match', 'charset_map'].includes(ctx)) return empty;
      const start = word ? word.start : offset;
      return directiveItems(doc, ctx, settings, start, word ? Math.max(offset, word.end) : offset);
    }
    // argument values of flag/enum directives
    const variants = (DIRECTIVES.get(d.name) ?? []).filter((v) => v.contexts.includes(ctx) || v.contexts.includes('*'));
    const values = new Set<string>();
    for (const v of variants) {
      if (v.flag) ['on', 'off'].forEach((x) => values.add(x));
      else if (v.values) v.values.forEach((x) => values.add(x));
      else v.argTypes?.[argIndex ?? 0]?.values.forEach((x) => values.add(x));
    }
    const range = word
      ? { start: doc.positionAt(word.start), end: doc.positionAt(word.end) }
      : { start: doc.positionAt(offset), end: doc.positionAt(offset) };
    return {
      isIncomplete: false,
      items: [...values].map((v) => ({ label: v, kind: KIND_VALUE, textEdit: { range, newText: v } })),
    };
  } catch {
    return empty;
  }
}

// Which variant each directive offers in a (context, target version): a pure function of the
// static tables, so computed once per pair instead of on every request.
const offeredCache = new Map<string, Array<[string, DirectiveVariant]>>();

function offeredDirectives(ctx: string, version: string | undefined): Array<[string, DirectiveVariant]> {
  const key = `${ctx}\u0000${version ?? ''}`;
  let list = offeredCache.get(key);
  if (!list) {
    list = [];
    for (const [name, variants] of DIRECTIVES) {
      const v = variants.find((x) => (x.contexts.includes(ctx) || x.contexts.includes('*')) && variantInVersion(x, version) === 'yes');
      if (v) list.push([name, v]);
    }
    if (offeredCache.size > 256) offeredCache.clear();
    offeredCache.set(key, list);
  }
  return list;
}

function directiveItems(doc: TextDocument, ctx: string, settings: ServiceSettings, start: number, end: number): CompletionList {
  const range = { start: doc.positionAt(start), end: doc.positionAt(end) };
  const items: CompletionItem[] = [];
  for (const [name, v] of offeredDirectives(ctx, settings.nginxVersion)) {
    items.push({
      label: name,
      kind: v.block ? KIND_KEYWORD : KIND_PROPERTY,
      detail: v.module + (v.commercial ? ' (commercial)' : ''),
      insertTextFormat: FORMAT_SNIPPET,
      textEdit: { range, newText: directiveSnippet(name, v) },
      data: { language: 'nginx', directive: name, module: v.module },
      ...(v.deprecated ? { tags: [1 as const] } : {}),
    });
  }
  return { isIncomplete: false, items };
}

function variableItems(doc: TextDocument, file: NginxFile, start: number, end: number): CompletionList {
  const range = { start: doc.positionAt(start), end: doc.positionAt(end) };
  const items: CompletionItem[] = [];
  const seen = new Set<string>();
  for (const name of collectDefinedVariables(file)) {
    seen.add(name);
    items.push({ label: `$${name}`, filterText: name, kind: KIND_VARIABLE, detail: 'defined in this file', textEdit: { range, newText: name } });
  }
  for (const [name, info] of VARIABLES) {
    if (seen.has(name)) continue;
    items.push({ label: `$${name}`, filterText: name, kind: KIND_VARIABLE, detail: info.module, textEdit: { range, newText: name } });
  }
  for (const p of VARIABLE_PREFIXES) {
    items.push({
      label: `$${p.name}…`,
      filterText: p.name,
      kind: KIND_VARIABLE,
      detail: `${p.module} (prefix)`,
      insertTextFormat: FORMAT_SNIPPET,
      textEdit: { range, newText: `${p.name}\${1:name}` },
    });
  }
  return { isIncomplete: false, items };
}
