// HAProxy diagnostics: what `haproxy -c` rejects (errors) and what it warns about (warnings),
// judged at a target version (settings.haproxyVersion, else the newest known). Produces Findings
// against the rule rows of rules.ts; the shared rule engine turns them into LSP diagnostics.
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Fix } from '../../core/rules';
import { haproxyRegistry as haproxyRules, type HaproxyFinding as Finding, type HaproxyRuleName } from './rules';
import type { ServiceSettings } from '../../core/types';
import { compareVersions } from '../../core/version';
import type { CondTerm, HaproxyFile, SampleExpr, Section, Statement, Word } from './ast';
import {
  LOG_ALIASES,
  LOG_FORMAT_ACTIONS,
  LOG_FORMAT_KEYWORDS,
  logAliasesIn,
  ADDRESS_PREFIXES,
  ACL_DERIVATIVES,
  ACTIONS,
  BIND_OPTIONS,
  CONVERTERS,
  FETCHES,
  GLOBAL,
  OPTION_NAMES,
  PREDEFINED_ACLS,
  PROXY,
  PROXY_KINDS,
  probedCheck,
  probedFirst,
  SECTIONS,
  SECTION_KEYWORDS_MAP,
  SERVER_OPTIONS,
  TIMEOUT_KINDS,
  actionKey,
  availability,
  didYouMean,
  docUrl,
  isAvailable,
  matchProxyKeyword,
  removedInfo,
  targetVersion,
  type KeywordInfo,
  type OptionInfo,
  type Versioned,
} from './data';
import { httpOnlyKeyword } from './overrides';
import { BALANCE_ALGOS, OPTIONAL_MODULE_SAMPLES, PLACEMENT_ERRORS, INT_KEYWORDS, INT_OPTIONS, MODE_VALUES, NOT_KEYWORDS_IN_GLOBAL, TIME_ARGS, TIME_OPTIONS } from './overrides';

/**
 * Candidate lists of the typo suggestions, built once per table and target version instead of
 * once per unknown word (didYouMean also remembers its answers per list).
 */
const candidateLists = new Map<string, string[]>();
function candidateList(key: string, build: () => string[]): string[] {
  let list = candidateLists.get(key);
  if (!list) candidateLists.set(key, (list = build()));
  return list;
}
const globalCandidates = (target: string) => candidateList(`global ${target}`, () => [...GLOBAL].filter(([, i]) => isAvailable(i, target)).map(([n]) => n));
const proxyCandidates = () => candidateList('proxy', () => [...new Set([...PROXY.keys()].map((n) => n.split(' ')[0]))]);

/** Words of the longest multi-word proxy keyword (`option http-keep-alive`, `timeout http-request`...). */
const PROXY_KEYWORD_WORDS = Math.max(1, ...[...PROXY.keys()].map((n) => n.split(' ').length));
/** Fetch and converter names with quotes, backslashes or `$` are not judged. */
const UNCHECKED_NAME = /[$"'\\]/;
const FETCH_NAME = /^[a-zA-Z0-9_.+-]+$/;
const SERVER_LINE = /^(server|server-template|dispatch)$/;
const TRACK_SC = /^track-sc\d$/;
const HTTP_AUTH = /^http_auth(_group)?$/;
const CACHE_ACTION = /^cache-(use|store)$/;
const NAME_WITH_EXPANSION = /[$%]/;


const RULE_KEYWORDS = new Set(['http-request', 'http-response', 'http-after-response', 'tcp-request', 'tcp-response']);
const TIME_RE = /^\d+(us|ms|s|m|h|d)?$/;
const SIZE_RE = /^\d+[kmgKMG]?$/;
const INT_RE = /^-?\d+$/;

interface ProxyFacts {
  /** `server` names of this proxy, with their line (duplicate-server). */
  servers?: Map<string, Statement>;
  section: Section;
  kind: string;
  name: string;
  mode?: string;
  modeWord?: Word;
  timeouts: Set<string>;
  acls: Map<string, number>;
  hasRules: boolean;
  hasConnRules: boolean;
  parent?: ProxyFacts;
  backendRefs: { word: Word; st: Statement }[];
}

class Checker {
  readonly out: Finding[] = [];
  readonly target: string;
  readonly judgedNewest: boolean;

  constructor(
    readonly file: HaproxyFile,
    settings: ServiceSettings,
  ) {
    this.target = targetVersion(settings.haproxyVersion);
    this.judgedNewest = !settings.haproxyVersion;
  }

  add(ruleId: HaproxyRuleName, at: { start: number; end: number }, message: string, extra: Partial<Finding> = {}): void {
    this.out.push({ ruleId: `haproxy/${ruleId}`, start: at.start, end: at.end, message, ...extra });
  }

  /** Availability of each table entry at the target, asked once per entry (keyed by the entry itself). */
  private readonly availabilities = new Map<Versioned, 'ok' | 'newer' | 'removed'>();

  private availabilityOf(info: Versioned): 'ok' | 'newer' | 'removed' {
    let a = this.availabilities.get(info);
    if (a === undefined) this.availabilities.set(info, (a = availability(info, this.target)));
    return a;
  }

  /** Whether an entry exists at the target (nothing to report): callers skip building `version`'s message. */
  ok(info: Versioned): boolean {
    return this.availabilityOf(info) === 'ok';
  }

  /** Reports "needs newer" or "removed" for an entry; true when usable. */
  version(info: Versioned, at: { start: number; end: number }, what: string, replacement?: string): boolean {
    const a = this.availabilityOf(info);
    if (a === 'newer') {
      this.add('needs-newer-version', at, `${what} needs HAProxy >= ${info.since} (judging for ${this.target}).`);
      return false;
    }
    if (a === 'removed') {
      this.add('removed-keyword', at, `${what} was removed in HAProxy ${info.until}${replacement ? `: use ${replacement}` : ''}.`);
      return false;
    }
    return true;
  }

  replaceFix(w: Word, text: string, safe = false): Fix[] {
    return [{ title: `Replace with '${text}'`, edits: [{ start: w.start, end: w.end, newText: text }], safe }];
  }

  lineRange(st: Statement): { start: number; end: number } {
    const ls = this.file.lineStarts;
    const start = ls[st.line] ?? st.start;
    const end = st.line + 1 < ls.length ? ls[st.line + 1] : this.file.text.length;
    return { start, end };
  }
}

/** `.if`/`.elif`/`.else`/`.endif`: marks statements of branches that are not taken as disabled. */
function applyConditionalBlocks(c: Checker, statements: Statement[]): void {
  const stack: { active: boolean; taken: boolean; parentActive: boolean }[] = [];
  const active = () => (stack.length ? stack[stack.length - 1].active : true);
  for (const st of statements) {
    const k = st.keyword?.value ?? '';
    if (k === '.if') {
      const pa = active();
      const v = pa && evalCond(st.args, c.target);
      stack.push({ active: v, taken: v, parentActive: pa });
      continue;
    }
    if (k === '.elif') {
      const top = stack[stack.length - 1];
      if (!top) continue;
      const v = top.parentActive && !top.taken && evalCond(st.args, c.target);
      top.active = v;
      top.taken ||= v;
      continue;
    }
    if (k === '.else') {
      const top = stack[stack.length - 1];
      if (!top) continue;
      top.active = top.parentActive && !top.taken;
      top.taken = true;
      continue;
    }
    if (k === '.endif') {
      stack.pop();
      continue;
    }
    if (!active()) st.disabled = true;
  }
}

/** Judges a `.if` expression without the running process: versions against the target, features as present. */
function evalCond(args: Word[], target: string): boolean {
  const text = args.map((w) => w.value).join(' ');
  const ors = text.split('||');
  return ors.some((or) =>
    or.split('&&').every((termRaw) => {
      let term = termRaw.trim();
      let neg = false;
      while (term.startsWith('!')) {
        neg = !neg;
        term = term.slice(1).trim();
      }
      const m = /^([a-z_]+)\((.*)\)$/.exec(term);
      let v = true;
      if (m) {
        const arg = m[2].split(',')[0].trim().replace(/^"|"$/g, '');
        switch (m[1]) {
          case 'version_atleast':
            v = compareVersions(target, arg) >= 0;
            break;
          case 'version_before':
            v = compareVersions(target, arg) < 0;
            break;
          case 'ssllib_name_startswith':
            v = /^openssl/i.test(arg);
            break;
          case 'streq':
            v = m[2].split(',').map((s) => s.trim()).every((s, _i, a) => s === a[0]);
            break;
          case 'strneq':
            v = !m[2].split(',').map((s) => s.trim()).every((s, _i, a) => s === a[0]);
            break;
          default:
            v = true;
        }
      } else if (term === '0' || term === '') v = term !== '0';
      return neg ? !v : v;
    }),
  );
}

function sectionName(sec: Section): string {
  return sec.name?.value ?? '';
}

function checkHeader(c: Checker, sec: Section): void {
  const info = SECTIONS.get(sec.keyword);
  const kwWord = sec.header.keyword!;
  if (info && !c.ok(info)) c.version(info, kwWord, `The '${sec.keyword}' section`);
  const args = sec.header.args;
  const kind = sec.keyword;
  if (kind === 'program' && (!info || c.ok(info))) checkProgramSection(c, kwWord);
  if (kind === 'global') {
    if (args.length) c.add('arg', { start: args[0].start, end: args[args.length - 1].end }, `'global' takes no argument (each setting goes on its own line).`);
    return;
  }
  if (kind === 'defaults' || kind === 'frontend' || kind === 'backend' || kind === 'listen') {
    if (kind !== 'defaults' && !args.length) {
      c.add('arg', kwWord, `'${kind}' needs a name.`);
      return;
    }
    let rest = kind === 'defaults' ? args.slice(args[0]?.value === 'from' ? 0 : 1) : args.slice(1);
    if (rest[0]?.value === 'from') {
      if (!rest[1]) c.add('arg', rest[0], `'from' needs the name of a defaults section.`);
      rest = rest.slice(2);
    }
    if (rest.length) {
      // HAProxy refuses extra words on a frontend/listen line and only complains about them elsewhere.
      if (kind === 'frontend' || kind === 'listen')
        c.add('arg', { start: rest[0].start, end: rest[rest.length - 1].end }, `Listening addresses go on a 'bind' line, not on the '${kind}' line.`);
      else c.add('arg', { start: rest[0].start, end: rest[rest.length - 1].end }, `'${kind}' ignores the extra argument '${rest[0].value}'.`, { severity: 'warning' });
    }
    return;
  }
  if (kind !== 'traces' && kind !== 'crt-store' && !args.length) c.add('arg', kwWord, `'${kind}' needs a name.`);
}

/** `program` sections: deprecated, refused from the probed 3.2 on unless `expose-deprecated-directives` is set. */
function checkProgramSection(c: Checker, at: Word): void {
  const verdict = probedCheck('program section', c.target);
  if (!verdict || verdict === 'accepted') return;
  const exposed = c.file.sections.some((s) => s.keyword === 'global' && s.statements.some((st) => !st.disabled && st.keyword?.value === 'expose-deprecated-directives'));
  if (exposed) return;
  const first = probedFirst('program section', 'refused');
  if (verdict === 'refused')
    c.add('deprecated', at, `The 'program' section is deprecated: HAProxy ${c.target} refuses it unless 'global' sets 'expose-deprecated-directives' (HAProxy ${first ?? ''} does); supervise programs outside HAProxy.`, { severity: 'error', deprecated: true });
  else c.add('deprecated', at, `The 'program' section is deprecated${first ? ` (HAProxy ${first} refuses it without 'expose-deprecated-directives')` : ''}.`, { deprecated: true });
}

function checkTime(c: Checker, w: Word | undefined, at: { start: number; end: number }, what: string): void {
  if (!w) {
    c.add('arg', at, `${what} needs a time value.`);
    return;
  }
  if (w.envVars || w.value.includes('$')) return;
  if (!TIME_RE.test(w.value)) {
    const m = /^(\d+)(.*)$/.exec(w.value);
    const hint = m ? ` (unit '${m[2]}' is not one of us, ms, s, m, h, d)` : '';
    c.add('invalid-time', w, `Invalid time value '${w.value}' for ${what}${hint}.`);
  }
}

/** `%alias` references in log-format arguments must be known aliases. */
function checkLogFormat(c: Checker, st: Statement, k: string): void {
  let words: Word[] = [];
  if (LOG_FORMAT_KEYWORDS.has(k)) words = st.args;
  else if ((k === 'http-request' || k === 'http-response' || k === 'http-after-response') && st.args[0] && LOG_FORMAT_ACTIONS.has(actionKey(st.args[0].value))) words = st.args.slice(1);
  for (const w of words) {
    if (!w.raw.includes('%') || w.envVars) continue;
    for (const a of logAliasesIn(w.raw, w.start)) {
      const info = LOG_ALIASES.get(a.name);
      if (!info) c.add('log-format', a, `Unknown log-format alias '%${a.name}'.`);
      else if (!c.ok(info)) c.version(info, a, `Log-format alias '%${a.name}'`);
    }
  }
}

/** Address prefixes (`abnsz@`, `quic+`, ...) by version; unknown ones are only warned about. */
function checkAddress(c: Checker, w: Word): void {
  if (w.envVars || w.value.includes('$')) return;
  // a prefix ends in '@' or '+': an address without either has none (most: `127.0.0.1:80`)
  if (w.value.indexOf('@') < 0 && w.value.indexOf('+') < 0) return;
  for (const part of w.value.split(',')) {
    const m = /^([a-z0-9]+[@+])/.exec(part);
    if (!m) continue;
    const info = ADDRESS_PREFIXES.get(m[1]);
    const at = { start: w.start, end: w.end };
    if (!info) c.add('arg', at, `Unknown address prefix '${m[1]}'.`, { severity: 'warning' });
    else c.version(info, at, `Address prefix '${m[1]}'`);
  }
}

const IPV4_LITERAL = /^\d{1,3}(\.\d{1,3}){3}$/;
/** Families by prefix: socket paths (no port), file descriptors, datagram sockets; the rest are IP families. */
const PATH_PREFIXES = new Set(['unix@', 'uxst@', 'abns@', 'abnsz@']);
const FD_PREFIXES = new Set(['fd@', 'sockpair@']);
const DGRAM_PREFIXES = new Set(['udp@', 'udp4@', 'udp6@', 'uxdg@']);
const IP_PREFIXES = new Set(['', 'ipv4@', 'ipv6@', 'tcp@', 'tcp4@', 'tcp6@', 'mptcp@', 'mptcp4@', 'mptcp6@']);
/** From this version on HAProxy refuses a port with trailing junk (`80x`); 2.6 read it as 80 (both seen with haproxy -c). */
const STRICT_PORT_SINCE = '3.0';

/**
 * The form of a `bind` or `server` address, as HAProxy's address parser reads it (section 11,
 * "Address formats"): `[prefix@]host:port`, the port after the last colon (`::1:80`, `[::1]:80`),
 * ranges (`8000-8010`) on bind only, offsets (`+1`, `-1`) on servers only, socket paths and
 * `fd@N` without a port. Every verdict was seen from `haproxy -c` 2.6, 3.0 and 3.2
 * (test/haproxy/address.test.ts); forms HAProxy only resolves at start-up (host names) are left alone.
 */
function checkAddressForm(c: Checker, w: Word, kind: 'bind' | 'server'): void {
  if (w.envVars || w.value.includes('$')) return;
  const parts = w.value.split(',');
  if (kind === 'server' && parts.length > 1) {
    c.add('address', w, `A server has one address; '${w.value}' lists several (a comma list is for 'bind').`);
    return;
  }
  for (const part of parts) {
    const m = /^((?:[a-z0-9]+\+)*)([a-z0-9]+@)?(.*)$/.exec(part)!;
    const prefix = m[2] ?? '';
    const rest = m[3];
    if (!prefix && rest.startsWith('/')) continue; // a UNIX socket path
    if (PATH_PREFIXES.has(prefix)) continue;
    if (FD_PREFIXES.has(prefix)) {
      if (prefix === 'fd@' && kind === 'server') c.add('address', w, `A server cannot connect through a file descriptor ('${part}').`);
      else if (!/^\d+$/.test(rest)) c.add('address', w, `'${prefix}' needs a file descriptor number, not '${rest}'.`);
      continue;
    }
    if (DGRAM_PREFIXES.has(prefix)) {
      c.add('address', w, `'${prefix}' is a datagram address; a ${kind === 'bind' ? 'frontend' : 'server'} of a proxy needs a stream address (tcp, unix, ...).`);
      continue;
    }
    if (!IP_PREFIXES.has(prefix) || m[1]) continue; // quic4@, rhttp@, ...: depends on the build; the prefix check reports unknown ones
    // host and port: `[v6]:port`, else the port follows the last colon
    let host = rest;
    let port: string | undefined;
    if (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      host = close > 0 ? rest.slice(1, close) : rest.slice(1);
      const after = close > 0 ? rest.slice(close + 1) : '';
      if (after.startsWith(':')) port = after.slice(1);
    } else {
      const colon = rest.lastIndexOf(':');
      if (colon >= 0) {
        host = rest.slice(0, colon);
        port = rest.slice(colon + 1);
      }
    }
    const at = { start: w.start, end: w.end };
    if (IPV4_LITERAL.test(host) && host.split('.').some((o) => Number(o) > 255)) {
      c.add('address', at, `'${host}' is not a valid IPv4 address (each part is 0-255).`);
      continue;
    }
    const v6 = host.includes(':');
    if ((prefix === 'ipv4@' || prefix === 'tcp4@') && v6) c.add('address', at, `'${host}' is an IPv6 address; '${prefix}' takes IPv4 ones.`);
    else if ((prefix === 'ipv6@' || prefix === 'tcp6@') && IPV4_LITERAL.test(host)) c.add('address', at, `'${host}' is an IPv4 address; '${prefix}' takes IPv6 ones.`);
    if (port === undefined || port === '') {
      if (kind === 'bind') c.add('address', at, `'bind ${part}' needs a port (${host || '*'}:PORT).`);
      continue;
    }
    checkPort(c, at, port, kind);
  }
}

function checkPort(c: Checker, at: { start: number; end: number }, port: string, kind: 'bind' | 'server'): void {
  if (/^[+-]/.test(port)) {
    if (kind === 'bind') c.add('address', at, `A port offset ('${port}') is for servers (relative to the port the client reached), not for 'bind'.`);
    return; // servers: HAProxy takes any offset
  }
  const range = /^(\d+)-(.*)$/.exec(port);
  if (range && !/^\d+$/.test(range[2])) {
    // `65016-`, `65016--1024`: HAProxy reads the part after the dash as the last port
    c.add('address', at, `Invalid port '${range[2]}' at the end of the range '${port}'.`);
    return;
  }
  const m = /^(\d+)(?:-(\d+))?(.*)$/.exec(port);
  if (!m) {
    c.add('address', at, `Invalid port '${port}'.`);
    return;
  }
  const [, lo, hi, junk] = m;
  if (junk) {
    if (compareVersions(c.target, STRICT_PORT_SINCE) >= 0) c.add('address', at, `Invalid character '${junk[0]}' in port '${port}'.`);
    else c.add('address', at, `HAProxy ${c.target} reads port '${port}' as ${lo} and ignores '${junk}'; from ${STRICT_PORT_SINCE} on it refuses it.`, { severity: 'warning' });
  }
  if (hi !== undefined && kind === 'server') {
    c.add('address', at, `A port range ('${lo}-${hi}') is for 'bind'; a server connects to one port.`);
    return;
  }
  const min = kind === 'bind' ? 1 : 0;
  for (const p of hi !== undefined ? [lo, hi] : [lo]) {
    if (Number(p) < min || Number(p) > 65535) {
      c.add('address', at, `Invalid port '${p}' (${min}-65535).`);
      return;
    }
  }
  if (hi !== undefined && Number(hi) < Number(lo)) c.add('address', at, `Invalid port range '${lo}-${hi}': the first port must not be above the last.`);
}

function checkInt(c: Checker, w: Word | undefined, at: { start: number; end: number }, what: string): void {
  if (!w) {
    c.add('arg', at, `${what} needs a number.`);
    return;
  }
  if (w.envVars || w.value.includes('$')) return;
  if (INT_RE.test(w.value)) return;
  // HAProxy reads many counts with atol(): `16k` silently becomes 16, which is worse than an error.
  const lead = /^-?\d+/.exec(w.value);
  if (lead) c.add('invalid-size', w, `'${w.value}' is read as ${lead[0]} (${what} takes a plain number, no unit).`, { severity: 'warning' });
  else c.add('invalid-size', w, `'${w.value}' is not a whole number (${what}).`);
}

function checkSize(c: Checker, w: Word | undefined, at: { start: number; end: number }, what: string): void {
  if (!w) {
    c.add('arg', at, `${what} needs a size.`);
    return;
  }
  if (w.envVars || w.value.includes('$')) return;
  if (!SIZE_RE.test(w.value)) c.add('invalid-size', w, `Invalid size '${w.value}' for ${what} (a number with an optional k, m or g suffix).`);
}

function checkGlobal(c: Checker, st: Statement): void {
  const kw = st.keyword!;
  const k = kw.value;
  const two = st.args[0] ? `${k} ${st.args[0].value}` : '';
  const notKw = NOT_KEYWORDS_IN_GLOBAL[(st.prefix ? `${st.prefix.value} ` : '') + k + (st.args[0] ? ` ${st.args[0].value}` : '')] ?? (two ? undefined : NOT_KEYWORDS_IN_GLOBAL[k]);
  const notKw2 = notKw ?? (st.prefix ? NOT_KEYWORDS_IN_GLOBAL[`${st.prefix.value} ${k}`] : undefined);
  if (notKw2) {
    const range = { start: st.start, end: st.end };
    const fixes: Fix[] = [];
    const defaults = c.file.sections.find((s) => s.keyword === 'defaults');
    if (defaults && notKw2.replacement) {
      const line = c.lineRange(st);
      const insertAt = defaults.header.line + 1 < c.file.lineStarts.length ? c.file.lineStarts[defaults.header.line + 1] : c.file.text.length;
      const indent = /^[ \t]*/.exec(c.file.text.slice(line.start))?.[0] || '    ';
      fixes.push({
        title: `Move to '${defaults.header.words.map((w) => w.raw).join(' ')}' as '${notKw2.replacement}'`,
        edits: [
          { start: insertAt, end: insertAt, newText: `${indent}${notKw2.replacement}\n` },
          { start: line.start, end: line.end, newText: '' },
        ],
        safe: false,
      });
    }
    if (notKw2.accepted)
      c.add('unknown-keyword', range, `'${st.words.map((w) => w.value).join(' ')}' in 'global' only removes the global log targets declared above it; to stop logging, use ${notKw2.use}.`, { fixes, severity: 'information' });
    else c.add('unknown-keyword', range, `'${st.words.map((w) => w.value).join(' ')}' is not a 'global' keyword; use ${notKw2.use}.`, { fixes });
    return;
  }
  if (st.prefix) {
    c.add('unknown-keyword', st.prefix, `'${st.prefix.value}' is not a 'global' keyword.`);
    return;
  }
  const info = GLOBAL.get(k);
  if (!info) {
    const rem = removedInfo(k);
    if (rem && rem.sections !== 'proxy') {
      const fixes = k === 'nbproc' ? c.replaceFix(kw, 'nbthread') : undefined;
      if (compareVersions(c.target, rem.until) >= 0) c.add('removed-keyword', kw, `'${k}' was removed in HAProxy ${rem.until}: use ${rem.use}.`, { fixes });
      return;
    }
    if (PROXY.has(k) || matchProxyKeyword(st.words.map((w) => w.value))) {
      c.add('not-allowed-here', kw, `'${k}' belongs in a proxy section (defaults, frontend, listen, backend), not in 'global'.`);
      return;
    }
    const guess = didYouMean(k, globalCandidates(c.target));
    c.add('unknown-keyword', kw, `Unknown keyword '${k}' in 'global'${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(kw, guess) } : {});
    return;
  }
  const rem = removedInfo(k);
  if (!c.version(info, kw, `'${k}'`, rem?.use)) {
    if (k === 'nbproc') {
      const last = c.out[c.out.length - 1];
      last.fixes = c.replaceFix(kw, 'nbthread');
    }
    return;
  }
  if (INT_KEYWORDS.has(k)) {
    checkInt(c, st.args[0], kw, `'${k}'`);
    if (st.args.length > 1) c.add('arg', { start: st.args[1].start, end: st.args[st.args.length - 1].end }, `'${k}' takes one argument; '${st.args[1].value}' is unexpected.`);
  }
  if (k in TIME_ARGS) checkTime(c, st.args[TIME_ARGS[k]], kw, `'${k}'`);
  if (k === 'log') checkLogTarget(c, st);
  if (!st.args.length && info.syntax?.length && info.syntax.every((s) => /^\S+\s+</.test(s))) c.add('arg', kw, `'${k}' needs an argument (${info.syntax[0]}).`);
}

function checkLogTarget(c: Checker, st: Statement): void {
  const t = st.args[0];
  if (!t || t.value === 'global' || t.envVars) return;
  if (/:\d+-\d+$/.test(t.value)) c.add('arg', t, `A port range is not allowed in a log target ('${t.value}').`);
}

interface Ctx {
  c: Checker;
  sec: Section;
  kind: string;
  facts: ProxyFacts;
  backends: Set<string>;
}

function checkProxyStatement(x: Ctx, st: Statement): void {
  const { c, kind } = x;
  const kw = st.keyword!;
  const k = kw.value;
  // matchProxyKeyword reads no further than the longest keyword's words
  const stArgs = st.args;
  const width = Math.min(stArgs.length + 1, PROXY_KEYWORD_WORDS);
  const values: string[] = [kw.value];
  for (let i = 1; i < width; i++) values.push(stArgs[i - 1].value);
  const m = matchProxyKeyword(values);
  const endWord = m ? (m.width > 1 ? st.args[m.width - 2] : kw) : kw;
  const nameRange = { start: kw.start, end: endWord?.end ?? kw.end };
  if (!m) {
    const two = st.args[0] ? `${k} ${st.args[0].value}` : k;
    const rem = removedInfo(two) ?? removedInfo(k);
    if (rem) {
      if (compareVersions(c.target, rem.until) >= 0) c.add('removed-keyword', nameRange, `'${removedInfo(two) ? two : k}' was removed in HAProxy ${rem.until}: use ${rem.use}.`);
      return;
    }
    if (k === 'option') {
      const o = st.args[0];
      if (!o) return void c.add('arg', kw, `'option' needs an option name.`);
      const guess = didYouMean(o.value, OPTION_NAMES);
      c.add('unknown-keyword', o, `Unknown option '${o.value}'${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(o, guess) } : {});
      return;
    }
    if (k === 'timeout') {
      const o = st.args[0];
      if (!o) return void c.add('arg', kw, `'timeout' needs a kind (${TIMEOUT_KINDS.slice(0, 6).join(', ')}, ...).`);
      const guess = didYouMean(o.value, TIMEOUT_KINDS);
      c.add('unknown-keyword', o, `Unknown timeout '${o.value}'${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(o, guess) } : {});
      return;
    }
    const family = [...PROXY.keys()].filter((n) => n.startsWith(k + ' '));
    if (family.length && st.args[0]) {
      const guess = didYouMean(`${k} ${st.args[0].value}`, family);
      c.add('unknown-keyword', { start: kw.start, end: st.args[0].end }, `Unknown '${k}' parameter '${st.args[0].value}'${guess ? `; did you mean '${guess}'?` : '.'}`);
      return;
    }
    if (GLOBAL.has(k)) {
      c.add('not-allowed-here', kw, `'${k}' is a 'global' keyword, not allowed in '${kind}'.`);
      return;
    }
    const guess = didYouMean(k, proxyCandidates());
    c.add('unknown-keyword', kw, `Unknown keyword '${k}' in '${kind}' section${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(kw, guess) } : {});
    return;
  }
  const info = m.info;
  const name = m.name;
  if (st.prefix && !info.noPrefix) {
    c.add('arg', st.prefix, `'${name}' cannot be prefixed with '${st.prefix.value}'.`);
  }
  if (!c.ok(info) && !c.version(info, nameRange, `'${name}'`, removedInfo(name)?.use)) return;
  if (info.deprecated) {
    const rem = removedInfo(name);
    c.add('deprecated', nameRange, `'${name}' is deprecated${rem ? `; use ${rem.use}` : ''}.`, { deprecated: true });
  }
  const sections = info.sections ?? [];
  if (!sections.includes(kind)) {
    if (kind === 'defaults') {
      c.add('not-allowed-here', nameRange, `'${name}' is not allowed in a 'defaults' section.`);
      return;
    }
    const needs = sections.includes('frontend') ? 'frontend' : sections.includes('backend') ? 'backend' : sections[0];
    if (PLACEMENT_ERRORS.has(name)) {
      c.add('not-allowed-here', nameRange, `'${name}' is not allowed in a ${kind} (it needs ${needs ? `${needs} capability` : 'another section'}).`);
      return;
    }
    c.add('ignored-here', nameRange, `'${name}' is ignored in a ${kind} (it needs ${needs ? `${needs} capability` : 'another section'}).`);
  } else if (kind === 'defaults' && info.namedDefaultsOnly && !x.sec.name) {
    c.add('not-allowed-here', nameRange, `'${name}' is only allowed in a named 'defaults' section.`);
    return;
  }
  const args = m.width === 1 ? st.args : st.args.slice(m.width - 1);
  // options documented without arguments refuse any
  if (k === 'option' && args.length && info.syntax?.length && info.syntax.every((x) => x.trim() === name))
    c.add('arg', { start: args[0].start, end: args[args.length - 1].end }, `'${name}' takes no argument; '${args[0].value}' is unexpected.`);
  switch (k) {
    case 'mode': {
      const v = args[0];
      if (!v) c.add('arg', kw, `'mode' needs a value (tcp or http).`);
      else if (!v.envVars) {
        const mv = MODE_VALUES[v.value];
        if (!mv) c.add('arg', v, `Unknown mode '${v.value}' (tcp or http).`);
        else if (!c.ok(mv)) c.version(mv, v, `'mode ${v.value}'`);
      }
      break;
    }
    case 'balance': {
      const v = args[0];
      if (v && !v.envVars) {
        const a = withoutParenthesis(v.value);
        const bi = BALANCE_ALGOS[a];
        if (!bi) {
          const guess = didYouMean(a, Object.keys(BALANCE_ALGOS));
          c.add('arg', v, `Unknown balance algorithm '${v.value}'${guess ? `; did you mean '${guess}'?` : '.'}`);
        } else if (!c.ok(bi)) c.version(bi, v, `'balance ${a}'`);
      }
      break;
    }
    case 'timeout':
      checkTime(c, args[0], nameRange, `'${name}'`);
      x.facts.timeouts.add(name.slice(8));
      break;
    case 'maxconn':
    case 'retries':
    case 'fullconn':
    case 'backlog':
      checkInt(c, args[0], nameRange, `'${name}'`);
      break;
    case 'log':
      checkLogTarget(c, st);
      break;
    case 'use_backend':
    case 'default_backend': {
      const b = args[0];
      if (!b) c.add('arg', kw, `'${k}' needs a backend name.`);
      else x.facts.backendRefs.push({ word: b, st });
      break;
    }
    case 'server':
    case 'default-server':
      if (k === 'server' && args[1]) {
        checkAddress(c, args[1]);
        checkAddressForm(c, args[1], 'server');
      }
      checkServer(c, st, k === 'server' ? args.slice(2) : args, k);
      if (k === 'server' && !args[1] && args[0]) c.add('arg', args[0], `'server ${args[0].value}' needs an address.`);
      if (k === 'server' && args[0] && !args[0].envVars) {
        const servers = (x.facts.servers ??= new Map());
        const prev = servers.get(args[0].value);
        if (prev) c.add('duplicate-server', args[0], `${kind} '${x.facts.name}', another server named '${args[0].value}' was already defined at line ${prev.line + 1}, please use distinct names.`);
        else servers.set(args[0].value, st);
      }
      if (k === 'server' && !args[0]) c.add('arg', kw, `'server' needs a name and an address.`);
      break;
    case 'bind':
      if (!args[0]) c.add('arg', kw, `'bind' needs an address.`);
      else {
        checkAddress(c, args[0]);
        checkAddressForm(c, args[0], 'bind');
        checkOptions(c, args.slice(1), BIND_OPTIONS, 'bind');
      }
      break;
    case 'stick-table':
      checkStickTable(c, st, args);
      break;
    case 'acl':
      if (st.acl) {
        const n = st.acl.name.value;
        if (!x.facts.acls.has(n)) x.facts.acls.set(n, st.start);
        if (!st.acl.criterion) c.add('arg', st.acl.name, `'acl ${n}' needs a sample fetch (criterion).`);
      } else c.add('arg', kw, `'acl' needs a name and a criterion.`);
      break;
    default:
      break;
  }
  checkLogFormat(c, st, k);
  if (RULE_KEYWORDS.has(k)) {
    x.facts.hasRules = true;
    if (k === 'tcp-request' && (st.args[0]?.value === 'connection' || st.args[0]?.value === 'session')) x.facts.hasConnRules = true;
    checkAction(c, st, k);
  }
}

function checkAction(c: Checker, st: Statement, k: string): void {
  let set = k;
  let actionWord: Word | undefined = st.args[0];
  if (k === 'tcp-request' || k === 'tcp-response') {
    const sub = st.args[0]?.value;
    if (sub === 'inspect-delay') {
      checkTime(c, st.args[1], st.keyword!, `'${k} inspect-delay'`);
      return;
    }
    set = `${k} ${sub}`;
    actionWord = st.args[1];
  }
  if (!actionWord) {
    if (!st.args.length || k.startsWith('http')) c.add('arg', st.keyword!, `'${set}' needs an action.`);
    else c.add('arg', st.args[0], `'${set}' needs an action.`);
    return;
  }
  const raw = actionWord.value;
  if (actionWord.envVars) return;
  if (raw.startsWith('lua.') || raw.startsWith('lua(')) return;
  const a = actionKey(raw);
  const info = ACTIONS.get(a);
  if (!info) {
    const cands = candidateList(`action ${set} ${c.target}`, () => [...ACTIONS].filter(([, i]) => i.sets.includes(set) && isAvailable(i, c.target)).map(([n]) => n));
    const guess = didYouMean(a, cands);
    c.add('unknown-keyword', actionWord, `Unknown '${set}' action '${raw}'${guess ? `; did you mean '${guess}'?` : '.'}`);
    return;
  }
  if (!c.ok(info) && !c.version(info, actionWord, `Action '${a}'`)) return;
  if (!info.sets.includes(set)) c.add('not-allowed-here', actionWord, `Action '${a}' is not valid in '${set}' rules (valid in: ${info.sets.join(', ')}).`);
}

function checkOptions(c: Checker, words: Word[], table: Map<string, OptionInfo>, what: 'bind' | 'server'): void {
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w.envVars || w.value.includes('$')) continue;
    let name = withoutParenthesis(w.value);
    let info = table.get(name);
    if (!info && name.startsWith('no-')) {
      info = table.get(name.slice(3));
      if (info) name = name.slice(3);
    }
    if (!info) {
      const cands = candidateList(`${what} ${c.target}`, () => [...table].filter(([, e]) => isAvailable(e, c.target)).map(([n]) => n));
      const guess = didYouMean(name, cands);
      c.add('unknown-keyword', w, `Unknown ${what} option '${w.value}'${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(w, guess) } : {});
      continue;
    }
    if (!c.ok(info)) c.version(info, w, `${what} option '${w.value}'`);
    // an option with a variable number of values (`source addr [usesrc ...]`) ends what we can check
    if (info.variadic) break;
    if (info.takesArg && !w.value.startsWith('no-')) {
      const v = words[i + 1];
      if (!v) {
        c.add('arg', w, `${what} option '${w.value}' needs a value.`);
        break;
      }
      if (TIME_OPTIONS.has(name)) checkTime(c, v, w, `'${name}'`);
      else if (INT_OPTIONS.has(name)) checkInt(c, v, w, `'${name}'`);
      i++;
    }
  }
}

/** The word up to a `(` (`hash-type(x)` -> `hash-type`); no regex run for the usual word without one. */
function withoutParenthesis(v: string): string {
  return v.indexOf('(') < 0 ? v : v.replace(/\(.*$/, '');
}

function checkServer(c: Checker, _st: Statement, options: Word[], _k: string): void {
  checkOptions(c, options, SERVER_OPTIONS, 'server');
}

function checkStickTable(c: Checker, st: Statement, args: Word[]): void {
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (w.value === 'size') checkSize(c, args[i + 1], w, `'stick-table size'`);
    if (w.value === 'expire') checkTime(c, args[i + 1], w, `'stick-table expire'`);
  }
  if (!args.some((w) => w.value === 'type')) c.add('arg', st.keyword!, `'stick-table' needs 'type'.`);
}

function checkOtherSection(c: Checker, sec: Section, st: Statement): void {
  const table = SECTION_KEYWORDS_MAP.get(sec.keyword);
  const kw = st.keyword!;
  if (!table) return;
  const k = kw.value;
  const info = table.get(k);
  if (!info) {
    const guess = didYouMean(k, table.keys());
    // The generated tables for these sections come from the docs' headings only: unknown names are warnings.
    c.add('unknown-keyword', kw, `Unknown keyword '${k}' in '${sec.keyword}' section${guess ? `; did you mean '${guess}'?` : '.'}`, {
      severity: 'warning',
      ...(guess ? { fixes: c.replaceFix(kw, guess) } : {}),
    });
    return;
  }
  if (!c.ok(info) && !c.version(info, kw, `'${k}' in '${sec.keyword}'`)) return;
  if (k === 'timeout') checkTime(c, st.args[1], kw, `'timeout ${st.args[0]?.value ?? ''}'`);
  if (k === 'hold') checkTime(c, st.args[1], kw, `'hold ${st.args[0]?.value ?? ''}'`);
  if (sec.keyword === 'ring' && k === 'size') checkSize(c, st.args[0], kw, `'size'`);
}

function checkSample(c: Checker, s: SampleExpr, inAcl: boolean, inDefaults = false): void {
  if (s.unclosed) {
    c.add('syntax', s, `Unclosed parenthesis or bracket in sample expression '${c.file.text.slice(s.start, s.end)}'.`);
    return;
  }
  if (s.malformed) {
    c.add('syntax', s, `Malformed sample expression '${c.file.text.slice(s.start, s.end)}': ${s.malformed}.`);
    return;
  }
  const f = s.fetch;
  const fr = { start: s.start, end: s.fetchEnd };
  if (!f) {
    c.add('syntax', s, `Missing sample fetch name in '${c.file.text.slice(s.start, s.end)}'.`);
    return;
  }
  if (UNCHECKED_NAME.test(f) || f.startsWith('lua.') || OPTIONAL_MODULE_SAMPLES.test(f)) return;
  if (!FETCH_NAME.test(f)) {
    c.add('syntax', fr, `Invalid sample fetch name '${f}'.`);
    return;
  }
  let info: Versioned | undefined = FETCHES.get(f);
  if (!info && /^sc\d+_/.test(f)) info = FETCHES.get(f.replace(/^sc\d+_/, 'sc0_')) ?? FETCHES.get(f.replace(/^sc\d+_/, 'sc_'));
  if (!info && /^(src|sc)_.*\d$/.test(f)) info = FETCHES.get(f.replace(/\d+$/, '0')) ?? FETCHES.get(f.replace(/\d+$/, ''));
  if (!info && inAcl) info = ACL_DERIVATIVES.get(f);
  if (!info) {
    const cands = [...FETCHES.keys(), ...(inAcl ? ACL_DERIVATIVES.keys() : [])];
    const guess = didYouMean(f, cands);
    c.add('unknown-fetch', fr, `Unknown sample fetch '${f}'${guess ? `; did you mean '${guess}'?` : '.'}`);
    return;
  }
  if (!c.ok(info)) c.version(info, fr, `Sample fetch '${f}'`);
  // In a defaults section there is no current backend: server arguments must name it.
  const sig = (info as { args?: string }).args;
  if (inDefaults && sig !== undefined && /^server/.test(sig) && s.args[0] !== undefined && !s.args[0].includes('/'))
    c.add('arg', fr, `In a 'defaults' section '${f}' needs 'backend/server' (there is no current backend).`);
  for (const conv of s.converters) {
    const n = conv.name;
    if (!n) {
      c.add('syntax', conv, `Empty converter after ','.`);
      continue;
    }
    if (n.startsWith('lua.') || UNCHECKED_NAME.test(n) || OPTIONAL_MODULE_SAMPLES.test(n)) continue;
    const ci = CONVERTERS.get(n);
    if (!ci) {
      const guess = didYouMean(n, CONVERTERS.keys());
      c.add('unknown-fetch', { start: conv.start, end: conv.nameEnd }, `Unknown converter '${n}'${guess ? `; did you mean '${guess}'?` : '.'}`);
      continue;
    }
    if (!c.ok(ci)) c.version(ci, { start: conv.start, end: conv.nameEnd }, `Converter '${n}'`);
  }
}

function checkCondition(c: Checker, st: Statement, facts: ProxyFacts | undefined): void {
  const cond = st.condition;
  if (!cond) return;
  for (const t of cond.terms) {
    if (t.kind !== 'acl' || !t.nameWord) continue;
    checkAclRef(c, t, st, facts);
  }
}

function checkAclRef(c: Checker, t: CondTerm, st: Statement, facts: ProxyFacts | undefined): void {
  const name = t.name!;
  const w = t.nameWord!;
  if (w.envVars) return;
  const pre = PREDEFINED_ACLS.get(name);
  if (pre) {
    if (!c.ok(pre)) c.version(pre, w, `Predefined ACL '${name}'`);
    return;
  }
  const declared = facts?.acls.get(name);
  if (declared !== undefined && declared < st.start) return;
  if (declared === undefined && facts) {
    // Declared later in the section?
    const later = facts.section.statements.find((s) => s.acl?.name.value === name && !s.disabled);
    if (later) {
      c.add('undeclared-acl', w, `ACL '${name}' is used before it is declared (line ${later.line + 1}); declare it first.`);
      return;
    }
  }
  const known = facts ? [...facts.acls.keys(), ...PREDEFINED_ACLS.keys()] : [...PREDEFINED_ACLS.keys()];
  const guess = didYouMean(name, known);
  c.add('undeclared-acl', w, `ACL '${name}' is not declared in this section${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(w, guess) } : {});
}

/** All diagnostics findings for a parsed file. */
export function haproxyFindings(file: HaproxyFile, settings: ServiceSettings): Finding[] {
  const c = new Checker(file, settings);
  for (const e of file.errors) c.add('syntax', e, e.message.charAt(0).toUpperCase() + e.message.slice(1) + '.');
  const ordered: Statement[] = [...file.orphans];
  for (const sec of file.sections) ordered.push(sec.header, ...sec.statements);
  ordered.sort((a, b) => a.start - b.start);
  for (const st of ordered) st.disabled = false;
  applyConditionalBlocks(c, ordered);

  for (const st of file.orphans) {
    if (st.disabled || !st.keyword || st.keyword.value.startsWith('.')) continue;
    c.add('syntax', st.keyword, `'${st.keyword.value}' appears outside of any section.`);
  }

  const proxies: ProxyFacts[] = [];
  const allFacts: ProxyFacts[] = [];
  const byKindName = new Map<string, ProxyFacts>();
  const backends = new Set<string>();
  const defaultsByName = new Map<string, ProxyFacts>();
  let lastDefaults: ProxyFacts | undefined;
  const otherNames = new Map<string, Section>();

  for (const sec of file.sections) {
    if (sec.header.disabled) continue;
    if ((sec.keyword === 'backend' || sec.keyword === 'listen') && sec.name) backends.add(sec.name.value);
  }

  for (const sec of file.sections) {
    if (sec.header.disabled) continue;
    checkHeader(c, sec);
    const kind = sec.keyword;
    if (PROXY_KINDS.has(kind)) {
      const facts: ProxyFacts = {
        section: sec,
        kind,
        name: sectionName(sec),
        timeouts: new Set(),
        acls: new Map(),
        hasRules: false,
        hasConnRules: false,
        backendRefs: [],
      };
      const fromIdx = sec.header.args.findIndex((w) => w.value === 'from');
      const fromName = fromIdx >= 0 ? sec.header.args[fromIdx + 1]?.value : undefined;
      if (fromName !== undefined) {
        facts.parent = defaultsByName.get(fromName);
        if (!facts.parent && sec.header.args[fromIdx + 1])
          c.add('arg', sec.header.args[fromIdx + 1], `No 'defaults' section named '${fromName}' before this line.`);
      } else if (kind !== 'defaults' || true) {
        facts.parent = kind === 'defaults' && fromName === undefined ? undefined : lastDefaults;
        if (kind !== 'defaults') facts.parent = lastDefaults;
      }
      allFacts.push(facts);
      const ctx: Ctx = { c, sec, kind, facts, backends };
      for (const st of sec.statements) {
        if (st.disabled || !st.keyword || st.keyword.value.startsWith('.')) continue;
        checkProxyStatement(ctx, st);
        for (const s of st.samples) checkSample(c, s, !!st.acl || (st.condition ? s.start >= st.condition.start : false), kind === 'defaults');
        checkCondition(c, st, facts);
      }
      // the effective mode: the last `mode` line, else the parent's
      for (const st of sec.statements) {
        if (!st.disabled && st.keyword?.value === 'mode' && st.args[0]) {
          facts.mode = st.args[0].value;
          facts.modeWord = st.args[0];
        }
      }
      if (kind === 'defaults') {
        if (facts.name) {
          const dup = defaultsByName.get(facts.name);
          if (dup) c.add('duplicate-proxy', sec.name!, `A 'defaults' section named '${facts.name}' already exists (line ${dup.section.header.line + 1}).`, { severity: 'warning' });
          defaultsByName.set(facts.name, facts);
        }
        lastDefaults = facts;
      } else {
        for (const cap of capabilities(kind)) {
          const key = `${cap}:${facts.name}`;
          const dup = byKindName.get(key);
          if (dup && sec.name) {
            c.add('duplicate-proxy', sec.name, `${kind} '${facts.name}' has the same name as the ${dup.kind} on line ${dup.section.header.line + 1}.`);
            break;
          }
        }
        // a frontend and a backend may share a name, but newer versions warn that it will not last
        const other = kind === 'frontend' ? byKindName.get(`backend:${facts.name}`) : kind === 'backend' ? byKindName.get(`frontend:${facts.name}`) : undefined;
        if (other && sec.name && other.kind !== 'listen' && probedCheck('duplicate frontend and backend name', c.target) === 'warned')
          c.add('duplicate-proxy', sec.name, `${kind} '${facts.name}' has the same name as the ${other.kind} on line ${other.section.header.line + 1}; HAProxy ${c.target} warns that this will not be supported any more.`, { severity: 'warning' });
        for (const cap of capabilities(kind)) byKindName.set(`${cap}:${facts.name}`, facts);
        proxies.push(facts);
      }
      if (facts.parent && facts.parent.hasRules) {
        const p = facts.parent;
        if (kind === 'defaults' || kind === 'listen')
          c.add('defaults-rules', sec.header.keyword!, `A ${kind} section cannot inherit from defaults '${p.name}' (line ${p.section.header.line + 1}), which defines TCP/HTTP rules.`);
        else if (kind === 'backend' && p.hasConnRules)
          c.add('defaults-rules', sec.header.keyword!, `A backend cannot inherit from defaults '${p.name}' (line ${p.section.header.line + 1}), which defines 'tcp-request connection' or 'tcp-request session' rules.`);
      }
    } else {
      if (sec.name && kind !== 'traces') {
        const key = `${kind}:${sec.name.value}`;
        const dup = otherNames.get(key);
        if (dup) c.add('duplicate-proxy', sec.name, `A '${kind}' section named '${sec.name.value}' already exists (line ${dup.header.line + 1}).`);
        else otherNames.set(key, sec);
      }
      for (const st of sec.statements) {
        if (st.disabled || !st.keyword || st.keyword.value.startsWith('.')) continue;
        if (kind === 'global') checkGlobal(c, st);
        else checkOtherSection(c, sec, st);
      }
    }
  }

  // Cross-proxy checks: backends named by switching rules, modes, timeouts.
  const byBackendName = new Map<string, ProxyFacts>();
  const reportedInherited = new Set<Statement>();
  for (const p of proxies) if ((p.kind === 'backend' || p.kind === 'listen') && !byBackendName.has(p.name)) byBackendName.set(p.name, p);
  for (const p of proxies) {
    const mode = effectiveMode(p);
    for (const ref of p.backendRefs) {
      const w = ref.word;
      if (w.envVars || w.value.includes('%[') || w.value.includes('$')) continue;
      const target = byBackendName.get(w.value);
      if (!target) {
        const guess = didYouMean(w.value, byBackendName.keys());
        c.add('unknown-backend', w, `No backend named '${w.value}'${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(w, guess) } : {});
        continue;
      }
      const tmode = effectiveMode(target);
      if (mode === 'http' && tmode === 'tcp')
        c.add('mode-mismatch', w, `${p.kind} '${p.name}' is in http mode but backend '${target.name}' is in tcp mode.`);
    }
    checkTimeouts(c, p, mode);
    const own = p.section.statements.filter((s) => !s.disabled);
    const headerHasAddress = p.section.header.args.length > 1 && p.section.header.args[1].value !== 'from';
    if (p.kind === 'frontend' && !headerHasAddress && !own.some((s) => s.keyword?.value === 'bind' || (s.keyword?.value === 'stats' && s.sub?.value === 'enable')))
      c.add('no-bind', p.section.header.keyword!, `frontend '${p.name}' has no 'bind' line; declare it as a backend if it is meant to receive no connections of its own.`);
    if (mode === 'tcp') {
      // HTTP-only keywords (overrides.ts HTTP_ONLY_KEYWORDS, each seen warned about by haproxy -c)
      // of the proxy and of the defaults it inherits: HAProxy ignores them with a warning
      // nearest section first: a nearer `no option X` or log format (`option tcplog`, `log-format`) overrides a farther one
      const overridden = new Set<string>();
      for (let q: ProxyFacts | undefined = p; q; q = q.parent) {
        const lines = q.section.statements.filter((x) => !x.disabled);
        const later = new Set<string>();
        for (const st of lines) {
          const k = st.keyword?.value;
          if (k === 'option' && st.sub) later.add(`option ${st.sub.value}`);
          if (k === 'log-format' || (k === 'option' && /^(tcplog|httplog|httpslog|clflog|logasap)$/.test(st.sub?.value ?? '') && !st.prefix)) later.add('log format');
        }
        for (const st of lines) {
          if (reportedInherited.has(st) || st.prefix || !st.keyword) continue;
          const k = st.keyword.value;
          const name = k === 'option' || k === 'capture' ? (st.sub ? `${k} ${st.sub.value}` : undefined) : k;
          if (name && (overridden.has(name) || ((name === 'option httplog' || name === 'option httpslog') && overridden.has('log format')))) continue;
          if (!name || !httpOnlyKeyword(name) || !(matchProxyKeyword([k, ...st.args.map((w) => w.value)])?.info.sections ?? []).includes(p.kind)) continue;
          const o = k === 'option' ? st.sub?.value : undefined;
          if ((o === 'httplog' || o === 'httpslog') && p.kind === 'backend') continue; // a backend does not log
          reportedInherited.add(st);
          const at = { start: st.keyword.start, end: (st.sub && name.includes(' ') ? st.sub : st.keyword).end };
          const why = p.mode || inheritsMode(p) ? 'runs in tcp mode' : "runs in tcp mode (no 'mode' line: tcp is the default)";
          if (o === 'httplog' || o === 'httpslog') c.add('http-option-in-tcp', at, `'option ${o}' needs 'mode http'; ${p.kind} '${p.name}' ${why} and falls back to 'option tcplog'.`);
          else c.add('http-option-in-tcp', at, `'${name}' needs 'mode http'; ${p.kind} '${p.name}' ${why}, so HAProxy ignores it.`);
        }
        for (const n of later) overridden.add(n);
      }
    }
  }
  checkReferences(c, file, allFacts);
  return c.out;
}

/** Names used by other sections: resolvers, caches, userlists, peers, mailers, servers, stick tables. */
function checkReferences(c: Checker, file: HaproxyFile, proxies: ProxyFacts[]): void {
  const named = new Map<string, Set<string>>();
  const tables = new Set<string>();
  for (const sec of file.sections) {
    if (sec.header.disabled || !sec.name) continue;
    if (!named.has(sec.keyword)) named.set(sec.keyword, new Set());
    named.get(sec.keyword)!.add(sec.name.value);
    if (PROXY_KINDS.has(sec.keyword) && sec.statements.some((s) => s.keyword?.value === 'stick-table')) tables.add(sec.name.value);
    if (sec.keyword === 'peers') for (const st of sec.statements) if (st.keyword?.value === 'table' && st.args[0]) tables.add(`${sec.name.value}/${st.args[0].value}`);
  }
  const has = (kind: string, name: string) => named.get(kind)?.has(name) ?? false;
  const ref = (kind: string, w: Word | undefined) => {
    if (!w || w.envVars || NAME_WITH_EXPANSION.test(w.value)) return;
    if (!has(kind, w.value)) {
      const guess = didYouMean(w.value, named.get(kind) ?? []);
      c.add('unknown-reference', w, `No '${kind}' section named '${w.value}'${guess ? `; did you mean '${guess}'?` : '.'}`, guess ? { fixes: c.replaceFix(w, guess) } : {});
    }
  };
  for (const p of proxies) {
    // the proxy's server names, gathered when a `use-server` line asks
    let servers: Set<string> | undefined;
    const serverNames = (): Set<string> =>
      (servers ??= new Set(p.section.statements.filter((s) => s.keyword?.value === 'server' && s.args[0]).map((s) => s.args[0].value)));
    for (const st of p.section.statements) {
      if (st.disabled || !st.keyword) continue;
      const k = st.keyword.value;
      const a = st.args;
      if (k === 'server' || k === 'default-server' || k === 'server-template') {
        for (let i = 0; i < a.length - 1; i++) if (a[i].value === 'resolvers') ref('resolvers', a[i + 1]);
      } else if (k === 'use-server' && a[0] && !a[0].envVars && !NAME_WITH_EXPANSION.test(a[0].value) && !serverNames().has(a[0].value)) {
        c.add('unknown-reference', a[0], `No server named '${a[0].value}' in ${p.kind} '${p.name}'.`);
      } else if (k === 'stick-table') {
        for (let i = 0; i < a.length - 1; i++) if (a[i].value === 'peers') ref('peers', a[i + 1]);
      } else if (k === 'email-alert' && a[0]?.value === 'mailers') {
        ref('mailers', a[1]);
      } else if ((k === 'http-request' || k === 'http-response') && CACHE_ACTION.test(a[0]?.value ?? '')) {
        ref('cache', a[1]);
      } else if (k === 'filter' && a[0]?.value === 'cache') {
        ref('cache', a[1]);
      }
      if (RULE_KEYWORDS.has(k) && !tables.has(p.name)) {
        // `track-scN key` without `table` tracks in the proxy's own stick table
        const ai = a.findIndex((w) => TRACK_SC.test(w.value));
        if (ai >= 0 && !a.slice(ai).some((w) => w.value === 'table'))
          c.add('unknown-reference', a[ai], `'${a[ai].value}' without 'table' needs a 'stick-table' in ${p.kind}${p.name ? ` '${p.name}'` : ''}.`);
      }
      if (RULE_KEYWORDS.has(k) || k === 'stick') {
        for (let i = 1; i < a.length - 1; i++) {
          if (a[i].value !== 'table') continue;
          const t = a[i + 1];
          if (t.envVars || NAME_WITH_EXPANSION.test(t.value)) continue;
          if (!tables.has(t.value)) c.add('unknown-reference', t, `No stick table named '${t.value}' (a proxy with a 'stick-table' line, or 'peers/table').`);
        }
      }
      for (const s of st.samples) {
        if (HTTP_AUTH.test(s.fetch) && s.args[0]) {
          const name = s.args[0];
          if (!has('userlist', name) && !NAME_WITH_EXPANSION.test(name)) c.add('unknown-reference', { start: s.start, end: s.end }, `No 'userlist' section named '${name}'.`);
        }
      }
    }
  }
}

function capabilities(kind: string): string[] {
  if (kind === 'frontend') return ['fe'];
  if (kind === 'backend') return ['be'];
  return ['fe', 'be'];
}

/** Whether some defaults section up the chain writes a `mode`. */
function inheritsMode(p: ProxyFacts): boolean {
  for (let q = p.parent; q; q = q.parent) if (q.mode) return true;
  return false;
}

function effectiveMode(p: ProxyFacts | undefined): string {
  let q = p;
  while (q) {
    if (q.mode) return q.mode;
    q = q.parent;
  }
  return 'tcp';
}

function inheritedTimeouts(p: ProxyFacts): Set<string> {
  const out = new Set<string>();
  let q: ProxyFacts | undefined = p;
  while (q) {
    for (const t of q.timeouts) out.add(t);
    q = q.parent;
  }
  return out;
}

function checkTimeouts(c: Checker, p: ProxyFacts, mode: string): void {
  if (mode !== 'http' && mode !== 'tcp') return;
  const have = inheritedTimeouts(p);
  const need: string[] = [];
  const fe = p.kind === 'frontend' || p.kind === 'listen';
  // server-side timeouts only matter where there are servers to talk to (HAProxy warns the same way)
  const hasServers = p.section.statements.some((s) => !s.disabled && SERVER_LINE.test(s.keyword?.value ?? ''));
  const be = (p.kind === 'backend' || p.kind === 'listen') && hasServers;
  if (be && !have.has('connect')) need.push('connect');
  if (fe && !have.has('client')) need.push('client');
  if (be && !have.has('server')) need.push('server');
  if (!need.length) return;
  const hdr = p.section.header;
  const insertAt = hdr.line + 1 < c.file.lineStarts.length ? c.file.lineStarts[hdr.line + 1] : c.file.text.length;
  const first = p.section.statements[0];
  const indent = first ? (/^[ \t]*/.exec(c.file.text.slice(c.file.lineStarts[first.line]))?.[0] ?? '    ') : '    ';
  const defaults: Record<string, string> = { connect: '5s', client: '30s', server: '30s' };
  const text = need.map((n) => `${indent}timeout ${n} ${defaults[n]}\n`).join('');
  const nl = insertAt === c.file.text.length && !c.file.text.endsWith('\n') ? '\n' : '';
  c.add('missing-timeout', hdr.keyword!, `${p.kind} '${p.name}' has no ${need.map((n) => `'timeout ${n}'`).join(', ')}; connections may hang forever.`, {
    fixes: [{ title: `Add ${need.map((n) => `timeout ${n}`).join(', ')}`, edits: [{ start: insertAt, end: insertAt, newText: nl + text }], safe: false }],
  });
}

export function validateHaproxy(doc: TextDocument, file: HaproxyFile, settings: ServiceSettings): Diagnostic[] {
  let findings: Finding[];
  try {
    findings = haproxyFindings(file, settings);
  } catch (e) {
    findings = [{ ruleId: 'haproxy/syntax', start: 0, end: 0, message: `Internal error while checking: ${(e as Error)?.message ?? e}`, severity: 'information' }];
  }
  return haproxyRules.toDiagnostics(doc, findings, settings, 'haproxy');
}

export { docUrl };
export type { KeywordInfo };
