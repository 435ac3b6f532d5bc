// HAProxy names for navigation: backends, ACLs (per proxy section), servers (per backend),
// userlists, resolvers, peers, mailers, stick tables and named defaults: where each is defined
// and used, with offsets of the bare names. Names used but defined nowhere are reported by the
// module's validation (unknown-backend, undeclared-acl, unknown-reference): no `missing` here.
import type { NavEntity } from '../../core/types';
import type { HaproxyFile, SampleExpr, Section, Statement, Word } from './ast';
import { PROXY_KINDS } from './overrides';

interface ArgSpan {
  value: string;
  start: number;
  end: number;
}

/** The arguments of a sample fetch with their offsets (`sc_conn_rate(0,web)` → `0`, `web`). */
export function sampleArgSpans(text: string, s: SampleExpr): ArgSpan[] {
  const out: ArgSpan[] = [];
  if (text[s.fetchEnd] !== '(') return out;
  let depth = 0;
  let argStart = s.fetchEnd + 1;
  for (let i = s.fetchEnd + 1; i < s.end; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')' && depth > 0) depth--;
    else if ((ch === ',' || ch === ')') && depth === 0) {
      out.push(trimSpan(text, argStart, i));
      argStart = i + 1;
      if (ch === ')') break;
    }
  }
  return out;
}

function trimSpan(text: string, start: number, end: number): ArgSpan {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  return { value: text.slice(start, end), start, end };
}

/** The bare name inside a word (quotes excluded). */
function nameOf(w: Word): { name: string; start: number; end: number } {
  const q = w.quoted && (w.raw.startsWith('"') || w.raw.startsWith("'")) ? 1 : 0;
  return { name: w.value, start: w.start + q, end: w.start + q + w.value.length };
}

function isDynamic(v: string): boolean {
  return v.includes('%[') || v.includes('$');
}

/** Section kinds other names refer to, and whether an unreferenced one is worth a hint. */
const NAMED_SECTIONS: Readonly<Record<string, { kind: string; unused: boolean }>> = {
  backend: { kind: 'backend', unused: true },
  listen: { kind: 'backend', unused: false },
  defaults: { kind: 'defaults', unused: false },
  userlist: { kind: 'userlist', unused: true },
  resolvers: { kind: 'resolvers', unused: true },
  peers: { kind: 'peers', unused: true },
  mailers: { kind: 'mailers', unused: true },
  cache: { kind: 'cache', unused: true },
};

/**
 * Per section (weakly: a section no tree holds any more drops out), its entities when last
 * computed, with where the section's header was and which of its lines a `.if` block disabled.
 * A section keeps its nodes from one version of a document to the next (the re-parse takes the
 * unchanged ones over and moves them, parser.ts), so its entities are the same, moved by as much
 * as its header moved: an edit computes the entities of the sections it touched only.
 */
const bySection = new WeakMap<Section, { headerStart: number; disabled: string; list: NavEntity[] }>();

/** Which of a section's lines a `.if` block disabled ('' for none; `h` for the header). */
function disabledSignature(sec: Section): string {
  let sig = sec.header.disabled ? 'h' : '';
  const list = sec.statements;
  for (let i = 0; i < list.length; i++) if (list[i].disabled) sig += `${i},`;
  return sig;
}

/** Entities moved by `d` characters, the section's scope renamed from `was` to `now`. */
function moved(list: readonly NavEntity[], d: number, was: string, now: string): NavEntity[] {
  const out: NavEntity[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    const m: NavEntity = { ...e, start: e.start + d, end: e.end + d };
    if (e.scope === was) m.scope = now;
    out[i] = m;
  }
  return out;
}

export function haproxyNavEntities(file: HaproxyFile): NavEntity[] {
  const out: NavEntity[] = [];
  for (const sec of file.sections) {
    const disabled = disabledSignature(sec);
    const hit = bySection.get(sec);
    let list: NavEntity[];
    if (hit && hit.disabled === disabled) {
      const d = sec.headerStart - hit.headerStart;
      if (d === 0) list = hit.list;
      else {
        list = moved(hit.list, d, `${sec.keyword}@${hit.headerStart}`, `${sec.keyword}@${sec.headerStart}`);
        bySection.set(sec, { headerStart: sec.headerStart, disabled, list });
      }
    } else {
      list = sectionEntities(file, sec);
      bySection.set(sec, { headerStart: sec.headerStart, disabled, list });
    }
    for (let i = 0; i < list.length; i++) out.push(list[i]);
  }
  return out;
}

/** The entities of one section, in line order. */
function sectionEntities(file: HaproxyFile, sec: Section): NavEntity[] {
  const out: NavEntity[] = [];
  const ref = (kind: string, span: { name: string; start: number; end: number }, scope?: string) => {
    if (!span.name) return;
    if (isDynamic(span.name)) {
      out.push({ role: 'ref', kind, name: span.name, start: span.start, end: span.end, dynamic: true });
      return;
    }
    out.push({ role: 'ref', kind, name: span.name, scope, start: span.start, end: span.end });
  };
  const wordAfter = (st: Statement, key: string): Word | undefined => {
    const i = st.words.findIndex((w) => !w.quoted && w.value === key);
    return i >= 0 ? st.words[i + 1] : undefined;
  };

  {
    if (sec.header.disabled) return out;
    const scope = `${sec.keyword}@${sec.headerStart}`;
    const named = NAMED_SECTIONS[sec.keyword];
    if (named && sec.name) {
      out.push({ role: 'def', kind: named.kind, ...span(nameOf(sec.name)), reportUnused: named.unused });
    }
    if (PROXY_KINDS.has(sec.keyword)) {
      const from = wordAfter(sec.header, 'from');
      if (from) ref('defaults', nameOf(from));
      if (sec.name && sec.statements.some((st) => st.keyword?.value === 'stick-table' && !st.disabled)) {
        out.push({ role: 'def', kind: 'table', ...span(nameOf(sec.name)), reportUnused: false });
      }
    }
    for (const st of sec.statements) {
      if (st.disabled || !st.keyword) continue;
      const k = st.keyword.value;
      if (st.acl) out.push({ role: 'def', kind: 'acl', scope, ...span(nameOf(st.acl.name)), reportUnused: true });
      for (const t of st.condition?.terms ?? []) {
        if (t.kind === 'acl' && t.nameWord && t.name) {
          const n = nameOf(t.nameWord);
          const bang = t.nameWord.value.startsWith('!') ? 1 : 0;
          ref('acl', { name: t.name, start: n.start + bang, end: n.start + bang + t.name.length }, scope);
        }
      }
      switch (k) {
        case 'use_backend':
        case 'default_backend':
          if (st.args[0]) ref('backend', nameOf(st.args[0]));
          break;
        case 'server':
        case 'server-template':
          if (st.args[0] && k === 'server') out.push({ role: 'def', kind: 'server', scope, ...span(nameOf(st.args[0])) });
          break;
        case 'use-server':
          if (st.args[0]) ref('server', nameOf(st.args[0]), scope);
          break;
        case 'email-alert': {
          const w = wordAfter(st, 'mailers');
          if (w && st.sub?.value === 'mailers') ref('mailers', nameOf(w));
          break;
        }
        case 'http-request':
        case 'http-response':
          if (st.args[0] && /^cache-(use|store)$/.test(st.args[0].value) && st.args[1]) ref('cache', nameOf(st.args[1]));
          break;
        case 'filter':
          if (st.args[0]?.value === 'cache' && st.args[1]) ref('cache', nameOf(st.args[1]));
          break;
        case 'table':
          if (sec.keyword === 'peers' && st.args[0]) out.push({ role: 'def', kind: 'table', ...span(nameOf(st.args[0])) });
          break;
      }
      if (k === 'server' || k === 'default-server' || k === 'server-template') {
        const w = wordAfter(st, 'resolvers');
        if (w) ref('resolvers', nameOf(w));
      }
      if (k === 'stick-table') {
        const w = wordAfter(st, 'peers');
        if (w) ref('peers', nameOf(w));
      } else if (k !== 'table') {
        const w = wordAfter(st, 'table');
        if (w) ref('table', nameOf(w));
      }
      for (const s of st.samples) sampleRefs(file.text, s, ref, scope);
    }
  }
  return out;
}

function span(s: { name: string; start: number; end: number }): { name: string; start: number; end: number } {
  return s;
}

type RefFn = (kind: string, span: { name: string; start: number; end: number }, scope?: string) => void;

/** Names inside sample fetch arguments: userlists of `http_auth*`, tables of `sc*_`, `table_*`, `src_*`. */
function sampleRefs(text: string, s: SampleExpr, ref: RefFn, _scope: string): void {
  const f = s.fetch;
  let tableArg = -1;
  if (f === 'http_auth' || f === 'http_auth_group' || f === 'http_auth_bool' || f === 'http_auth_pass' || f === 'http_auth_type') {
    const a = sampleArgSpans(text, s)[0];
    if (a && a.value && f !== 'http_auth_pass' && f !== 'http_auth_type') ref('userlist', { name: a.value, start: a.start, end: a.end });
    return;
  }
  if (/^sc[0-9]_/.test(f) || f.startsWith('table_') || f.startsWith('src_')) tableArg = 0;
  else if (f.startsWith('sc_')) tableArg = 1;
  if (tableArg < 0) return;
  const a = sampleArgSpans(text, s)[tableArg];
  if (a && a.value && !/^\d+$/.test(a.value)) ref('table', { name: a.value, start: a.start, end: a.end });
}
