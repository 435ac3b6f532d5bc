// Hover for HAProxy: what the word under the cursor is (section, keyword, option, action, fetch,
// converter, ACL, backend), its syntax, where it is allowed, since/until which version, our short
// description and a link to the official documentation of the target version.
import type { Hover, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import { findNodeAt, type HaproxyFile, type Section, type Statement, type Word } from './ast';
import {
  ACL_DERIVATIVES,
  ACTIONS,
  BIND_OPTIONS,
  CONVERTERS,
  FETCHES,
  GLOBAL,
  PREDEFINED_ACLS,
  PROXY_KINDS,
  SECTIONS,
  SECTION_KEYWORDS_MAP,
  SERVER_OPTIONS,
  actionKey,
  description,
  docUrl,
  matchProxyKeyword,
  targetVersion,
  type Versioned,
} from './data';
import { DESCRIPTIONS, OPTION_DESCRIPTIONS } from './overrides';
import actionSyntaxJson from './data/actionSyntax.json';

const ACTION_SYNTAX = (actionSyntaxJson as unknown as { actions: Record<string, string[]> }).actions;

export interface DocParts {
  title: string;
  syntax?: string[];
  sections?: string[];
  info?: Versioned & { deprecated?: boolean };
  text?: string;
  url?: string;
}

export function versionLine(info: Versioned | undefined): string | undefined {
  if (!info) return undefined;
  const parts: string[] = [];
  if (info.since) parts.push(`since HAProxy ${info.since}`);
  if (info.until) parts.push(`removed in ${info.until}`);
  // no bound: in every version the tables cover (they start at 2.4, which is not when it appeared)
  return parts.length ? parts.join(', ') : undefined;
}

/** Facts first (syntax, where allowed, versions), then the description and the link. */
export function markdown(p: DocParts): string {
  const out: string[] = [`**${p.title}**`];
  if (p.syntax?.length) out.push('```haproxy\n' + p.syntax.map((s) => s.replace(/\s+\(deprecated\)\s*$/, '')).join('\n') + '\n```');
  const meta: string[] = [];
  if (p.sections?.length) meta.push(`Allowed in: ${p.sections.map((s) => `\`${s}\``).join(', ')}`);
  const v = versionLine(p.info);
  if (v || p.info?.deprecated) meta.push(`Versions: ${v ?? ''}${p.info?.deprecated ? `${v ? ' ' : ''}(deprecated)` : ''}`);
  if (meta.length) out.push(meta.join('  \n'));
  if (p.text) out.push(p.text);
  if (p.url) out.push(`[HAProxy documentation](${p.url})`);
  return out.join('\n\n');
}

function generic(kind: string, name: string): string {
  return `${kind} \`${name}\`.`;
}

/** Documentation of a statement's keyword in its section. */
export function keywordDoc(sectionKind: string | undefined, st: Statement, target: string): DocParts | undefined {
  const kw = st.keyword;
  if (!kw) return undefined;
  const k = kw.value;
  if (!sectionKind || sectionKind === 'global') {
    const info = GLOBAL.get(k);
    if (info)
      return {
        title: `${k} (global)`,
        syntax: info.syntax,
        sections: ['global'],
        info,
        text: description(k) ?? generic('Global setting', k),
        url: docUrl(info.doc, k, target),
      };
    return undefined;
  }
  if (PROXY_KINDS.has(sectionKind)) {
    const m = matchProxyKeyword([k, ...st.args.map((w) => w.value)]);
    if (!m) return undefined;
    return {
      title: m.name,
      syntax: m.info.syntax,
      sections: m.info.sections,
      info: m.info,
      text: description(m.name) ?? description(k) ?? generic('Proxy keyword', m.name),
      url: docUrl(m.info.doc, m.name.replace(/ /g, '%20'), target),
    };
  }
  const info = SECTION_KEYWORDS_MAP.get(sectionKind)?.get(k);
  if (!info) return undefined;
  return {
    title: `${k} (${sectionKind})`,
    syntax: info.syntax,
    sections: [sectionKind],
    info,
    text: description(k) ?? generic(`Keyword of the '${sectionKind}' section`, k),
    url: docUrl(info.doc, k, target),
  };
}

export function sectionDoc(kind: string, target: string): DocParts | undefined {
  const info = SECTIONS.get(kind);
  if (!info) return undefined;
  return {
    title: `${kind} section`,
    info,
    text: DESCRIPTIONS[kind] ?? generic('Section', kind),
    url: docUrl(undefined, undefined, target),
  };
}

export function optionDoc(what: 'bind' | 'server', name: string, target: string): DocParts | undefined {
  const table = what === 'bind' ? BIND_OPTIONS : SERVER_OPTIONS;
  const info = table.get(name) ?? (name.startsWith('no-') ? table.get(name.slice(3)) : undefined);
  if (!info) return undefined;
  return {
    title: `${name} (${what} option)`,
    syntax: info.syntax,
    info,
    text: OPTION_DESCRIPTIONS[name] ?? generic(`Option of \`${what}\` lines${info.takesArg ? ', followed by a value' : ''}`, name),
    url: docUrl(info.doc, name, target),
  };
}

export function fetchDoc(name: string, target: string): DocParts | undefined {
  const info = FETCHES.get(name);
  if (info)
    return {
      title: `${name} (sample fetch${info.type ? ` → ${info.type}` : ''})`,
      syntax: info.syntax ? [info.syntax] : undefined,
      info,
      text: generic('Sample fetch', name),
      url: docUrl(info.doc, name, target),
    };
  const d = ACL_DERIVATIVES.get(name);
  if (d)
    return {
      title: `${name} (ACL criterion)`,
      info: d,
      text: 'A fetch with a predefined matching method, usable in ACLs.',
      url: docUrl('7.3', undefined, target),
    };
  return undefined;
}

export function converterDoc(name: string, target: string): DocParts | undefined {
  const info = CONVERTERS.get(name);
  if (!info) return undefined;
  return {
    title: `${name} (converter)`,
    syntax: info.syntax ? [info.syntax] : undefined,
    info,
    text: generic('Converter', name),
    url: docUrl(info.doc, name, target),
  };
}

export function actionDoc(name: string, target: string): DocParts | undefined {
  const info = ACTIONS.get(actionKey(name));
  if (!info) return undefined;
  const bare = name.replace(/\(.*$/, '');
  const syntax = ACTION_SYNTAX[bare] ?? ACTION_SYNTAX[bare.replace(/\d+$/, '0')] ?? ACTION_SYNTAX[actionKey(name)];
  return {
    title: `${actionKey(name)} (action)`,
    syntax,
    sections: info.sets,
    info,
    text: `Action usable in: ${info.sets.join(', ')}.`,
    url: docUrl(info.doc === '4.4' ? '4.4' : '4.2', undefined, target),
  };
}

function range(doc: TextDocument, w: { start: number; end: number }) {
  return { start: doc.positionAt(w.start), end: doc.positionAt(w.end) };
}

// Per parse (a parse is never changed once made): backends by name, each section's ACLs by name.
const backendsByName = new WeakMap<HaproxyFile, Map<string, Section>>();
const aclsBySection = new WeakMap<Section, Map<string, Statement>>();

function findBackend(file: HaproxyFile, name: string): Section | undefined {
  let byName = backendsByName.get(file);
  if (!byName) {
    byName = new Map();
    for (const s of file.sections)
      if ((s.keyword === 'backend' || s.keyword === 'listen') && s.name && !byName.has(s.name.value)) byName.set(s.name.value, s);
    backendsByName.set(file, byName);
  }
  return byName.get(name);
}

/** The first `acl` line of each name in a section, in file order. */
export function declaredAcls(sec: Section): ReadonlyMap<string, Statement> {
  let byName = aclsBySection.get(sec);
  if (!byName) {
    byName = new Map();
    for (const st of sec.statements) if (st.acl && !byName.has(st.acl.name.value)) byName.set(st.acl.name.value, st);
    aclsBySection.set(sec, byName);
  }
  return byName;
}

export function hoverHaproxy(doc: TextDocument, file: HaproxyFile, pos: Position, settings: ServiceSettings): Hover | null {
  try {
    const target = targetVersion(settings.haproxyVersion);
    const offset = doc.offsetAt(pos);
    const at = findNodeAt(file, offset);
    const st = at.statement;
    const w = at.word;
    if (!st || !w || at.wordIndex === undefined) return null;
    const sec = at.section;
    const kind = sec?.keyword;
    const make = (p: DocParts | undefined, r: Word | { start: number; end: number }): Hover | null =>
      p ? { contents: { kind: 'markdown', value: markdown(p) }, range: range(doc, r) } : null;

    if (at.inHeader && w === st.keyword) return make(sectionDoc(w.value, target), w);
    // sample expressions first: the fetch or a converter under the cursor
    if (at.sample) {
      const s = at.sample;
      if (offset >= s.start && offset <= s.fetchEnd) return make(fetchDoc(s.fetch, target), { start: s.start, end: s.fetchEnd });
      for (const c of s.converters)
        if (offset >= c.start && offset <= c.end) return make(converterDoc(c.name, target), { start: c.start, end: c.nameEnd });
    }
    if (at.term && at.term.kind === 'acl' && at.term.nameWord === w) {
      const name = at.term.name!;
      const pre = PREDEFINED_ACLS.get(name);
      if (pre)
        return make(
          {
            title: `${name} (predefined ACL)`,
            info: pre,
            text: 'An ACL every proxy knows without declaring it.',
            url: docUrl('7.4', undefined, target),
          },
          w,
        );
      const decl = sec ? declaredAcls(sec).get(name) : undefined;
      if (decl)
        return make(
          { title: `ACL ${name}`, syntax: [doc.getText().slice(decl.start, decl.end)], text: `Declared on line ${decl.line + 1}.` },
          w,
        );
      return null;
    }
    if (w === st.keyword || w === st.prefix || (w === st.sub && (st.keyword?.value === 'option' || st.keyword?.value === 'timeout'))) {
      const d = keywordDoc(kind, st, target);
      return make(d, {
        start: (st.prefix ?? st.keyword!).start,
        end: (st.sub && (st.keyword?.value === 'option' || st.keyword?.value === 'timeout') ? st.sub : st.keyword!).end,
      });
    }
    const k = st.keyword?.value ?? '';
    const idx = st.args.indexOf(w);
    if (/^(http-request|http-response|http-after-response)$/.test(k) && idx === 0) return make(actionDoc(w.value, target), w);
    if (/^(tcp-request|tcp-response)$/.test(k) && idx === 1) return make(actionDoc(w.value, target), w);
    if ((k === 'use_backend' || k === 'default_backend') && idx === 0) {
      const b = findBackend(file, w.value);
      if (b) return make({ title: `${b.keyword} ${w.value}`, text: `Declared on line ${b.header.line + 1}.` }, w);
    }
    if (k === 'bind' && idx > 0) return make(optionDoc('bind', w.value, target), w);
    if (k === 'server' && idx > 1) return make(optionDoc('server', w.value, target), w);
    if (k === 'default-server') return make(optionDoc('server', w.value, target), w);
    return null;
  } catch {
    return null;
  }
}
