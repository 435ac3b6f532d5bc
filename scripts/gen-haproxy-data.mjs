#!/usr/bin/env node
// Generates server/src/languages/haproxy/data/*.json: HAProxy's keywords per version (2.4 .. newest), the
// sections each is allowed in, argument shapes, bind/server options, `option` names, `timeout`
// kinds, actions, sample fetches, converters and ACL derivatives, with the version each appeared
// in or was removed in.
//
// Sources (facts only: names, sections, signatures, versions; no prose is copied):
//   - doc/configuration.txt at each release tag of a HAProxy git checkout
//     (`HAPROXY_GIT=/path/to/haproxy.git node scripts/gen-haproxy-data.mjs`), read with `git show`;
//   - Debian's /usr/share/doc/haproxy/configuration.txt.gz (2.6) when no git checkout is given;
//   - `haproxy -dKall -q -c -f /dev/null` of the local binary (registered keywords, option arities,
//     fetch and converter signatures) for the binary's own version.
// Usage: node scripts/gen-haproxy-data.mjs [--git DIR] [--force]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'server/src/languages/haproxy/data');
const argGit = process.argv.indexOf('--git');
const gitDir = argGit > 0 ? process.argv[argGit + 1] : process.env.HAPROXY_GIT;

/** Release lines judged, oldest first; the last one is the development branch at the checkout's HEAD. */
const RELEASES = ['2.4', '2.5', '2.6', '2.7', '2.8', '2.9', '3.0', '3.1', '3.2', '3.3', '3.4'];

function sh(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
}

function loadDocs() {
  const docs = [];
  if (gitDir && existsSync(gitDir)) {
    const tags = new Set(sh('git', ['-C', gitDir, 'tag']).split('\n'));
    for (const v of RELEASES) {
      const tag = `v${v}.0`;
      if (!tags.has(tag)) continue;
      docs.push({ version: v, text: sh('git', ['-C', gitDir, 'show', `${tag}:doc/configuration.txt`]) });
    }
    const head = sh('git', ['-C', gitDir, 'show', 'HEAD:doc/configuration.txt']);
    const m = /version\s+(\d+\.\d+)/.exec(head.slice(0, 2000));
    const headVersion = m ? m[1] : undefined;
    if (headVersion && !docs.some((d) => d.version === headVersion)) docs.push({ version: headVersion, text: head });
  } else {
    const deb = '/usr/share/doc/haproxy/configuration.txt.gz';
    if (existsSync(deb)) docs.push({ version: '2.6', text: gunzipSync(readFileSync(deb)).toString('utf8') });
  }
  return docs;
}

/** Numbered titles: [{ num: '4.2', title: 'Alphabetically ...', line }]. */
function titles(lines) {
  const out = [];
  for (let i = 0; i < lines.length - 1; i++) {
    const m = /^(\d+(?:\.\d+)*)\.?\s+(\S.*)$/.exec(lines[i]);
    if (m && /^-{3,}/.test(lines[i + 1])) out.push({ num: m[1], title: m[2].trim(), line: i });
  }
  return out;
}

function rangeOf(tl, lines, pred) {
  const i = tl.findIndex(pred);
  if (i < 0) return undefined;
  return { num: tl[i].num, from: tl[i].line + 2, to: i + 1 < tl.length ? tl[i + 1].line : lines.length };
}

/** Range of a title and all its numbered subsections. */
function deepRangeOf(tl, lines, pred) {
  const i = tl.findIndex(pred);
  if (i < 0) return undefined;
  const depth = tl[i].num.split('.').length;
  let j = i + 1;
  while (j < tl.length && tl[j].num.split('.').length > depth && tl[j].num.startsWith(tl[i].num + '.')) j++;
  return { num: tl[i].num, from: tl[i].line + 2, to: j < tl.length ? tl[j].line : lines.length };
}

const HEAD_RE = /^([a-z0-9][a-zA-Z0-9_.*+-]*)(?=[\s(:[]|$)/;

/** Keyword headings: column-0 lines that start with a keyword and lead to an indented description. */
function headings(lines, range) {
  const out = [];
  if (!range) return out;
  let block = [];
  let blank = 0;
  for (let i = range.from; i < range.to; i++) {
    const l = lines[i];
    if (l.length && !/^\s/.test(l)) {
      if (blank) block = [];
      blank = 0;
      block.push(l);
      continue;
    }
    if (!l.trim()) {
      // one blank line may separate a heading from its indented description
      if (++blank > 1) block = [];
      continue;
    }
    const sameFirst = block.every((h) => h.split(' ')[0] === block[0].split(' ')[0]);
    if (/^\s{2,}\S/.test(l) && block.length && (block.length <= 4 || (sameFirst && block.length <= 24))) {
      for (const h of block) if (HEAD_RE.test(h) && !/[.;,]$/.test(h.trim()) && h.length < 140) out.push(h.trimEnd());
    }
    block = [];
    blank = 0;
  }
  return out;
}

function headWord(h) {
  return HEAD_RE.exec(h)?.[1];
}

/** Parses "4.1 Proxy keywords matrix" (and the 4.3 actions matrix when present). */
function proxyMatrix(lines, range) {
  const out = new Map();
  if (!range) return out;
  for (let i = range.from; i < range.to; i++) {
    const l = lines[i];
    const m = /^(\S(?:.*?\S)?)\s{2,}(\(\*\)\s+)?(X|-)(\s*\(!\))?\s+(X|-)\s+(X|-)\s+(X|-)\s*(\(deprecated\))?\s*$/.exec(l);
    if (!m || /^-- keyword|^keyword/.test(l.trim())) continue;
    let name = m[1].replace(/\s*\(\*\)\s*$/, '').trim();
    let noPrefix = !!m[2];
    if (/\(\*\)/.test(m[1])) noPrefix = true;
    let deprecated = !!m[8];
    if (/\(deprecated\)/.test(name)) {
      deprecated = true;
      name = name.replace(/\s*\(deprecated\)/, '').trim();
    }
    const sections = [];
    if (m[3] === 'X') sections.push('defaults');
    if (m[5] === 'X') sections.push('frontend');
    if (m[6] === 'X') sections.push('listen');
    if (m[7] === 'X') sections.push('backend');
    out.set(name, { sections, namedDefaultsOnly: !!m[4], noPrefix, deprecated });
  }
  return out;
}

function actionsMatrix(lines, range) {
  const out = new Map();
  if (!range) return out;
  const cols = [
    'quic-initial',
    'tcp-request connection',
    'tcp-request session',
    'tcp-request content',
    'tcp-response content',
    'http-request',
    'http-response',
    'http-after-response',
  ];
  for (let i = range.from; i < range.to; i++) {
    const m = /^([a-z][a-z0-9_.-]*)(\s+\(deprecated\)|\s+[a-z0-9]+)?\s+((?:[X-]\s+){6,7}[X-])\s*$/.exec(lines[i]);
    if (!m) continue;
    const flags = m[3].trim().split(/\s+/);
    const names = flags.length === 8 ? cols : cols.slice(1);
    const e = { sets: names.filter((_, k) => flags[k] === 'X') };
    if (m[2] && /deprecated/.test(m[2])) e.deprecated = true;
    out.set(m[1], e);
  }
  return out;
}

function globalList(lines, range) {
  const out = [];
  if (!range) return out;
  for (let i = range.from; i < range.to; i++) {
    const m = /^\s+- ([a-z0-9][a-zA-Z0-9_.*-]*)\s*$/.exec(lines[i]);
    if (m) out.push(m[1]);
  }
  return out;
}

/** "ACL derivatives :" blocks under fetch headings. */
function aclDerivatives(lines, range) {
  const out = new Set();
  if (!range) return out;
  for (let i = range.from; i < range.to; i++) {
    if (!/^\s+ACL derivatives\s*:/.test(lines[i])) continue;
    for (let j = i + 1; j < range.to; j++) {
      const m = /^\s{3,}([a-z0-9_.]+)(?:\([^)]*\))?\s*:/.exec(lines[j]);
      if (!m) break;
      out.add(m[1]);
    }
  }
  return out;
}

function predefinedAcls(lines, range) {
  const out = [];
  if (!range) return out;
  for (let i = range.from; i < range.to; i++) {
    const m = /^([A-Z][A-Z0-9_]+)\s{2,}(\S.*?)\s{2,}/.exec(lines[i]);
    if (m) out.push(m[1]);
  }
  return out;
}

const OTHER_SECTIONS = [
  ['userlist', (t) => /^Userlists$/.test(t)],
  ['peers', (t) => /^Peers$|^Peers declaration$/.test(t)],
  ['mailers', (t) => /^Mailers$/.test(t)],
  ['program', (t) => /^Programs( \(deprecated\))?$/.test(t)],
  ['http-errors', (t) => /^HTTP-errors$/.test(t)],
  ['ring', (t) => /^Rings$/.test(t)],
  ['log-forward', (t) => /^Log forwarding$/.test(t)],
  ['resolvers', (t) => /^The resolvers section$/.test(t)],
  ['cache', (t) => /^Cache section$/.test(t)],
  ['fcgi-app', (t) => /^Fcgi-app section$/.test(t)],
  ['traces', (t) => /^Traces$/.test(t)],
  ['crt-store', (t) => /^Certificate Storage$/.test(t)],
  ['acme', (t) => /^ACME$/.test(t)],
  ['log-profile', (t) => /^Log profiles$/.test(t)],
  ['healthcheck', (t) => /^Healthchecks$/.test(t)],
];

function argKinds(syntax) {
  // The shape of the first argument, from the signature's placeholder.
  const m = /^\S+(?:\s+[a-z][a-z0-9-]*)?\s+(<[^>]+>|\[[^\]]*\])/.exec(syntax);
  return m ? m[1] : undefined;
}

function extract(doc) {
  const lines = doc.text.split(/\r?\n/);
  const tl = titles(lines);
  const v = {};
  const globalRange = rangeOf(tl, lines, (t) => /^3$/.test(t.num));
  v.global = new Map();
  const gSyntax = new Map();
  const gSec = new Map();
  for (const t of tl) {
    // Subsections of 3 that document global keywords (older docs also put userlists, peers,
    // rings... under 3; those are sections of their own).
    if (!/^3\.\d+$/.test(t.num) || OTHER_SECTIONS.some(([, pred]) => pred(t.title))) continue;
    const r = rangeOf(tl, lines, (x) => x === t);
    for (const h of headings(lines, r)) {
      const w = headWord(h);
      if (!w) continue;
      if (!gSec.has(w)) gSec.set(w, t.num);
      if (!gSyntax.has(w)) gSyntax.set(w, []);
      gSyntax.get(w).push(h);
    }
  }
  // The list at the top of section 3 plus the keyword headings of its subsections (the list
  // misses a few documented keywords).
  const gNames = new Set([...globalList(lines, globalRange), ...gSec.keys()]);
  for (const k of gNames) v.global.set(k, { syntax: gSyntax.get(k) ?? [], doc: gSec.get(k) ?? '3' });

  const matrix = proxyMatrix(
    lines,
    rangeOf(tl, lines, (t) => /Proxy keywords matrix/.test(t.title)),
  );
  const ref = rangeOf(tl, lines, (t) => /Alphabetically sorted keywords reference/.test(t.title));
  const refHeads = headings(lines, ref);
  v.proxy = new Map();
  for (const [name, info] of matrix) {
    const syntax = refHeads.filter((h) => h === name || h.startsWith(name + ' ') || h.startsWith(name + '('));
    v.proxy.set(name, { ...info, syntax: syntax.slice(0, 4), doc: ref?.num ?? '4.2' });
  }

  // Actions per rule set: the 4.3 matrix when the doc has one, else the 4.2 headings.
  const am = actionsMatrix(
    lines,
    rangeOf(tl, lines, (t) => /Actions keywords matrix/.test(t.title)),
  );
  v.actions = new Map();
  if (am.size) {
    for (const [a, e] of am) v.actions.set(a, { ...e, doc: '4.4' });
  } else {
    const families = [
      ['http-request', /^http-request ([a-z][a-z0-9_.-]*)/],
      ['http-response', /^http-response ([a-z][a-z0-9_.-]*)/],
      ['http-after-response', /^http-after-response ([a-z][a-z0-9_.-]*)/],
      ['tcp-request connection', /^tcp-request connection ([a-z][a-z0-9_.-]*)/],
      ['tcp-request session', /^tcp-request session ([a-z][a-z0-9_.-]*)/],
      ['tcp-request content', /^tcp-request content ([a-z][a-z0-9_.-]*)/],
      ['tcp-response content', /^tcp-response content ([a-z][a-z0-9_.-]*)/],
    ];
    for (const h of refHeads) {
      for (const [set, re] of families) {
        const m = re.exec(h);
        if (!m) continue;
        const a = m[1].replace(/\(.*$/, '');
        if (a === 'action' || a === 'rule') continue;
        const e = v.actions.get(a) ?? { sets: [], doc: ref?.num ?? '4.2' };
        if (!e.sets.includes(set)) e.sets.push(set);
        v.actions.set(a, e);
      }
    }
  }

  const opts = (re, key) => {
    const r = rangeOf(tl, lines, (t) => re.test(t.title));
    const m = new Map();
    for (const h of headings(lines, r)) {
      const w = headWord(h);
      if (!w || w === key) continue;
      if (!m.has(w)) m.set(w, { syntax: [], doc: r.num });
      m.get(w).syntax.push(h);
    }
    return m;
  };
  v.bind = opts(/^Bind options$/, 'bind');
  v.server = opts(/^Server and default-server options$/, 'server');

  const convRange = rangeOf(tl, lines, (t) => /^Converters$/.test(t.title));
  v.converters = new Map();
  for (const h of headings(lines, convRange)) {
    const w = headWord(h);
    if (w && !v.converters.has(w)) v.converters.set(w, { syntax: h, doc: convRange.num });
  }
  v.fetches = new Map();
  v.aclDerivatives = new Set();
  for (const t of tl) {
    if (!/^Fetching samples (from|at|for)|^Fetching HTTP samples/.test(t.title)) continue;
    const r = rangeOf(tl, lines, (x) => x === t);
    for (const h of headings(lines, r)) {
      const w = headWord(h);
      // "name(args) : type" (older docs) or "name(args) type" (newer ones)
      if (!w || !(/ : [a-z]/.test(h) || /^\S+\s+(boolean|integer|string|binary|ip|ipv4|ipv6|address|method|signed integer)\s*$/.test(h)))
        continue;
      if (!v.fetches.has(w)) v.fetches.set(w, { syntax: h, doc: t.num });
    }
    for (const d of aclDerivatives(lines, r)) v.aclDerivatives.add(d);
  }
  // Log-format aliases (%ci, %Tr, ...) from the custom log format table; 'H' marks HTTP-only ones.
  v.logAliases = new Map();
  for (const l of lines) {
    const m = /^\s+\|\s*(H?)\s*\|\s*%([A-Za-z]+)\s*\|/.exec(l);
    if (m) v.logAliases.set(m[2], m[1] ? { http: true } : {});
  }
  // Address prefixes ('ipv4@', 'abnsz@', 'quic+', ...) from the "Address formats" section.
  v.addressPrefixes = new Map();
  for (const l of lines) {
    const m = /^'([a-z0-9]+[@+])/.exec(l);
    if (m) v.addressPrefixes.set(m[1], {});
  }
  v.predefinedAcls = predefinedAcls(
    lines,
    rangeOf(tl, lines, (t) => /^Pre-defined ACLs$/.test(t.title)),
  );

  v.sections = new Map();
  for (const [kw, pred] of OTHER_SECTIONS) {
    const r = deepRangeOf(tl, lines, (t) => pred(t.title));
    if (!r) continue;
    const keys = new Map();
    let sawHeader = false;
    for (const h of headings(lines, r)) {
      const w = headWord(h);
      if (!w) continue;
      if (w === kw) {
        sawHeader = true;
        continue;
      }
      if (!keys.has(w)) keys.set(w, { syntax: [], doc: r.num });
      keys.get(w).syntax.push(h);
    }
    if (sawHeader || keys.size) v.sections.set(kw, { doc: r.num, keywords: keys });
  }
  return v;
}

/** Facts from the local binary: `haproxy -dKall`. */
function binaryFacts() {
  let out = '';
  let version;
  try {
    version = /version (\d+\.\d+)/.exec(sh('haproxy', ['-v']))?.[1];
    try {
      out = sh('haproxy', ['-dKall', '-q', '-c', '-f', '/dev/null']);
    } catch (e) {
      out = String(e.stdout ?? '');
    }
  } catch {
    return undefined;
  }
  if (!out || !version) return undefined;
  const f = {
    version,
    actions: new Map(),
    bind: new Map(),
    server: new Map(),
    converters: new Map(),
    fetches: new Map(),
    acl: new Map(),
    sections: new Map(),
    filters: [],
    services: [],
  };
  let part = '';
  let sect = '';
  for (const line of out.split('\n')) {
    if (line.startsWith('# List of registered ')) {
      part = line.slice(21);
      continue;
    }
    if (line.startsWith('#') || !line.trim()) continue;
    if (part.startsWith('ACL keywords')) {
      const m = /^(\S+) = (\S+)/.exec(line);
      if (m) f.acl.set(m[1], m[2]);
    } else if (part.startsWith('configuration keywords')) {
      if (!/^\s/.test(line)) {
        sect = line.trim();
        continue;
      }
      const t = line.trim();
      let m;
      if (
        (m =
          /^(http-request|http-response|http-after-response|tcp-request (?:connection|session|content)|tcp-response content) ([a-z][a-z0-9_.-]*)/.exec(
            t,
          ))
      ) {
        const e = f.actions.get(m[2]) ?? { sets: [], doc: '4.2' };
        if (!e.sets.includes(m[1])) e.sets.push(m[1]);
        f.actions.set(m[2], e);
      } else if ((m = /^bind <addr> (?:ssl |quic )?(\S+)( \+(-?)\d+)?/.exec(t)))
        f.bind.set(m[1], { takesArg: !!m[2], variadic: m[3] === '-' });
      else if ((m = /^server <name> <addr> (?:ssl )?(\S+)( \+(-?)\d+)?/.exec(t)))
        f.server.set(m[1], { takesArg: !!m[2], variadic: m[3] === '-' });
      else if (!t.includes(' ')) {
        if (!f.sections.has(sect)) f.sections.set(sect, new Set());
        f.sections.get(sect).add(t);
      }
    } else if (part.startsWith('sample converter')) {
      const m = /^([a-z0-9_.-]+)(\(([^)]*)\))?:/.exec(line);
      if (m) f.converters.set(m[1], { args: m[3] ?? '' });
    } else if (part.startsWith('sample fetch')) {
      const m = /\]\s+([a-z0-9_.+-]+)(\(([^)]*)\))?:\s*(\S+)/.exec(line);
      if (m) f.fetches.set(m[1], { args: m[3] ?? '', type: m[4] });
    } else if (part.startsWith('filter names')) {
      f.filters.push(line.split(' ')[0]);
    } else if (part.startsWith('service names')) {
      f.services.push(line.trim());
    }
  }
  return f;
}

/** since/until from the list of versions that have an item. */
function span(present, versions) {
  const idx = versions.map((v) => present.has(v));
  const first = idx.indexOf(true);
  if (first < 0) return undefined;
  const r = {};
  if (first > 0) r.since = versions[first];
  for (let i = first + 1; i < versions.length; i++) {
    if (!idx[i]) {
      // a gap that later closes is a doc omission, not a removal
      if (idx.slice(i).some(Boolean)) continue;
      r.until = versions[i];
      break;
    }
  }
  return r;
}

function mergeTable(perVersion, versions, pick) {
  const presence = new Map();
  const latest = new Map();
  for (const [ver, table] of perVersion) {
    for (const [name, info] of table) {
      if (!presence.has(name)) presence.set(name, new Set());
      presence.get(name).add(ver);
      latest.set(name, pick(info, ver));
    }
  }
  const out = {};
  for (const name of [...presence.keys()].sort()) {
    out[name] = { ...span(presence.get(name), versions), ...latest.get(name) };
  }
  return out;
}

function main() {
  const docs = loadDocs();
  const bin = binaryFacts();
  if (!docs.length && !bin) {
    console.error('no source: give --git DIR or install haproxy-doc');
    process.exit(1);
  }
  const versions = docs.map((d) => d.version);
  // Without a git checkout only the local 2.6 doc is available: never replace richer tables with it.
  try {
    const prev = JSON.parse(readFileSync(join(outDir, 'keywords.json'), 'utf8'));
    if (prev.versions?.length > versions.length && !process.argv.includes('--force')) {
      console.error(
        `data/ covers ${prev.versions.join(', ')}; these sources only ${versions.join(', ')}. Give --git DIR (a HAProxy clone) or --force.`,
      );
      process.exit(1);
    }
  } catch {
    // no previous tables
  }
  const per = docs.map((d) => [d.version, extract(d)]);
  // Names known only from the binary (undocumented, or from optional build features): their
  // absence from other versions' docs says nothing about when they appeared or went away.
  const binOnly = new Set();
  const pv = (k) => per.map(([ver, x]) => [ver, x[k]]);

  // Binary facts complete the doc of the same version (the doc misses some registered names).
  if (bin) {
    const same = per.find(([ver]) => ver === bin.version)?.[1];
    if (same) {
      for (const [n] of bin.bind)
        if (!same.bind.has(n) && binOnly.add('bind:' + n))
          same.bind.set(n, { syntax: [], doc: same.bind.values().next().value?.doc ?? '5.1' });
      for (const [n] of bin.server)
        if (!same.server.has(n) && binOnly.add('server:' + n))
          same.server.set(n, { syntax: [], doc: same.server.values().next().value?.doc ?? '5.2' });
      for (const [n] of bin.converters)
        if (!same.converters.has(n) && binOnly.add('converters:' + n)) same.converters.set(n, { syntax: '', doc: '7.3.1' });
      for (const [n] of bin.fetches)
        if (!same.fetches.has(n) && binOnly.add('fetches:' + n)) same.fetches.set(n, { syntax: '', doc: '7.3' });
      for (const [n] of bin.acl) same.aclDerivatives.add(n);
      for (const [n, e] of bin.actions) {
        if (!same.actions.has(n)) binOnly.add('actions:' + n);
        const cur = same.actions.get(n) ?? { sets: [], doc: e.doc };
        for (const s of e.sets) if (!cur.sets.includes(s)) cur.sets.push(s);
        same.actions.set(n, cur);
      }
      for (const n of bin.sections.get('global') ?? [])
        if (!same.global.has(n) && binOnly.add('global:' + n)) same.global.set(n, { syntax: [], doc: '3' });
    }
  }

  const global = mergeTable(pv('global'), versions, (i) => ({ syntax: i.syntax.slice(0, 3), doc: i.doc }));
  const proxy = mergeTable(pv('proxy'), versions, (i) => {
    const o = { sections: i.sections, doc: i.doc };
    if (i.syntax.length) o.syntax = i.syntax;
    if (i.namedDefaultsOnly) o.namedDefaultsOnly = true;
    if (i.noPrefix) o.noPrefix = true;
    if (i.deprecated) o.deprecated = true;
    return o;
  });
  const argOf = (name) => bin?.bind.get(name) ?? bin?.server.get(name);
  const optPick = (binMap) => (i, ver) => {
    const o = { doc: i.doc };
    if (i.syntax.length) o.syntax = i.syntax.slice(0, 2);
    return o;
  };
  const bind = mergeTable(pv('bind'), versions, optPick());
  const server = mergeTable(pv('server'), versions, optPick());
  // Arity: the binary's registered count when known ("+1" one value, "+-1" a variable number),
  // else whether the documented syntax has a placeholder after the name.
  for (const [table, binMap] of [
    [bind, bin?.bind],
    [server, bin?.server],
  ]) {
    for (const [name, e] of Object.entries(table)) {
      const b = binMap?.get(name);
      e.takesArg = b ? b.takesArg : (e.syntax ?? []).some((s) => /^\S+\s+[<\[{]/.test(s));
      if (b?.variadic) e.variadic = true;
    }
  }
  void argOf;
  const converters = mergeTable(pv('converters'), versions, (i) => ({ syntax: i.syntax || undefined, doc: i.doc }));
  const fetches = mergeTable(pv('fetches'), versions, (i) => ({ syntax: i.syntax || undefined, doc: i.doc }));
  for (const [n, e] of Object.entries(fetches)) {
    const b = bin?.fetches.get(n);
    if (b) {
      e.args = b.args;
      e.type = b.type;
    }
  }
  for (const [n, e] of Object.entries(converters)) {
    const b = bin?.converters.get(n);
    if (b) e.args = b.args;
  }
  const acls = mergeTable(
    per.map(([ver, x]) => [ver, new Map([...x.aclDerivatives].map((n) => [n, {}]))]),
    versions,
    () => ({}),
  );
  const actions = mergeTable(pv('actions'), versions, (i) => ({
    sets: i.sets.sort(),
    doc: i.doc,
    ...(i.deprecated ? { deprecated: true } : {}),
  }));
  // Older docs describe some rule sets' actions in prose, not as headings: an action first seen
  // when its rule sets were first documented one by one is not "new" in that version.
  const setFirst = new Map();
  for (const [ver, x] of per) {
    const counts = new Map();
    for (const e of x.actions.values()) for (const s of e.sets) counts.set(s, (counts.get(s) ?? 0) + 1);
    for (const [s, c] of counts) if (c >= 3 && !setFirst.has(s)) setFirst.set(s, ver);
  }
  for (const e of Object.values(actions)) {
    if (e.since && e.sets.every((s) => versions.indexOf(setFirst.get(s) ?? versions[0]) >= versions.indexOf(e.since))) delete e.since;
  }
  const predefined = mergeTable(
    per.map(([ver, x]) => [ver, new Map(x.predefinedAcls.map((n) => [n, {}]))]),
    versions,
    () => ({}),
  );
  const tables = { global, actions, bind, server, fetches, converters };
  for (const key of binOnly) {
    const [t, n] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const e = tables[t]?.[n];
    if (!e) continue;
    const inDocs = per.some(([, x]) => x[t]?.has?.(n) && x !== per.find(([ver]) => ver === bin.version)?.[1]);
    if (!inDocs) {
      delete e.since;
      delete e.until;
    }
  }
  // Sections: presence per version, and their keywords.
  const sectionPresence = new Map();
  const sectionKeywords = new Map();
  for (const [ver, x] of per) {
    for (const s of ['global', 'defaults', 'frontend', 'backend', 'listen']) {
      if (!sectionPresence.has(s)) sectionPresence.set(s, new Set());
      sectionPresence.get(s).add(ver);
    }
    for (const [s, info] of x.sections) {
      if (!sectionPresence.has(s)) sectionPresence.set(s, new Set());
      sectionPresence.get(s).add(ver);
      if (!sectionKeywords.has(s)) sectionKeywords.set(s, []);
      sectionKeywords.get(s).push([ver, info.keywords]);
    }
  }
  const sections = {};
  for (const [s, pres] of sectionPresence) {
    const o = { ...span(pres, versions) };
    if (sectionKeywords.has(s)) {
      o.keywords = mergeTable(sectionKeywords.get(s), versions, (i) => ({ syntax: i.syntax.slice(0, 2), doc: i.doc }));
      // keywords of a section absent in a version's doc are not "removed" when the section itself was not documented
      for (const e of Object.values(o.keywords)) if (e.since && o.since && e.since === o.since) delete e.since;
    }
    sections[s] = o;
  }

  const header = {
    $comment:
      'GENERATED by scripts/gen-haproxy-data.mjs from HAProxy configuration.txt per release and `haproxy -dKall`; do not edit. Hand-kept exceptions live in overrides.ts.',
    versions,
    binaryVersion: bin?.version,
    source: gitDir ? 'configuration.txt at release tags (git) + haproxy -dKall' : 'Debian configuration.txt (2.6) + haproxy -dKall',
  };
  mkdirSync(outDir, { recursive: true });
  const write = (name, body) => writeFileSync(join(outDir, name), JSON.stringify({ ...header, ...body }, null, 1) + '\n');
  const addressPrefixes = mergeTable(pv('addressPrefixes'), versions, () => ({}));
  const logFormatAliases = mergeTable(pv('logAliases'), versions, (i) => ({ ...i }));
  write('keywords.json', { sections, global, proxy, actions, addressPrefixes, logFormatAliases });
  write('options.json', { bind, server });
  write('samples.json', {
    fetches,
    converters,
    aclDerivatives: acls,
    predefinedAcls: predefined,
    filters: bin?.filters ?? [],
    services: bin?.services ?? [],
  });
  const count = (o) => Object.keys(o).length;
  console.log(
    `versions ${versions.join(' ')}; global ${count(global)}, proxy ${count(proxy)}, actions ${count(actions)}, bind ${count(bind)}, server ${count(server)}, fetches ${count(fetches)}, converters ${count(converters)}, acl derivatives ${count(acls)}, sections ${count(sections)}`,
  );
}

main();
