// Completion for HAProxy, by position: section keywords at a line start, the keywords the current
// section accepts (for the target version), `option` names, `timeout` kinds, rule actions,
// bind/server options, backend names after use_backend/default_backend, ACL names in conditions,
// sample fetches and converters inside `%[...]`, ACL criteria and anonymous ACLs.
import type { CompletionItem, CompletionItemTag, CompletionList, MarkupContent, Position, Range } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import { findNodeAt, SECTION_KEYWORDS, type HaproxyFile, type Section } from './ast';
import {
  ACL_DERIVATIVES,
  ACTIONS,
  BIND_OPTIONS,
  CONVERTERS,
  FETCHES,
  GLOBAL,
  LOG_ALIASES,
  PREDEFINED_ACLS,
  PROXY,
  PROXY_KINDS,
  SECTIONS,
  SECTION_KEYWORDS_MAP,
  SERVER_OPTIONS,
  isAvailable,
  targetVersion,
  type Versioned,
} from './data';
import { actionDoc, converterDoc, declaredAcls, fetchDoc, markdown, optionDoc, sectionDoc, type DocParts } from './hover';
import { BALANCE_ALGOS, DESCRIPTIONS, LOG_FLAG_DESCRIPTIONS, MODE_VALUES, httpOnlyKeyword } from './overrides';
import logFormatJson from './data/logFormat.json';
import { compareVersions } from '../../core/version';
import { snippetCompletions } from '../../core/snippets';

const KIND = {
  keyword: 14,
  module: 9,
  property: 10,
  function: 3,
  value: 12,
  reference: 18,
  enumMember: 20,
  variable: 6,
  constant: 21,
} as const;

interface Ctx {
  target: string;
  replace: Range;
}

/**
 * An item without its text edit. The lists of the static tables depend only on (what, section
 * kind, target version), so they are built once and each request only stamps its replace range
 * on fresh copies: nothing per request is proportional to a table beyond that copy.
 */
interface BaseItem {
  label: string;
  kind: CompletionItem['kind'];
  detail?: string;
  documentation?: MarkupContent;
  tags?: CompletionItemTag[];
  sortText?: string;
}

const DEPRECATED: CompletionItemTag[] = [1];

function base(label: string, kind: number, detail?: string, docParts?: DocParts | string, info?: Versioned): BaseItem {
  const it: BaseItem = { label, kind: kind as CompletionItem['kind'] };
  if (detail) it.detail = detail;
  // shared by every answer that offers the item: frozen, so a caller writing to it fails loudly instead of changing later answers
  if (docParts)
    it.documentation = Object.freeze({ kind: 'markdown', value: typeof docParts === 'string' ? docParts : markdown(docParts) } as const);
  if (info && (info as { deprecated?: boolean }).deprecated) it.tags = DEPRECATED;
  return it;
}

/** A fresh item for the response: its own object, text edit and tags; the documentation object is shared (read-only). */
function stamp(b: BaseItem, range: Range): CompletionItem {
  const it: CompletionItem = { label: b.label, kind: b.kind, textEdit: { range, newText: b.label } };
  if (b.detail !== undefined) it.detail = b.detail;
  if (b.documentation !== undefined) it.documentation = b.documentation;
  if (b.tags !== undefined) it.tags = b.tags.slice();
  if (b.sortText !== undefined) it.sortText = b.sortText;
  return it;
}

function stampAll(list: readonly BaseItem[], ctx: Ctx): CompletionItem[] {
  const out = new Array<CompletionItem>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = stamp(list[i], ctx.replace);
  return out;
}

const tables = new Map<string, BaseItem[]>();

/** The list built once per key (which list, section kind, target version). */
function cached(key: string, build: () => BaseItem[]): BaseItem[] {
  let list = tables.get(key);
  if (!list) {
    if (tables.size >= 1024) {
      tables.clear();
      prepared.clear();
    }
    tables.set(key, (list = build()));
  }
  return list;
}

// Keyword documentation from the static tables depends only on the table entry and its name
// (no link, so no target version): rendered once per table and shared by the lists of every
// section kind and target.
type DocMemo = WeakMap<object, Map<string, string>>;
const globalDocs: DocMemo = new WeakMap();
const proxyDocs: DocMemo = new WeakMap();
const sectionKeywordDocs: DocMemo = new WeakMap();

function keywordDoc(memo: DocMemo, info: object, name: string, parts: () => DocParts): string {
  let byName = memo.get(info);
  if (!byName) memo.set(info, (byName = new Map()));
  let md = byName.get(name);
  if (md === undefined) byName.set(name, (md = markdown(parts())));
  return md;
}

function sectionList(target: string, sortPrefix: string): BaseItem[] {
  return cached(`sections\0${sortPrefix}\0${target}`, () => {
    const out: BaseItem[] = [];
    for (const name of Object.keys(SECTION_KEYWORDS)) {
      const info = SECTIONS.get(name) ?? {};
      if (!isAvailable(info, target)) continue;
      const it = base(name, KIND.module, 'section', sectionDoc(name, target));
      it.sortText = `${sortPrefix}${name}`;
      out.push(it);
    }
    return out;
  });
}

/** Labels offered for a keyword family by its first word (the second word completes next). */
const FAMILY_FIRST = new Set([
  'option',
  'timeout',
  'stats',
  'http-check',
  'tcp-request',
  'tcp-response',
  'stick',
  'capture',
  'email-alert',
]);

/** Only `defaults` cares whether the section is named (named-defaults-only keywords). */
type Naming = '' | 'named' | 'anonymous';

function naming(kind: string, sec: Section): Naming {
  return kind === 'defaults' ? (sec.name ? 'named' : 'anonymous') : '';
}

/** The keywords of a section kind, then the section names (a new section may start on any line). */
function keywordList(target: string, kind: string, named: Naming, tcp = false): BaseItem[] {
  return cached(`keywords\0${kind}\0${named}\0${tcp}\0${target}`, () => {
    const out: BaseItem[] = [];
    if (kind === 'global') {
      for (const [n, info] of GLOBAL) {
        if (!isAvailable(info, target)) continue;
        out.push(
          base(
            n,
            KIND.keyword,
            info.syntax?.[0] ?? 'global',
            keywordDoc(globalDocs, info, n, () => ({ title: n, syntax: info.syntax, info, text: DESCRIPTIONS[n] })),
            info,
          ),
        );
      }
    } else if (PROXY_KINDS.has(kind)) {
      const seen = new Set<string>();
      for (const [n, info] of PROXY) {
        if (!isAvailable(info, target) || !(info.sections ?? []).includes(kind)) continue;
        if (kind === 'defaults' && info.namedDefaultsOnly && named === 'anonymous') continue;
        if (tcp && httpOnlyKeyword(n)) continue;
        const first = n.split(' ')[0];
        const label = FAMILY_FIRST.has(first) ? first : n;
        if (seen.has(label)) continue;
        seen.add(label);
        const doc =
          label === n
            ? keywordDoc(proxyDocs, info, n, () => ({
                title: n,
                syntax: info.syntax,
                sections: info.sections,
                info,
                text: DESCRIPTIONS[n],
              }))
            : undefined;
        out.push(base(label, KIND.keyword, label === n ? (info.syntax?.[0] ?? 'proxy keyword') : `${label} …`, doc, info));
      }
    } else {
      const table = SECTION_KEYWORDS_MAP.get(kind);
      for (const [n, info] of table ?? []) {
        if (!isAvailable(info, target)) continue;
        out.push(
          base(
            n,
            KIND.keyword,
            info.syntax?.[0] ?? kind,
            keywordDoc(sectionKeywordDocs, info, n, () => ({ title: n, syntax: info.syntax, info })),
            info,
          ),
        );
      }
    }
    out.push(...sectionList(target, 'z'));
    return out;
  });
}

type ProxyInfo = typeof PROXY extends Map<string, infer I> ? I : never;

/** The proxy keywords of each family (`option httplog`, ... under `option`), in table order. */
const familyMembers = new Map<string, Array<[string, ProxyInfo]>>();

function membersOf(first: string): Array<[string, ProxyInfo]> {
  let list = familyMembers.get(first);
  if (!list) {
    list = [...PROXY].filter(([n]) => n.startsWith(first + ' '));
    familyMembers.set(first, list);
  }
  return list;
}

function familyList(target: string, first: string, kind: string, named: Naming, tcp = false): BaseItem[] {
  return cached(`family\0${first}\0${kind}\0${named}\0${tcp}\0${target}`, () => {
    const out: BaseItem[] = [];
    const seen = new Set<string>();
    for (const [n, info] of membersOf(first)) {
      if (!isAvailable(info, target)) continue;
      if (!(info.sections ?? []).includes(kind)) continue;
      if (kind === 'defaults' && info.namedDefaultsOnly && named === 'anonymous') continue;
      if (tcp && httpOnlyKeyword(n)) continue;
      const label = n.slice(first.length + 1).split(' ')[0];
      if (seen.has(label)) continue;
      seen.add(label);
      out.push(
        base(
          label,
          KIND.enumMember,
          info.syntax?.[0] ?? n,
          keywordDoc(proxyDocs, info, n, () => ({ title: n, syntax: info.syntax, sections: info.sections, info, text: DESCRIPTIONS[n] })),
          info,
        ),
      );
    }
    return out;
  });
}

// An action's documentation depends on the action and the target only, not on the rule set
// that offers it: rendered once per (target, action) for all the sets.
const actionDocs = new Map<string, Map<string, string | undefined>>();

function actionMarkdown(n: string, target: string): string | undefined {
  let byName = actionDocs.get(target);
  if (!byName) {
    if (actionDocs.size >= 16) actionDocs.clear();
    actionDocs.set(target, (byName = new Map()));
  }
  if (!byName.has(n)) {
    const parts = actionDoc(n, target);
    byName.set(n, parts ? markdown(parts) : undefined);
  }
  return byName.get(n);
}

function actionList(target: string, set: string): BaseItem[] {
  return cached(`actions\0${set}\0${target}`, () => {
    const out: BaseItem[] = [];
    for (const [n, info] of ACTIONS) {
      if (!info.sets.includes(set) || !isAvailable(info, target)) continue;
      out.push(base(n, KIND.function, `${set} action`, actionMarkdown(n, target), info));
    }
    return out;
  });
}

function optionList(target: string, what: 'bind' | 'server'): BaseItem[] {
  return cached(`options\0${what}\0${target}`, () => {
    const table = what === 'bind' ? BIND_OPTIONS : SERVER_OPTIONS;
    const out: BaseItem[] = [];
    for (const [n, info] of table) {
      if (!isAvailable(info, target)) continue;
      out.push(base(n, KIND.property, info.takesArg ? `${n} <value>` : n, optionDoc(what, n, target), info));
    }
    return out;
  });
}

function fetchList(target: string, withAcl: boolean): BaseItem[] {
  return cached(`fetches\0${withAcl}\0${target}`, () => {
    if (withAcl) {
      // the fetches, then the ACL criteria that are not fetches themselves
      const out = fetchList(target, false).slice();
      for (const [n, info] of ACL_DERIVATIVES) {
        if (!isAvailable(info, target) || FETCHES.has(n)) continue;
        out.push(base(n, KIND.function, 'ACL criterion', fetchDoc(n, target), info));
      }
      return out;
    }
    const out: BaseItem[] = [];
    for (const [n, info] of FETCHES) {
      if (!isAvailable(info, target)) continue;
      out.push(base(n, KIND.function, info.type ? `→ ${info.type}` : 'sample fetch', fetchDoc(n, target), info));
    }
    return out;
  });
}

function converterList(target: string): BaseItem[] {
  return cached(`converters\0${target}`, () => {
    const out: BaseItem[] = [];
    for (const [n, info] of CONVERTERS) {
      if (!isAvailable(info, target)) continue;
      out.push(base(n, KIND.function, 'converter', converterDoc(n, target), info));
    }
    return out;
  });
}

function predefinedAclList(target: string): BaseItem[] {
  return cached(`predefined-acls\0${target}`, () => {
    const out: BaseItem[] = [];
    for (const [n, info] of PREDEFINED_ACLS) {
      if (!isAvailable(info, target)) continue;
      const it = base(n, KIND.constant, 'predefined ACL', { title: n, info, text: 'Predefined ACL.' });
      it.sortText = `z${n}`;
      out.push(it);
    }
    return out;
  });
}

function valueList(target: string, what: 'mode' | 'balance'): BaseItem[] {
  return cached(`values\0${what}\0${target}`, () =>
    Object.entries(what === 'mode' ? MODE_VALUES : BALANCE_ALGOS)
      .filter(([, i]) => isAvailable(i, target))
      .map(([n]) => base(n, KIND.value, what === 'mode' ? 'mode' : 'balance algorithm')),
  );
}

function logAliasList(target: string, tcp = false): BaseItem[] {
  return cached(`log-aliases\0${tcp}\0${target}`, () =>
    [...LOG_ALIASES]
      .filter(([, i]) => isAvailable(i, target) && !(tcp && i.http))
      .map(([n, i]) => {
        const f = logFormat.aliases[n];
        const facts = [f?.field, f?.type, i.http ? 'HTTP only' : ''].filter(Boolean).join(', ');
        return base(n, KIND.variable, `%${n} log-format alias${facts ? ` (${facts})` : ''}`);
      }),
  );
}

/** Targets whose every list is built (cleared with the lists). */
const prepared = new Set<string>();

/**
 * Builds every list a request can ask for at `target`. Each list is built once per target anyway;
 * built lazily, the first request of each kind (the first server line, the first ACL criterion,
 * ...) paid its list's build, cold code and documentation included: on the 10k-line file those
 * first requests were the slowest percent of all (1-7 ms each) while a warm request costs tens
 * of microseconds. Built together, by the server's warm-up after a document opens
 * (prepareCompletion), no request builds anything; without a warm-up the first completion for
 * the target builds them. The lists are the very ones the lazy path makes.
 */
export function prepareCompletion(settings: ServiceSettings): void {
  prepareTarget(targetVersion(settings.haproxyVersion));
}

function prepareTarget(target: string): void {
  if (prepared.has(target)) return;
  prepared.add(target);
  sectionList(target, '0');
  const kinds: [string, Naming][] = [];
  for (const kind of Object.keys(SECTION_KEYWORDS)) {
    if (kind === 'defaults') kinds.push([kind, 'named'], [kind, 'anonymous']);
    else kinds.push([kind, '']);
  }
  for (const [kind, named] of kinds) {
    const proxy = PROXY_KINDS.has(kind);
    for (const tcp of proxy ? [false, true] : [false]) {
      keywordList(target, kind, named, tcp);
      if (!proxy) continue;
      for (const first of FAMILY_ITEMS) familyList(target, first, kind, named, tcp);
    }
  }
  const sets = new Set<string>();
  for (const info of ACTIONS.values()) for (const set of info.sets) sets.add(set);
  for (const set of sets) actionList(target, set);
  optionList(target, 'bind');
  optionList(target, 'server');
  fetchList(target, true);
  converterList(target);
  predefinedAclList(target);
  valueList(target, 'mode');
  valueList(target, 'balance');
  logAliasList(target, false);
  logAliasList(target, true);
  logFlagList(target);
}

/** The keywords whose second word completes from a family list (`option <|>`, `tcp-request <|>`). */
const FAMILY_ITEMS = ['option', 'timeout', 'stats', 'http-check', 'stick', 'capture', 'email-alert', 'tcp-request', 'tcp-response'];

function sectionItems(ctx: Ctx): CompletionItem[] {
  return stampAll(sectionList(ctx.target, '0'), ctx);
}

function keywordItems(ctx: Ctx, sec: Section | undefined, tcp = false): CompletionItem[] {
  const kind = sec?.keyword;
  if (!kind) return sectionItems(ctx);
  return stampAll(keywordList(ctx.target, kind, naming(kind, sec), tcp), ctx);
}

function familyItems(ctx: Ctx, first: string, kind: string, sec: Section, tcp = false): CompletionItem[] {
  return stampAll(familyList(ctx.target, first, kind, naming(kind, sec), tcp), ctx);
}

// The indices of each parse's `defaults` sections, in file order: found once per parse (a parse is
// never changed afterwards, and which sections are defaults does not depend on `.if` blocks), so
// a request finds its section's defaults by binary search instead of walking back over every
// section before it (on the 10k-line file, a backend near the end had ~1,000 sections to pass).
const defaultsIndices = new WeakMap<HaproxyFile, number[]>();

function defaultsOf(file: HaproxyFile): number[] {
  let list = defaultsIndices.get(file);
  if (!list) {
    list = [];
    const secs = file.sections;
    for (let i = 0; i < secs.length; i++) if (secs[i].keyword === 'defaults') list.push(i);
    defaultsIndices.set(file, list);
  }
  return list;
}

/**
 * The index of the defaults section the section at `idx` takes its settings from: `from NAME`,
 * else the last one before it that a `.if` block does not disable; -1 when none.
 */
function parentDefaults(file: HaproxyFile, idx: number): number {
  const sec = file.sections[idx];
  const args = sec.header.args;
  const fi = args.findIndex((w) => w.value === 'from');
  if (fi < 0 && sec.keyword === 'defaults') return -1;
  const name = fi >= 0 ? args[fi + 1]?.value : undefined;
  const list = defaultsOf(file);
  // the last defaults section before idx, then back over the defaults sections only
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < idx) lo = mid + 1;
    else hi = mid;
  }
  for (let j = lo - 1; j >= 0; j--) {
    const d = file.sections[list[j]];
    if (fi >= 0 ? d.name?.value === name : !d.header.disabled) return list[j];
  }
  return -1;
}

/**
 * The mode a proxy section runs in when a `mode` line says it (its own, else its defaults',
 * followed through `from`); undefined when none does (HAProxy then runs it in tcp mode, but a
 * section whose mode is not written yet keeps every keyword on offer). `index` is the section's
 * index in `file.sections` (findNodeAt's `sectionIndex` for the section under the cursor).
 */
export function writtenMode(file: HaproxyFile, sec: Section, index = file.sections.indexOf(sec)): string | undefined {
  const seen = new Set<number>();
  for (
    let cur: Section | undefined = sec, i = index;
    cur;
    i = i >= 0 ? parentDefaults(file, i) : -1, cur = i >= 0 && !seen.has(i) ? file.sections[i] : undefined
  ) {
    seen.add(i);
    let mode: string | undefined;
    for (const st of cur.statements) if (!st.disabled && st.keyword?.value === 'mode' && st.args[0]) mode = st.args[0].value;
    if (mode) return mode;
  }
  return undefined;
}

const logFormat = logFormatJson as unknown as {
  docs: string[];
  aliases: Record<string, { field?: string; type?: string }>;
  flags: Record<string, { notIn?: string }>;
};

/** Item flags (`+Q`, `-Q`, `+json`...) the target version's documentation lists. */
function logFlagList(target: string): BaseItem[] {
  return cached(`log-flags\0${target}`, () => {
    const out: BaseItem[] = [];
    for (const [f, info] of Object.entries(logFormat.flags)) {
      if (info.notIn && compareVersions(target, info.notIn) <= 0) continue;
      const what = LOG_FLAG_DESCRIPTIONS[f] ?? f;
      out.push(base(`+${f}`, KIND.enumMember, `log item flag: ${what}`));
      out.push(base(`-${f}`, KIND.enumMember, `log item flag off: not ${what}`));
    }
    return out;
  });
}

function actionItems(ctx: Ctx, set: string): CompletionItem[] {
  return stampAll(actionList(ctx.target, set), ctx);
}

function optionItems(ctx: Ctx, what: 'bind' | 'server'): CompletionItem[] {
  return stampAll(optionList(ctx.target, what), ctx);
}

function fetchItems(ctx: Ctx, withAcl: boolean): CompletionItem[] {
  return stampAll(fetchList(ctx.target, withAcl), ctx);
}

function converterItems(ctx: Ctx): CompletionItem[] {
  return stampAll(converterList(ctx.target), ctx);
}

// The ACLs a section declares, first declaration of each name in order, as items: per section
// object, so a request only cuts the list at the cursor. The re-parse moves a section it takes
// over (parser.ts): the list holds while the section's header is where it was made (offsets and
// line numbers in it).
const sectionAclItems = new WeakMap<Section, { at: number; line: number; starts: number[]; items: BaseItem[] }>();

function aclItems(ctx: Ctx, sec: Section | undefined, beforeOffset: number): CompletionItem[] {
  const out: CompletionItem[] = [];
  if (sec) {
    let decl = sectionAclItems.get(sec);
    if (!decl || decl.at !== sec.headerStart || decl.line !== sec.header.line) {
      decl = { at: sec.headerStart, line: sec.header.line, starts: [], items: [] };
      for (const st of declaredAcls(sec).values()) {
        decl.starts.push(st.start);
        decl.items.push(base(st.acl!.name.value, KIND.variable, `acl (line ${st.line + 1})`));
      }
      sectionAclItems.set(sec, decl);
    }
    // first declarations are in file order: the ones before the cursor are a prefix
    for (let i = 0; i < decl.items.length && decl.starts[i] < beforeOffset; i++) out.push(stamp(decl.items[i], ctx.replace));
  }
  for (const b of predefinedAclList(ctx.target)) out.push(stamp(b, ctx.replace));
  return out;
}

// The backend names of a parse, as items; each section's item is kept with the section, which a
// re-parse takes over (moved when the edit is before it), so a new parse makes items only for its
// new sections and the ones whose header line moved (the item names the line).
const backendBases = new WeakMap<HaproxyFile, BaseItem[]>();
const backendBase = new WeakMap<Section, { line: number; item: BaseItem }>();

function backendItems(ctx: Ctx, file: HaproxyFile): CompletionItem[] {
  let list = backendBases.get(file);
  if (!list) {
    list = [];
    for (const s of file.sections) {
      if ((s.keyword !== 'backend' && s.keyword !== 'listen') || !s.name) continue;
      let b = backendBase.get(s);
      if (!b || b.line !== s.header.line)
        backendBase.set(
          s,
          (b = { line: s.header.line, item: base(s.name.value, KIND.reference, `${s.keyword} (line ${s.header.line + 1})`) }),
        );
      list.push(b.item);
    }
    backendBases.set(file, list);
  }
  return stampAll(list, ctx);
}

/** Where the cursor is in a sample expression text (`req.hdr(host),lo<|>`): fetch or converter. */
function sampleSlot(text: string): 'fetch' | 'converter' | 'arg' {
  let depth = 0;
  let lastTop = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) lastTop = i;
  }
  if (depth > 0) return 'arg';
  return lastTop >= 0 ? 'converter' : 'fetch';
}

/** Start of the word being typed, going back from the cursor to one of `stopChars`. */
function wordReplace(lineText: string, lineStart: number, cursor: number, stopChars: RegExp): { start: number } {
  let i = cursor - lineStart;
  while (i > 0 && !stopChars.test(lineText[i - 1])) i--;
  return { start: lineStart + i };
}

export function completeHaproxy(doc: TextDocument, file: HaproxyFile, pos: Position, settings: ServiceSettings): CompletionList {
  try {
    return { isIncomplete: false, items: complete(doc, file, pos, settings) };
  } catch {
    return { isIncomplete: false, items: [] };
  }
}

function complete(doc: TextDocument, file: HaproxyFile, pos: Position, settings: ServiceSettings): CompletionItem[] {
  const target = targetVersion(settings.haproxyVersion);
  prepareTarget(target);
  const offset = doc.offsetAt(pos);
  const lineStart = doc.offsetAt({ line: pos.line, character: 0 });
  const text = doc.getText();
  const lineText = text.slice(lineStart, offset);
  if (/(^|\s)#/.test(lineText.replace(/"[^"]*"|'[^']*'/g, ''))) return [];
  const at = findNodeAt(file, offset);
  // The section: the one the line belongs to (the header line itself counts as the previous one's body).
  let sec = at.section;
  let secIndex = at.sectionIndex;
  if (at.inHeader) {
    secIndex = at.section ? at.sectionIndex - 1 : -1;
    sec = secIndex >= 0 ? file.sections[secIndex] : undefined;
  }
  const words = lineText.trimStart().split(/[ \t]+/);
  const current = /[ \t]$/.test(lineText) || lineText.trim() === '' ? '' : words[words.length - 1];
  const before = current === '' ? words.filter(Boolean) : words.slice(0, -1);
  const mk = (start: number): Ctx => ({ target, replace: { start: doc.positionAt(start), end: pos } });
  const wordCtx = mk(offset - current.length);

  // Inside %[ ... ]: fetches and converters.
  const lf = lineText.lastIndexOf('%[');
  if (lf >= 0 && lineText.indexOf(']', lf) < 0) {
    const inner = lineText.slice(lf + 2);
    const slot = sampleSlot(inner);
    const r = wordReplace(lineText, lineStart, offset, /[\[,( \t]/);
    if (slot === 'converter') return converterItems(mk(r.start));
    if (slot === 'fetch') return fetchItems(mk(r.start), false);
    return [];
  }

  // tcp mode written in the section or its defaults: HTTP-only keywords and aliases are left out
  const tcp = !!sec && PROXY_KINDS.has(sec.keyword) && writtenMode(file, sec, secIndex) === 'tcp';

  // `%` aliases inside log-format strings, and `%{+Q,...}` item flags
  const pct = current.lastIndexOf('%');
  if (pct >= 0 && before.length > 0 && /^%\{[^}]*$/.test(current.slice(pct))) {
    const r = wordReplace(lineText, lineStart, offset, /[{,]/);
    return stampAll(logFlagList(target), mk(r.start));
  }
  if (pct >= 0 && /^%(\{[^}]*\})?[A-Za-z]*$/.test(current.slice(pct)) && before.length > 0) {
    const nameStart = offset - (current.length - pct) + 1 + (/^%\{[^}]*\}/.exec(current.slice(pct))?.[0].length ?? 1) - 1;
    return stampAll(logAliasList(target, tcp), mk(nameStart));
  }

  if (before.length === 0) {
    const items = sec ? keywordItems(wordCtx, sec, tcp) : sectionItems(wordCtx);
    if (settings.completionSnippets) {
      // section snippets on any line (a line may start a new section), body snippets in their section kinds
      items.push(...snippetCompletions('haproxy', '', wordCtx.replace));
      if (sec) {
        const indent = /^[ \t]*/.exec(lineText)![0];
        items.push(...snippetCompletions('haproxy', sec.keyword, wordCtx.replace, indent));
      }
    }
    return items;
  }
  const kind = sec?.keyword;
  let k = before[0];
  let rest = before.slice(1);
  if ((k === 'no' || k === 'default') && rest.length) {
    k = rest[0];
    rest = rest.slice(1);
  }
  // conditions: after if/unless, ACL names (or a fetch right after `{`)
  const condIdx = before.findIndex((w, i) => i > 0 && (w === 'if' || w === 'unless'));
  if (condIdx > 0) {
    const last = before[before.length - 1];
    const openBraces = before.slice(condIdx).filter((w) => w === '{').length - before.slice(condIdx).filter((w) => w === '}').length;
    if (openBraces > 0) {
      if (last === '{') return fetchItems(wordCtx, true);
      if (current.includes(',')) {
        const r = wordReplace(lineText, lineStart, offset, /[, \t]/);
        return converterItems(mk(r.start));
      }
      return [];
    }
    return aclItems(wordCtx, sec, offset);
  }
  if (k === 'acl' && rest.length === 1) {
    if (current.includes(',')) {
      const r = wordReplace(lineText, lineStart, offset, /[, \t]/);
      return converterItems(mk(r.start));
    }
    return fetchItems(wordCtx, true);
  }
  if (!kind || !sec) return [];
  if (PROXY_KINDS.has(kind)) {
    if (rest.length === 0) {
      if (FAMILY_ITEMS.includes(k)) return familyItems(wordCtx, k, kind, sec, tcp);
      if (k === 'http-request' || k === 'http-response' || k === 'http-after-response') return actionItems(wordCtx, k);
      if (k === 'use_backend' || k === 'default_backend') return backendItems(wordCtx, file);
      if (k === 'mode') return stampAll(valueList(target, 'mode'), wordCtx);
      if (k === 'balance') return stampAll(valueList(target, 'balance'), wordCtx);
      if (k === 'default-server') return optionItems(wordCtx, 'server');
    }
    if ((k === 'tcp-request' || k === 'tcp-response') && rest.length === 1 && rest[0] !== 'inspect-delay')
      return actionItems(wordCtx, `${k} ${rest[0]}`);
    if (k === 'bind' && rest.length >= 1) return optionItems(wordCtx, 'bind');
    if (k === 'server' && rest.length >= 2) return optionItems(wordCtx, 'server');
    if (k === 'default-server') return optionItems(wordCtx, 'server');
    return [];
  }
  return [];
}
