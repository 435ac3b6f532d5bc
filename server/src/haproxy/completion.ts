// Completion for HAProxy, by position: section keywords at a line start, the keywords the current
// section accepts (for the target version), `option` names, `timeout` kinds, rule actions,
// bind/server options, backend names after use_backend/default_backend, ACL names in conditions,
// sample fetches and converters inside `%[...]`, ACL criteria and anonymous ACLs.
import type { CompletionItem, CompletionList, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../service/types';
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
import { actionDoc, converterDoc, fetchDoc, markdown, optionDoc, sectionDoc, type DocParts } from './hover';
import { BALANCE_ALGOS, DESCRIPTIONS, MODE_VALUES } from './overrides';

const KIND = { keyword: 14, module: 9, property: 10, function: 3, value: 12, reference: 18, enumMember: 20, variable: 6, constant: 21 } as const;

interface Ctx {
  target: string;
  replace: { start: Position; end: Position };
  prefix: string;
}

function item(ctx: Ctx, label: string, kind: number, detail?: string, docParts?: DocParts | string, info?: Versioned): CompletionItem {
  const it: CompletionItem = { label, kind: kind as CompletionItem['kind'], textEdit: { range: ctx.replace, newText: label } };
  if (detail) it.detail = detail;
  if (docParts) it.documentation = { kind: 'markdown', value: typeof docParts === 'string' ? docParts : markdown(docParts) };
  if (info && (info as { deprecated?: boolean }).deprecated) it.tags = [1];
  return it;
}

// Keyword documentation built from the static tables depends only on the table entry and the
// name (and the call site that assembles it), so each site keeps its rendered markdown.
type DocMemo = WeakMap<object, Map<string, string>>;
const globalDocs: DocMemo = new WeakMap();
const proxyDocs: DocMemo = new WeakMap();
const sectionKeywordDocs: DocMemo = new WeakMap();

function memoDoc(memo: DocMemo, info: object, name: string, parts: () => DocParts): string {
  let byName = memo.get(info);
  if (!byName) memo.set(info, (byName = new Map()));
  let md = byName.get(name);
  if (md === undefined) byName.set(name, (md = markdown(parts())));
  return md;
}

function available(info: Versioned, ctx: Ctx): boolean {
  return isAvailable(info, ctx.target);
}

function sectionItems(ctx: Ctx): CompletionItem[] {
  const out: CompletionItem[] = [];
  for (const name of Object.keys(SECTION_KEYWORDS)) {
    const info = SECTIONS.get(name) ?? {};
    if (!available(info, ctx)) continue;
    const it = item(ctx, name, KIND.module, 'section', sectionDoc(name, ctx.target));
    it.sortText = `0${name}`;
    out.push(it);
  }
  return out;
}

function keywordItems(ctx: Ctx, sec: Section | undefined): CompletionItem[] {
  const out: CompletionItem[] = [];
  const kind = sec?.keyword;
  if (!kind) return sectionItems(ctx);
  if (kind === 'global') {
    for (const [n, info] of GLOBAL) {
      if (!available(info, ctx)) continue;
      out.push(item(ctx, n, KIND.keyword, info.syntax?.[0] ?? 'global', memoDoc(globalDocs, info, n, () => ({ title: n, syntax: info.syntax, info, text: DESCRIPTIONS[n] })), info));
    }
  } else if (PROXY_KINDS.has(kind)) {
    const seen = new Set<string>();
    for (const [n, info] of PROXY) {
      if (!available(info, ctx) || !(info.sections ?? []).includes(kind)) continue;
      if (kind === 'defaults' && info.namedDefaultsOnly && !sec.name) continue;
      const first = n.split(' ')[0];
      // families are offered by their first word; their second word completes next
      const label = first === 'option' || first === 'timeout' || first === 'stats' || first === 'http-check' || first === 'tcp-request' || first === 'tcp-response' || first === 'stick' || first === 'capture' || first === 'email-alert' ? first : n;
      if (seen.has(label)) continue;
      seen.add(label);
      out.push(item(ctx, label, KIND.keyword, label === n ? (info.syntax?.[0] ?? 'proxy keyword') : `${label} …`, label === n ? memoDoc(proxyDocs, info, n, () => ({ title: n, syntax: info.syntax, sections: info.sections, info, text: DESCRIPTIONS[n] })) : undefined, info));
    }
  } else {
    const table = SECTION_KEYWORDS_MAP.get(kind);
    for (const [n, info] of table ?? []) {
      if (!available(info, ctx)) continue;
      out.push(item(ctx, n, KIND.keyword, info.syntax?.[0] ?? kind, memoDoc(sectionKeywordDocs, info, n, () => ({ title: n, syntax: info.syntax, info })), info));
    }
  }
  // a new section may start on any line
  for (const s of sectionItems(ctx)) {
    s.sortText = `z${s.label}`;
    out.push(s);
  }
  return out;
}

function familyItems(ctx: Ctx, first: string, kind: string, sec: Section): CompletionItem[] {
  const out: CompletionItem[] = [];
  for (const [n, info] of PROXY) {
    if (!n.startsWith(first + ' ') || !available(info, ctx)) continue;
    if (!(info.sections ?? []).includes(kind)) continue;
    if (kind === 'defaults' && info.namedDefaultsOnly && !sec.name) continue;
    const rest = n.slice(first.length + 1);
    out.push(item(ctx, rest.split(' ')[0], KIND.enumMember, info.syntax?.[0] ?? n, memoDoc(proxyDocs, info, n, () => ({ title: n, syntax: info.syntax, sections: info.sections, info, text: DESCRIPTIONS[n] })), info));
  }
  return dedupe(out);
}

function dedupe(items: CompletionItem[]): CompletionItem[] {
  const seen = new Set<string>();
  return items.filter((i) => (seen.has(i.label) ? false : (seen.add(i.label), true)));
}

function actionItems(ctx: Ctx, set: string): CompletionItem[] {
  const out: CompletionItem[] = [];
  for (const [n, info] of ACTIONS) {
    if (!info.sets.includes(set) || !available(info, ctx)) continue;
    out.push(item(ctx, n, KIND.function, `${set} action`, actionDoc(n, ctx.target), info));
  }
  return out;
}

function optionItems(ctx: Ctx, what: 'bind' | 'server'): CompletionItem[] {
  const table = what === 'bind' ? BIND_OPTIONS : SERVER_OPTIONS;
  const out: CompletionItem[] = [];
  for (const [n, info] of table) {
    if (!available(info, ctx)) continue;
    out.push(item(ctx, n, KIND.property, info.takesArg ? `${n} <value>` : n, optionDoc(what, n, ctx.target), info));
  }
  return out;
}

function fetchItems(ctx: Ctx, withAcl: boolean): CompletionItem[] {
  const out: CompletionItem[] = [];
  for (const [n, info] of FETCHES) {
    if (!available(info, ctx)) continue;
    out.push(item(ctx, n, KIND.function, info.type ? `→ ${info.type}` : 'sample fetch', fetchDoc(n, ctx.target), info));
  }
  if (withAcl)
    for (const [n, info] of ACL_DERIVATIVES) {
      if (!available(info, ctx) || FETCHES.has(n)) continue;
      out.push(item(ctx, n, KIND.function, 'ACL criterion', fetchDoc(n, ctx.target), info));
    }
  return out;
}

function converterItems(ctx: Ctx): CompletionItem[] {
  const out: CompletionItem[] = [];
  for (const [n, info] of CONVERTERS) {
    if (!available(info, ctx)) continue;
    out.push(item(ctx, n, KIND.function, 'converter', converterDoc(n, ctx.target), info));
  }
  return out;
}

function aclItems(ctx: Ctx, sec: Section | undefined, beforeOffset: number): CompletionItem[] {
  const out: CompletionItem[] = [];
  const seen = new Set<string>();
  for (const st of sec?.statements ?? []) {
    if (!st.acl || st.start >= beforeOffset || seen.has(st.acl.name.value)) continue;
    seen.add(st.acl.name.value);
    out.push(item(ctx, st.acl.name.value, KIND.variable, `acl (line ${st.line + 1})`));
  }
  for (const [n, info] of PREDEFINED_ACLS) {
    if (!available(info, ctx)) continue;
    const it = item(ctx, n, KIND.constant, 'predefined ACL', { title: n, info, text: 'Predefined ACL.' });
    it.sortText = `z${n}`;
    out.push(it);
  }
  return out;
}

function backendItems(ctx: Ctx, file: HaproxyFile): CompletionItem[] {
  return file.sections
    .filter((s) => (s.keyword === 'backend' || s.keyword === 'listen') && s.name)
    .map((s) => item(ctx, s.name!.value, KIND.reference, `${s.keyword} (line ${s.header.line + 1})`));
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

function wordReplace(doc: TextDocument, lineText: string, lineStart: number, cursor: number, stopChars: RegExp): { start: number; prefix: string } {
  let i = cursor - lineStart;
  while (i > 0 && !stopChars.test(lineText[i - 1])) i--;
  return { start: lineStart + i, prefix: lineText.slice(i, cursor - lineStart) };
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
  const offset = doc.offsetAt(pos);
  const lineStart = doc.offsetAt({ line: pos.line, character: 0 });
  const text = doc.getText();
  const lineText = text.slice(lineStart, offset);
  if (/(^|\s)#/.test(lineText.replace(/"[^"]*"|'[^']*'/g, ''))) return [];
  const at = findNodeAt(file, offset);
  // The section: the one the line belongs to (the header line itself counts as the previous one's body).
  let sec = at.section;
  if (at.inHeader) sec = file.sections[file.sections.indexOf(at.section!) - 1];
  const words = lineText.trimStart().split(/[ \t]+/);
  const current = /[ \t]$/.test(lineText) || lineText.trim() === '' ? '' : words[words.length - 1];
  const before = current === '' ? words.filter(Boolean) : words.slice(0, -1);
  const mk = (start: number, prefix: string): Ctx => ({ target, prefix, replace: { start: doc.positionAt(start), end: pos } });
  const wordCtx = mk(offset - current.length, current);

  // Inside %[ ... ]: fetches and converters.
  const lf = lineText.lastIndexOf('%[');
  if (lf >= 0 && lineText.indexOf(']', lf) < 0) {
    const inner = lineText.slice(lf + 2);
    const slot = sampleSlot(inner);
    const r = wordReplace(doc, lineText, lineStart, offset, /[\[,( \t]/);
    if (slot === 'converter') return converterItems(mk(r.start, r.prefix));
    if (slot === 'fetch') return fetchItems(mk(r.start, r.prefix), false);
    return [];
  }

  // `%` aliases inside log-format strings
  const pct = current.lastIndexOf('%');
  if (pct >= 0 && /^%(\{[^}]*\})?[A-Za-z]*$/.test(current.slice(pct)) && before.length > 0) {
    const nameStart = offset - (current.length - pct) + 1 + (/^%\{[^}]*\}/.exec(current.slice(pct))?.[0].length ?? 1) - 1;
    const ctx = mk(nameStart, text.slice(nameStart, offset));
    return [...LOG_ALIASES].filter(([, i]) => isAvailable(i, target)).map(([n, i]) => item(ctx, n, KIND.variable, i.http ? 'log-format alias (HTTP only)' : 'log-format alias'));
  }

  if (before.length === 0) {
    if (!sec) return sectionItems(wordCtx);
    return keywordItems(wordCtx, sec);
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
        const r = wordReplace(doc, lineText, lineStart, offset, /[, \t]/);
        return converterItems(mk(r.start, r.prefix));
      }
      return [];
    }
    return aclItems(wordCtx, sec, offset);
  }
  if (k === 'acl' && rest.length === 1) {
    if (current.includes(',')) {
      const r = wordReplace(doc, lineText, lineStart, offset, /[, \t]/);
      return converterItems(mk(r.start, r.prefix));
    }
    return fetchItems(wordCtx, true);
  }
  if (!kind || !sec) return [];
  if (PROXY_KINDS.has(kind)) {
    if (rest.length === 0) {
      if (k === 'option' || k === 'timeout' || k === 'stats' || k === 'http-check' || k === 'stick' || k === 'capture' || k === 'email-alert') return familyItems(wordCtx, k, kind, sec);
      if (k === 'tcp-request' || k === 'tcp-response') return familyItems(wordCtx, k, kind, sec);
      if (k === 'http-request' || k === 'http-response' || k === 'http-after-response') return actionItems(wordCtx, k);
      if (k === 'use_backend' || k === 'default_backend') return backendItems(wordCtx, file);
      if (k === 'mode') return Object.entries(MODE_VALUES).filter(([, i]) => isAvailable(i, target)).map(([n]) => item(wordCtx, n, KIND.value, 'mode'));
      if (k === 'balance') return Object.entries(BALANCE_ALGOS).filter(([, i]) => isAvailable(i, target)).map(([n]) => item(wordCtx, n, KIND.value, 'balance algorithm'));
      if (k === 'default-server') return optionItems(wordCtx, 'server');
    }
    if ((k === 'tcp-request' || k === 'tcp-response') && rest.length === 1 && rest[0] !== 'inspect-delay') return actionItems(wordCtx, `${k} ${rest[0]}`);
    if (k === 'bind' && rest.length >= 1) return optionItems(wordCtx, 'bind');
    if (k === 'server' && rest.length >= 2) return optionItems(wordCtx, 'server');
    if (k === 'default-server') return optionItems(wordCtx, 'server');
    return [];
  }
  return [];
}

