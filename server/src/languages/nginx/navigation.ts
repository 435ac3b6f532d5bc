// nginx names for navigation: what a file defines (upstreams, named locations, shared-memory
// zones, caches, variables) and where it uses them, with offsets of the bare names. The
// workspace layer (service/workspaceIndex.ts) matches them across the files nginx reads together.
import type { NavEntity } from '../../core/types';
import type { Directive, NginxFile, Word } from './ast';
import { childContext, variablesIn } from './ast';
import { createBlockMemoTable, findMemoBlock, type BlockMemoTable } from './blockMemo';
import { CACHE_PATHS, PASS_DIRECTIVES, VARIABLE_SETTERS } from './data';

const CACHE_USERS: ReadonlySet<string> = new Set(CACHE_PATHS.values());

/** Directives the walk's switch handles (named locations, zones). */
const SWITCH_NAMES: ReadonlySet<string> = new Set([
  'upstream',
  'location',
  'try_files',
  'error_page',
  'post_action',
  'limit_req_zone',
  'limit_conn_zone',
  'limit_req',
  'limit_conn',
]);

// What a directive name asks of the walk, as bits: worked out once per distinct name of a file
// (a few hundred on a config of 40,000 directives) instead of a dozen tests per directive.
const F_SWITCH = 1;
const F_CACHE_PATH = 2;
const F_CACHE_USER = 4;
const F_PASS = 8;
const F_SETS = 16;
/** Lua, njs and Perl directives: they set variables this walk cannot see. */
const F_DYNAMIC = 32;

function flagsOf(name: string): number {
  let f = 0;
  if (SWITCH_NAMES.has(name)) f |= F_SWITCH;
  if (CACHE_PATHS.has(name)) f |= F_CACHE_PATH;
  else if (CACHE_USERS.has(name)) f |= F_CACHE_USER;
  if (PASS_DIRECTIVES.has(name)) f |= F_PASS;
  if (VARIABLE_SETTERS.has(name)) f |= F_SETS;
  if (name.includes('lua') || name.startsWith('js_') || name.startsWith('perl')) f |= F_DYNAMIC;
  return f;
}

/** Offset of the value's character `i` in the text (quotes shift by one; escapes are rare in names). */
function valueOffset(w: Word, i: number): number {
  return w.start + (w.quote === 'none' ? 0 : 1) + i;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The upstream a pass directive names, as nginx resolves it: `http://NAME/...` or a bare `NAME`
 * with no port; undefined for unix sockets, addresses with a port and bracketed IPv6.
 */
function upstreamName(w: Word): { name: string; at: number; dynamic: boolean } | undefined {
  const v = w.value;
  // scanned by hand, not by regular expressions: this runs for every proxy_pass of a config
  const sep = v.indexOf('://');
  const from = sep > 0 && isScheme(v, sep) ? sep + 3 : 0;
  if (from === 0 && v.length >= 5 && v.slice(0, 5).toLowerCase() === 'unix:') return undefined;
  if (v.startsWith('[', from) || v.startsWith('unix:', from)) return undefined;
  let end = from;
  while (end < v.length) {
    const c = v.charCodeAt(end);
    if (c === 47 || c === 58 || c === 63 || c === 35) break; // / : ? #
    end++;
  }
  if (end === from) return undefined;
  const name = v.slice(from, end);
  if (name.includes('$')) return { name, at: from, dynamic: true };
  if (v.charCodeAt(end) === 58) return undefined; // host:port is an address (an upstream{} may not have a port)
  return { name, at: from, dynamic: false };
}

/** Whether `v` up to `end` is a URL scheme: a letter, then letters, digits, `+`, `.` or `-`. */
function isScheme(v: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = v.charCodeAt(i) | 0x20; // ASCII letters to lower case
    const letter = c >= 97 && c <= 122;
    if (i === 0 ? !letter : !letter && !(v.charCodeAt(i) >= 48 && v.charCodeAt(i) <= 57) && v[i] !== '+' && v[i] !== '.' && v[i] !== '-')
      return false;
  }
  return true;
}

/** Whether nginx would have to resolve the name as a host and would fail (single label, not localhost). */
function surelyNotAHost(name: string): boolean {
  return !name.includes('.') && name.toLowerCase() !== 'localhost' && !IPV4.test(name);
}

function zoneArg(words: Word[], key: string): { name: string; start: number; end: number } | undefined {
  for (const w of words) {
    if (!w.value.startsWith(key)) continue;
    const after = w.value.slice(key.length);
    const name = after.split(':')[0];
    if (!name) return undefined;
    const start = valueOffset(w, key.length);
    return { name, start, end: start + name.length };
  }
  return undefined;
}

/**
 * One block body (of a top-level block or a block directly inside one) of the previous walk of the
 * same document: its entities are a function of the body's text, its context and the enclosing
 * server's offset relative to the block (named locations are scoped by `server@OFFSET`), so a body
 * that reads as before is not walked again. Found again as validation finds its blocks: by node
 * (the re-parse hands over every statement that ends before the change) or by distance from the end
 * of the text and equal text (shifted). Holds no node and no slice of the text.
 */
interface NavBlockMemo {
  start: number;
  end: number;
  /** The body's context and the enclosing server's start relative to `start` (empty: none). */
  key: string;
  /** The body's entities in walk order, and its variable references (which go after every other entity). */
  out: NavEntity[];
  refs: NavEntity[];
  /** Whether the body holds a raw block or a Lua/njs/Perl directive. */
  dynamic: boolean;
}

/** Per open document: the block bodies of the last walk, replaced at every walk (the caller keeps it; blockMemo.ts). */
export type NavMemo = BlockMemoTable<NavBlockMemo>;

export function createNavMemo(): NavMemo {
  return createBlockMemoTable<NavBlockMemo>();
}

/** Bodies of blocks this deep (0: top level) or less are memoized. */
const NAV_MEMO_DEPTH = 1;

function shiftEntities(list: NavEntity[], delta: number): NavEntity[] {
  const moved: NavEntity[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    const m: NavEntity = { ...e, start: e.start + delta, end: e.end + delta };
    if (e.scope !== undefined) m.scope = `server@${Number(e.scope.slice(7)) + delta}`;
    moved[i] = m;
  }
  return moved;
}

/**
 * Every name the file defines or uses. `context` is where the file is included (`main` for a whole
 * config). `memo`: the previous walk of the same document (kept by the caller), whose unchanged
 * block bodies are taken over instead of walked.
 */
export function nginxNavEntities(file: NginxFile, context = 'main', memo?: NavMemo): NavEntity[] {
  let out: NavEntity[] = [];
  // variable references go after every other entity (their order in the result), collected in
  // the same walk: a word that defines a variable is known by the time its directive's words are read
  let refs: NavEntity[] = [];
  const defWords = new Set<Word>();
  let dynamicVars = false;
  const flagsByName = new Map<string, number>();
  // what to say if a name is never defined, made once per name: thousands of references name the
  // same few upstreams and zones, and the message is needed only when one of them is missing
  const zoneMessages = new Map<string, NavEntity['missing']>();
  const zoneMissing = (name: string): NavEntity['missing'] => {
    let m = zoneMessages.get(name);
    if (!m)
      zoneMessages.set(
        name,
        (m = { message: `zero size shared memory zone "${name}": no zone of that name is defined.`, severity: 'error' }),
      );
    return m;
  };
  const hostMessages = new Map<string, NavEntity['missing']>();
  const hostMissing = (name: string): NavEntity['missing'] => {
    if (!surelyNotAHost(name)) return undefined;
    let m = hostMessages.get(name);
    if (!m)
      hostMessages.set(
        name,
        (m = {
          message: `host not found in upstream "${name}": no upstream block of that name, and a single-label name is no host nginx can resolve.`,
          severity: 'error',
        }),
      );
    return m;
  };
  /** One walk; the context, stream prefix and enclosing server are worked out once per block. */
  const next = memo ? createNavMemo() : undefined;
  const text = file.text;
  /** The body of block `d` (context `inner`, enclosing server `scope`): the previous walk's entities when it reads the same. */
  const visitBody = (d: Directive, inner: string, scope: string | undefined, scopeStart: number, depth: number): void => {
    const start = d.start;
    const key = scope === undefined ? inner : `${inner}\0${scopeStart - start}`;
    const hit = findMemoBlock(memo!, d, text);
    let entry: NavBlockMemo;
    if (hit !== undefined && hit.key === key) {
      const delta = start - hit.start;
      entry =
        delta === 0
          ? hit
          : { start, end: d.end, key, out: shiftEntities(hit.out, delta), refs: shiftEntities(hit.refs, delta), dynamic: hit.dynamic };
      next!.reused++;
    } else {
      // walked into lists of its own, then appended in walk order
      const outerOut = out;
      const outerRefs = refs;
      const outerDynamic = dynamicVars;
      out = [];
      refs = [];
      dynamicVars = false;
      visit(d.block!.children, inner, scope, scopeStart, depth + 1);
      entry = { start, end: d.end, key, out, refs, dynamic: dynamicVars };
      out = outerOut;
      refs = outerRefs;
      dynamicVars = outerDynamic;
      next!.walked++;
    }
    for (let i = 0; i < entry.out.length; i++) out.push(entry.out[i]);
    for (let i = 0; i < entry.refs.length; i++) refs.push(entry.refs[i]);
    if (entry.dynamic) dynamicVars = true;
    next!.byNode.set(d, entry);
    next!.byEnd.set(text.length - start, entry);
  };
  const visit = (list: Directive[], ctx: string, serverScope: string | undefined, scopeStart: number, depth: number): void => {
    const stream = ctx === 'stream' || ctx.startsWith('stream/');
    const prefix = stream ? 'stream:' : '';
    // indexed loops: this runs once on a big file in the command line, mostly before the JIT
    // has optimised it, where for-of allocates an iterator result per step
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (!d.entry) {
        let flags = flagsByName.get(d.name);
        if (flags === undefined) flagsByName.set(d.name, (flags = flagsOf(d.name)));
        if (!dynamicVars && (d.rawBody || flags & F_DYNAMIC)) dynamicVars = true;
        entities(d, flags, prefix, serverScope);
      }
      // references to variables, entries of map/geo tables included
      if (d.entry) variableRefs(d.nameWord);
      const args = d.args;
      for (let k = 0; k < args.length; k++) variableRefs(args[k]);
      if (d.block && d.block.children.length) {
        const server = d.name === 'server';
        const inner = childContext(ctx, d.name);
        const scope = server ? `server@${d.start}` : serverScope;
        const at = server ? d.start : scopeStart;
        if (next !== undefined && depth <= NAV_MEMO_DEPTH) visitBody(d, inner, scope, at, depth);
        else visit(d.block.children, inner, scope, at, depth + 1);
      }
    }
  };
  const variableRefs = (w: Word): void => {
    if (w.raw.indexOf('$') < 0 || defWords.has(w)) return;
    for (const r of variablesIn(w)) {
      if (/^\d+$/.test(r.name)) continue;
      const start = r.start + (r.braced ? 2 : 1);
      refs.push({ role: 'ref', kind: 'variable', name: r.name.toLowerCase(), start, end: start + r.name.length });
    }
  };
  const entities = (d: Directive, flags: number, prefix: string, serverScope: string | undefined): void => {
    if (flags & F_SWITCH) {
      switch (d.name) {
        case 'upstream': {
          const w = d.args[0];
          if (w && d.block) {
            out.push({
              role: 'def',
              kind: prefix ? 'stream:upstream' : 'upstream',
              name: w.value,
              start: valueOffset(w, 0),
              end: valueOffset(w, w.value.length),
              reportUnused: true,
            });
          }
          break;
        }
        case 'location': {
          const w = d.args[0];
          if (w && w.value.startsWith('@') && w.value.length > 1) {
            out.push({
              role: 'def',
              kind: 'location',
              name: w.value.slice(1),
              scope: serverScope,
              start: valueOffset(w, 1),
              end: valueOffset(w, w.value.length),
            });
          }
          break;
        }
        case 'try_files':
        case 'error_page':
        case 'post_action': {
          const w = d.args[d.args.length - 1];
          if (w && w.value.startsWith('@') && w.value.length > 1 && !w.value.includes('$')) {
            out.push({
              role: 'ref',
              kind: 'location',
              name: w.value.slice(1),
              scope: serverScope,
              start: valueOffset(w, 1),
              end: valueOffset(w, w.value.length),
              missing: { message: `No named location "${w.value}" in this server.`, severity: 'warning' },
            });
          }
          break;
        }
        case 'limit_req_zone':
        case 'limit_conn_zone': {
          const z = zoneArg(d.args, 'zone=');
          if (z)
            out.push({
              role: 'def',
              kind: prefix ? `stream:${d.name}` : d.name,
              name: z.name,
              start: z.start,
              end: z.end,
              reportUnused: true,
            });
          break;
        }
        case 'limit_req': {
          const z = zoneArg(d.args, 'zone=');
          if (z)
            out.push({
              role: 'ref',
              kind: prefix ? 'stream:limit_req_zone' : 'limit_req_zone',
              name: z.name,
              start: z.start,
              end: z.end,
              missing: zoneMissing(z.name),
            });
          break;
        }
        case 'limit_conn': {
          const w = d.args[0];
          if (w && !w.value.includes('$')) {
            out.push({
              role: 'ref',
              kind: prefix ? 'stream:limit_conn_zone' : 'limit_conn_zone',
              name: w.value,
              start: valueOffset(w, 0),
              end: valueOffset(w, w.value.length),
              missing: zoneMissing(w.value),
            });
          }
          break;
        }
      }
    }
    if (flags & F_CACHE_PATH) {
      const z = zoneArg(d.args, 'keys_zone=');
      if (z) out.push({ role: 'def', kind: CACHE_PATHS.get(d.name)!, name: z.name, start: z.start, end: z.end, reportUnused: true });
    } else if (flags & F_CACHE_USER) {
      const w = d.args[0];
      if (w && w.value !== 'off') {
        if (w.value.includes('$')) out.push({ role: 'ref', kind: d.name, name: w.value, start: w.start, end: w.end, dynamic: true });
        else
          out.push({
            role: 'ref',
            kind: d.name,
            name: w.value,
            start: valueOffset(w, 0),
            end: valueOffset(w, w.value.length),
            missing: zoneMissing(w.value),
          });
      }
    }
    if (flags & F_PASS && d.args[0]) {
      const w = d.args[0];
      const u = upstreamName(w);
      if (u) {
        const kind = prefix ? 'stream:upstream' : 'upstream';
        if (u.dynamic) out.push({ role: 'ref', kind, name: u.name, start: w.start, end: w.end, dynamic: true });
        else {
          const start = valueOffset(w, u.at);
          out.push({
            role: 'ref',
            kind,
            name: u.name,
            start,
            end: start + u.name.length,
            missing: hostMissing(u.name),
          });
        }
      }
    }
    // Named regex captures (`location ~ ^/(?<id>\d+)`, `server_name ~^(?P<sub>.+)\.`) define variables.
    for (let k = 0; k < d.args.length; k++) {
      const w = d.args[k];
      if (w.value.indexOf('(?') < 0) continue;
      for (const m of w.value.matchAll(/\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/g)) {
        const start = valueOffset(w, m.index! + m[0].length - m[1].length - 1);
        out.push({ role: 'def', kind: 'variable', name: m[1].toLowerCase(), start, end: start + m[1].length });
      }
    }
    // Variables: definitions first, then every `$name` of the other words.
    const setter = flags & F_SETS ? VARIABLE_SETTERS.get(d.name)! : -2;
    const defIndex = setter === -1 ? d.args.length - 1 : setter;
    if (defIndex >= 0) {
      const w = d.args[defIndex];
      const m = w && /^\$([A-Za-z0-9_]+)$/.exec(w.value);
      if (m) {
        defWords.add(w);
        const unused = d.name === 'map' || d.name === 'geo' || d.name === 'split_clients';
        out.push({
          role: 'def',
          kind: 'variable',
          name: m[1].toLowerCase(),
          start: valueOffset(w, 1),
          end: valueOffset(w, w.value.length),
          reportUnused: unused,
        });
      }
    }
  };
  visit(file.directives, context, undefined, -1, 0);
  if (memo && next) {
    memo.text = text;
    memo.byNode = next.byNode;
    memo.byEnd = next.byEnd;
    memo.reused = next.reused;
    memo.walked = next.walked;
  }
  for (let i = 0; i < refs.length; i++) out.push(refs[i]);
  if (dynamicVars) out.push({ role: 'ref', kind: 'variable', name: '', start: 0, end: 0, dynamic: true });
  return out;
}
