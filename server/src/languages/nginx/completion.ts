// Completion: directives valid in the enclosing block (snippets from the syntax), values of
// flag/enum directives, and `$variables` (built-in, prefixes and the file's own).
import type { CompletionItem, CompletionList, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import type { NginxFile } from './ast';
import { blockContext, findNodeAt } from './ast';
import { DIRECTIVES, VARIABLES, VARIABLE_PREFIXES, variantInVersion, type DirectiveVariant } from './data';
import { directiveReference, directiveSummary } from './reference';
import { builtInModules, standaloneLoadState } from './modules';
import { collectDefinedVariables } from './validation';
import { inferContext } from './inferContext';
import { snippetCompletions } from '../../core/snippets';

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
    const required = ref.syntax[0]
      .replace(/\[[^\[\]]*(\[[^\[\]]*\][^\[\]]*)*\]/g, ' ')
      .replace(/`\{\.\.\.\}`/g, ' ')
      .replace(/\.\.\./g, ' ');
    const words = required.split(/\s+/).filter(Boolean).slice(0, Math.max(v.min, 0));
    words.forEach((w, i) => {
      const label = w
        .replace(/\*`([^`]*)`\*/g, '$1')
        .replace(/`([^`]*)`/g, '$1')
        .replace(/[$}|\\]/g, '');
      args.push(`\${${i + 1}:${label || 'value'}}`);
    });
  } else {
    for (let i = 0; i < v.min; i++) args.push(`\${${i + 1}:value}`);
  }
  const head = args.length ? `${name} ${args.join(' ')}` : name;
  if (v.block) return `${head} {\n\t$0\n}`;
  return `${head};`;
}

export function doComplete(
  doc: TextDocument,
  file: NginxFile,
  pos: Position,
  settings: ServiceSettings,
  startContext?: string,
): CompletionList {
  const empty: CompletionList = { isIncomplete: false, items: [] };
  try {
    const offset = doc.offsetAt(pos);
    const text = doc.getText();
    const at = findNodeAt(file, offset);
    if (at.comment || at.inRawBody) return empty;
    const fileContext = startContext ?? inferContext(file, settings.nginxContext);
    const ctx = blockContext(at.ancestors, fileContext);
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
      const list = directiveItems(
        doc,
        ctx,
        settings,
        start,
        word ? Math.max(offset, word.end) : offset,
        offerable(file, fileContext, settings),
      );
      if (settings.completionSnippets) {
        const lineStart = text.lastIndexOf('\n', start - 1) + 1;
        const indent = /^[ \t]*/.exec(text.slice(lineStart, start))![0];
        const range = { start: doc.positionAt(start), end: doc.positionAt(word ? Math.max(offset, word.end) : offset) };
        list.items.push(...snippetCompletions('nginx', ctx, range, indent.length === start - lineStart ? indent : ''));
      }
      return list;
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

// Which variant each directive offers in a (context, target version), as items without their
// text edit: a pure function of the static tables, so built once per pair; a request only
// stamps its replace range on fresh copies.
interface DirectiveBase {
  label: string;
  kind: CompletionItem['kind'];
  detail: string;
  /** The directive's first sentence (nginx's reference text), shown beside its name. */
  summary: string | undefined;
  /** The `.so` a loadable module's directive needs loaded (`load_module`), if any. */
  load: string | undefined;
  newText: string;
  data: { language: 'nginx'; directive: string; module: string };
  deprecated: boolean;
}

const offeredCache = new Map<string, DirectiveBase[]>();
const cacheKey = (ctx: string, version: string | undefined) => `${ctx}\u0000${version ?? ''}`;

function offeredDirectives(ctx: string, version: string | undefined): DirectiveBase[] {
  return offeredCache.get(cacheKey(ctx, version)) ?? buildOffered([ctx], version)[0];
}

/**
 * The lists of several contexts in one pass over the table: for each directive, in table order,
 * its first variant written in the context (or anywhere, `*`) and present at the version. A
 * directive with one variant (most) is looked at once for all the contexts, not once per context.
 */
function buildOffered(ctxs: readonly string[], version: string | undefined): DirectiveBase[][] {
  const lists = ctxs.map((): DirectiveBase[] => []);
  const index = new Map(ctxs.map((c, i) => [c, i]));
  const baseOf = (name: string, v: DirectiveVariant): DirectiveBase => ({
    label: name,
    kind: v.block ? KIND_KEYWORD : KIND_PROPERTY,
    detail: v.module + (v.commercial ? ' (commercial)' : ''),
    summary: directiveSummary(v.module, name),
    load: v.load,
    newText: directiveSnippet(name, v),
    data: { language: 'nginx', directive: name, module: v.module },
    deprecated: !!v.deprecated,
  });
  for (const [name, variants] of DIRECTIVES) {
    if (variants.length === 1) {
      const v = variants[0];
      if (variantInVersion(v, version) !== 'yes') continue;
      let b: DirectiveBase | undefined;
      if (v.contexts.includes('*')) {
        b = baseOf(name, v);
        for (const list of lists) list.push(b);
        continue;
      }
      for (const c of v.contexts) {
        const i = index.get(c);
        if (i === undefined) continue;
        const list = lists[i];
        if (list.length && list[list.length - 1].label === name) continue; // a context written twice
        list.push((b ??= baseOf(name, v)));
      }
      continue;
    }
    for (let i = 0; i < ctxs.length; i++) {
      const ctx = ctxs[i];
      const v = variants.find((x) => (x.contexts.includes(ctx) || x.contexts.includes('*')) && variantInVersion(x, version) === 'yes');
      if (v) lists[i].push(baseOf(name, v));
    }
  }
  if (offeredCache.size + ctxs.length > 256) offeredCache.clear();
  for (let i = 0; i < ctxs.length; i++) offeredCache.set(cacheKey(ctxs[i], version), lists[i]);
  return lists;
}

/** The contexts some directive may be written in: the blocks completion offers a directive list for. */
let directiveContexts: string[] | undefined;

/**
 * Builds what the first completion in each context would otherwise build (the lists of every
 * context at the settings' target version, their snippets, the reference text those read), so
 * that no request pays for it: the server calls this in its warm-up after a document opens.
 * Results never depend on it; each list is the one the first request would have made.
 */
export function prepareCompletion(settings: ServiceSettings): void {
  if (!directiveContexts) {
    const seen = new Set<string>();
    for (const variants of DIRECTIVES.values()) for (const v of variants) for (const c of v.contexts) if (c !== '*') seen.add(c);
    directiveContexts = [...seen];
  }
  const version = settings.nginxVersion;
  const missing = directiveContexts.filter((c) => !offeredCache.has(cacheKey(c, version)));
  if (missing.length) buildOffered(missing, version);
}

/**
 * Which loadable modules' directives a file may use: a main file (judged in `main`) that loads
 * modules only by its own `load_module` lines gets only theirs (and those compiled into the local
 * binary, OpenResty's Lua); a fragment, or a main file with an `include` in its main context
 * (Debian's modules-enabled/), may have any module loaded. undefined: any.
 */
function offerable(file: NginxFile, fileContext: string, settings: ServiceSettings): ((so: string) => boolean) | undefined {
  const state = standaloneLoadState(file, fileContext);
  if (state.unknown) return undefined;
  const builtIn = builtInModules(settings.nginxModules?.added);
  return (so) => state.loaded.has(so) || builtIn.includes(so);
}

function directiveItems(
  doc: TextDocument,
  ctx: string,
  settings: ServiceSettings,
  start: number,
  end: number,
  loaded?: (so: string) => boolean,
): CompletionList {
  const range = { start: doc.positionAt(start), end: doc.positionAt(end) };
  const all = offeredDirectives(ctx, settings.nginxVersion);
  const offered = loaded ? all.filter((b) => !b.load || loaded(b.load)) : all;
  const items = new Array<CompletionItem>(offered.length);
  for (let i = 0; i < offered.length; i++) {
    const b = offered[i];
    const it: CompletionItem = {
      label: b.label,
      kind: b.kind,
      detail: b.detail,
      insertTextFormat: FORMAT_SNIPPET,
      textEdit: { range, newText: b.newText },
      data: { language: b.data.language, directive: b.data.directive, module: b.data.module },
    };
    if (b.summary) it.labelDetails = { description: b.summary };
    if (b.deprecated) it.tags = [1];
    items[i] = it;
  }
  return { isIncomplete: false, items };
}

// `$` items: the file's own variables, then the built-in ones it does not define, then the
// prefixes. Per parse (a parse is never changed once made), so a request only stamps ranges.
interface VariableBase {
  label: string;
  filterText: string;
  detail: string;
  newText: string;
  snippet: boolean;
}

const variableCache = new WeakMap<NginxFile, VariableBase[]>();

function variableBases(file: NginxFile): VariableBase[] {
  let list = variableCache.get(file);
  if (list) return list;
  list = [];
  const defined = collectDefinedVariables(file);
  for (const name of defined)
    list.push({ label: `$${name}`, filterText: name, detail: 'defined in this file', newText: name, snippet: false });
  for (const [name, info] of VARIABLES) {
    if (defined.has(name)) continue;
    list.push({ label: `$${name}`, filterText: name, detail: info.module, newText: name, snippet: false });
  }
  for (const p of VARIABLE_PREFIXES)
    list.push({ label: `$${p.name}…`, filterText: p.name, detail: `${p.module} (prefix)`, newText: `${p.name}\${1:name}`, snippet: true });
  variableCache.set(file, list);
  return list;
}

function variableItems(doc: TextDocument, file: NginxFile, start: number, end: number): CompletionList {
  const range = { start: doc.positionAt(start), end: doc.positionAt(end) };
  const bases = variableBases(file);
  const items = new Array<CompletionItem>(bases.length);
  for (let i = 0; i < bases.length; i++) {
    const b = bases[i];
    items[i] = b.snippet
      ? {
          label: b.label,
          filterText: b.filterText,
          kind: KIND_VARIABLE,
          detail: b.detail,
          insertTextFormat: FORMAT_SNIPPET,
          textEdit: { range, newText: b.newText },
        }
      : { label: b.label, filterText: b.filterText, kind: KIND_VARIABLE, detail: b.detail, textEdit: { range, newText: b.newText } };
  }
  return { isIncomplete: false, items };
}
