// HAProxy diagnostics: what `haproxy -c` rejects (errors) and what it warns about (warnings),
// judged at a target version (settings.haproxyVersion, else the newest known). Produces Findings
// against the rule rows of rules.ts; the shared rule engine turns them into LSP diagnostics.
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { shiftFinding, type Fix } from '../../core/rules';
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
import { matchSections, sectionBase } from './sectionMatch';
import {
  BALANCE_ALGOS,
  OPTIONAL_MODULE_SAMPLES,
  PLACEMENT_ERRORS,
  INT_OPTIONS,
  MODE_VALUES,
  NOT_KEYWORDS_IN_GLOBAL,
  PROXY_SECTIONS,
  TIME_OPTIONS,
  VALUE_ARGS,
  type ValueArg,
} from './overrides';

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
const globalCandidates = (target: string) =>
  candidateList(`global ${target}`, () => [...GLOBAL].filter(([, i]) => isAvailable(i, target)).map(([n]) => n));
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

/** What the checks of one proxy section's lines gather while they run. */
interface ProxyFacts {
  /** `server` names of this proxy, with their line (duplicate-server). */
  servers?: Map<string, Statement>;
  section: Section;
  kind: string;
  name: string;
  timeouts: Set<string>;
  acls: Map<string, number>;
  hasRules: boolean;
  hasConnRules: boolean;
  /** `tcp-response content` rules, which a frontend cannot inherit. */
  hasRespRules?: boolean;
  /** `use_backend` / `default_backend` targets. */
  backendRefs: Word[];
}

class Checker {
  /** Where findings go: the file's list, or the list of the section being checked. */
  out: Finding[] = [];
  /** Set when a finding of the section being checked points outside it (never reused). */
  volatile = false;
  /** Set when a message of the section being checked names a line number. */
  lineRefs = false;
  /** Whether a `.if` block disabled some statement. */
  anyDisabled = false;
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

  /** Reports "needs newer" or "removed" for an entry (with `fixes`, when given); true when usable. */
  version(info: Versioned, at: { start: number; end: number }, what: string, replacement?: string, fixes?: Fix[]): boolean {
    const a = this.availabilityOf(info);
    if (a === 'ok') return true;
    const extra = fixes ? { fixes } : undefined;
    if (a === 'newer') this.add('needs-newer-version', at, `${what} needs HAProxy >= ${info.since} (judging for ${this.target}).`, extra);
    else
      this.add('removed-keyword', at, `${what} was removed in HAProxy ${info.until}${replacement ? `: use ${replacement}` : ''}.`, extra);
    return false;
  }

  replaceFix(w: { start: number; end: number }, text: string, safe = false): Fix[] {
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
function applyConditionalBlocks(c: Checker, file: HaproxyFile): void {
  const stack: { active: boolean; taken: boolean; parentActive: boolean }[] = [];
  const active = () => (stack.length ? stack[stack.length - 1].active : true);
  // every statement in file order (orphans come before the first section), its flag cleared
  // first (a statement reused from an earlier parse keeps what the run on that version set)
  const visit = (st: Statement): void => {
    st.disabled = false;
    const k = st.keyword?.value ?? '';
    if (k.charCodeAt(0) === 46 /* . */) {
      if (k === '.if') {
        const pa = active();
        const v = pa && evalCond(st.args, c.target);
        stack.push({ active: v, taken: v, parentActive: pa });
        return;
      }
      if (k === '.elif') {
        const top = stack[stack.length - 1];
        if (!top) return;
        const v = top.parentActive && !top.taken && evalCond(st.args, c.target);
        top.active = v;
        top.taken ||= v;
        return;
      }
      if (k === '.else') {
        const top = stack[stack.length - 1];
        if (!top) return;
        top.active = top.parentActive && !top.taken;
        top.taken = true;
        return;
      }
      if (k === '.endif') {
        stack.pop();
        return;
      }
    }
    if (stack.length && !active()) {
      st.disabled = true;
      c.anyDisabled = true;
    }
  };
  for (const st of file.orphans) visit(st);
  for (const sec of file.sections) {
    visit(sec.header);
    const list = sec.statements;
    for (let i = 0; i < list.length; i++) visit(list[i]);
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
            v = m[2]
              .split(',')
              .map((s) => s.trim())
              .every((s, _i, a) => s === a[0]);
            break;
          case 'strneq':
            v = !m[2]
              .split(',')
              .map((s) => s.trim())
              .every((s, _i, a) => s === a[0]);
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
    if (args.length)
      c.add(
        'arg',
        { start: args[0].start, end: args[args.length - 1].end },
        `'global' takes no argument (each setting goes on its own line).`,
      );
    return;
  }
  if (kind === 'defaults' || kind === 'frontend' || kind === 'backend' || kind === 'listen') {
    if (kind !== 'defaults' && !args.length) {
      c.add('arg', kwWord, `'${kind}' needs a name.`);
      return;
    }
    const name = sec.name;
    // HAProxy takes letters, digits, '.', '_', '-' and ':' in proxy names ('/' separates a backend from a server)
    const bad = name && !name.envVars && name.value !== 'from' ? /[^A-Za-z0-9._:-]/.exec(name.value) : null;
    if (name && bad) c.add('arg', name, `Character '${bad[0]}' is not permitted in '${kind}' name '${name.value}'.`);
    let rest = kind === 'defaults' ? args.slice(args[0]?.value === 'from' ? 0 : 1) : args.slice(1);
    if (rest[0]?.value === 'from') {
      if (!rest[1]) c.add('arg', rest[0], `'from' needs the name of a defaults section.`);
      rest = rest.slice(2);
    }
    if (rest.length) {
      // HAProxy refuses extra words on a frontend/listen line and only complains about them elsewhere.
      if (kind === 'frontend' || kind === 'listen')
        c.add(
          'arg',
          { start: rest[0].start, end: rest[rest.length - 1].end },
          `Listening addresses go on a 'bind' line, not on the '${kind}' line.`,
        );
      else
        c.add('arg', { start: rest[0].start, end: rest[rest.length - 1].end }, `'${kind}' ignores the extra argument '${rest[0].value}'.`, {
          severity: 'warning',
        });
    }
    return;
  }
  if (kind !== 'traces' && kind !== 'crt-store' && !args.length) c.add('arg', kwWord, `'${kind}' needs a name.`);
}

/** `program` sections: deprecated, refused from the probed 3.2 on unless `expose-deprecated-directives` is set. */
function checkProgramSection(c: Checker, at: Word): void {
  const verdict = probedCheck('program section', c.target);
  if (!verdict || verdict === 'accepted') {
    // HAProxy refuses a program section outside master-worker mode: `master-worker` in global, or
    // -W / -Ws on the command line (as the systemd units start it), which the file cannot tell
    const mw = c.file.sections.some(
      (s) => s.keyword === 'global' && s.statements.some((st) => !st.disabled && st.keyword?.value === 'master-worker'),
    );
    if (!mw)
      c.add(
        'not-allowed-here',
        at,
        `A 'program' section needs master-worker mode: set 'master-worker' in 'global' (or start HAProxy with -W or -Ws, as systemd units do).`,
        { severity: 'warning' },
      );
    return;
  }
  const exposed = c.file.sections.some(
    (s) => s.keyword === 'global' && s.statements.some((st) => !st.disabled && st.keyword?.value === 'expose-deprecated-directives'),
  );
  if (exposed) return;
  const first = probedFirst('program section', 'refused');
  if (verdict === 'refused')
    c.add(
      'deprecated',
      at,
      `The 'program' section is deprecated: HAProxy ${c.target} refuses it unless 'global' sets 'expose-deprecated-directives' (HAProxy ${first ?? ''} does); supervise programs outside HAProxy.`,
      { severity: 'error', deprecated: true },
    );
  else
    c.add(
      'deprecated',
      at,
      `The 'program' section is deprecated${first ? ` (HAProxy ${first} refuses it without 'expose-deprecated-directives')` : ''}.`,
      { deprecated: true },
    );
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
  else if (
    (k === 'http-request' || k === 'http-response' || k === 'http-after-response') &&
    st.args[0] &&
    LOG_FORMAT_ACTIONS.has(actionKey(st.args[0].value))
  )
    words = st.args.slice(1);
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
      c.add(
        'address',
        w,
        `'${prefix}' is a datagram address; a ${kind === 'bind' ? 'frontend' : 'server'} of a proxy needs a stream address (tcp, unix, ...).`,
      );
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
    if ((prefix === 'ipv4@' || prefix === 'tcp4@') && v6)
      c.add('address', at, `'${host}' is an IPv6 address; '${prefix}' takes IPv4 ones.`);
    else if ((prefix === 'ipv6@' || prefix === 'tcp6@') && IPV4_LITERAL.test(host))
      c.add('address', at, `'${host}' is an IPv4 address; '${prefix}' takes IPv6 ones.`);
    if (port === undefined || port === '') {
      if (kind === 'bind') c.add('address', at, `'bind ${part}' needs a port (${host || '*'}:PORT).`);
      continue;
    }
    checkPort(c, at, port, kind);
  }
}

function checkPort(c: Checker, at: { start: number; end: number }, port: string, kind: 'bind' | 'server'): void {
  if (/^[+-]/.test(port)) {
    if (kind === 'bind')
      c.add('address', at, `A port offset ('${port}') is for servers (relative to the port the client reached), not for 'bind'.`);
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
    else
      c.add(
        'address',
        at,
        `HAProxy ${c.target} reads port '${port}' as ${lo} and ignores '${junk}'; from ${STRICT_PORT_SINCE} on it refuses it.`,
        { severity: 'warning' },
      );
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
  if (hi !== undefined && Number(hi) < Number(lo))
    c.add('address', at, `Invalid port range '${lo}-${hi}': the first port must not be above the last.`);
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
  if (lead)
    c.add('invalid-size', w, `'${w.value}' is read as ${lead[0]} (${what} takes a plain number, no unit).`, { severity: 'warning' });
  else c.add('invalid-size', w, `'${w.value}' is not a whole number (${what}).`);
}

/** `32k` as bytes (k, m, g are powers of 1024 in HAProxy). */
function sizeInBytes(v: string): number {
  const n = Number(/^\d+/.exec(v)![0]);
  const unit = v[v.length - 1].toLowerCase();
  return unit === 'k' ? n * 1024 : unit === 'm' ? n * 1048576 : unit === 'g' ? n * 1073741824 : n;
}

function checkSize(c: Checker, w: Word | undefined, at: { start: number; end: number }, what: string): void {
  if (!w) {
    c.add('arg', at, `${what} needs a size.`);
    return;
  }
  if (w.envVars || w.value.includes('$')) return;
  if (!SIZE_RE.test(w.value))
    c.add('invalid-size', w, `Invalid size '${w.value}' for ${what} (a number with an optional k, m or g suffix).`);
}

/** The row of a VALUE_ARGS table for a keyword, if any (own rows only: not `constructor`). */
function valueArg(table: Readonly<Record<string, ValueArg>> | undefined, k: string): ValueArg | undefined {
  return table && Object.prototype.hasOwnProperty.call(table, k) ? table[k] : undefined;
}

function checkValue(c: Checker, v: ValueArg, w: Word | undefined, at: { start: number; end: number }, what: string): void {
  if (v.sizeSince) {
    if (compareVersions(c.target, v.sizeSince) >= 0) return checkSize(c, w, at, what);
    const lead = w && !w.envVars && !w.value.includes('$') && !INT_RE.test(w.value) ? /^\d+/.exec(w.value) : null;
    if (w && lead) {
      c.add(
        'invalid-size',
        w,
        `HAProxy ${c.target} reads '${w.value}' as ${lead[0]} bytes (${what} takes a plain number before ${v.sizeSince}), and a buffer that small makes it crash at start: write the bytes (${SIZE_RE.test(w.value) ? sizeInBytes(w.value) : 'a number'}).`,
      );
      return;
    }
  }
  if (v.type === 'int') checkInt(c, w, at, what);
  else if (v.type === 'time') checkTime(c, w, at, what);
  else checkSize(c, w, at, what);
}

function checkGlobal(c: Checker, st: Statement): void {
  const kw = st.keyword!;
  const k = kw.value;
  const two = st.args[0] ? `${k} ${st.args[0].value}` : '';
  const notKw =
    NOT_KEYWORDS_IN_GLOBAL[(st.prefix ? `${st.prefix.value} ` : '') + k + (st.args[0] ? ` ${st.args[0].value}` : '')] ??
    (two ? undefined : NOT_KEYWORDS_IN_GLOBAL[k]);
  const notKw2 = notKw ?? (st.prefix ? NOT_KEYWORDS_IN_GLOBAL[`${st.prefix.value} ${k}`] : undefined);
  if (notKw2) {
    const range = { start: st.start, end: st.end };
    const fixes: Fix[] = [];
    // the fix moves the line into the first defaults section: this finding depends on another section
    c.volatile = true;
    const defaults = c.file.sections.find((s) => s.keyword === 'defaults');
    if (defaults && notKw2.replacement) {
      const line = c.lineRange(st);
      const insertAt =
        defaults.header.line + 1 < c.file.lineStarts.length ? c.file.lineStarts[defaults.header.line + 1] : c.file.text.length;
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
      c.add(
        'unknown-keyword',
        range,
        `'${st.words.map((w) => w.value).join(' ')}' in 'global' only removes the global log targets declared above it; to stop logging, use ${notKw2.use}.`,
        { fixes, severity: 'information' },
      );
    else
      c.add('unknown-keyword', range, `'${st.words.map((w) => w.value).join(' ')}' is not a 'global' keyword; use ${notKw2.use}.`, {
        fixes,
      });
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
      const fixes = rem.replaceWith ? c.replaceFix(kw, rem.replaceWith) : undefined;
      if (compareVersions(c.target, rem.until) >= 0)
        c.add('removed-keyword', kw, `'${k}' was removed in HAProxy ${rem.until}: use ${rem.use}.`, { fixes });
      return;
    }
    if (PROXY.has(k) || matchProxyKeyword(st.words.map((w) => w.value))) {
      c.add('not-allowed-here', kw, `'${k}' belongs in a proxy section (defaults, frontend, listen, backend), not in 'global'.`);
      return;
    }
    const guess = didYouMean(k, globalCandidates(c.target));
    c.add(
      'unknown-keyword',
      kw,
      `Unknown keyword '${k}' in 'global'${guess ? `; did you mean '${guess}'?` : '.'}`,
      guess ? { fixes: c.replaceFix(kw, guess) } : {},
    );
    return;
  }
  const rem = removedInfo(k);
  if (!c.version(info, kw, `'${k}'`, rem?.use, rem?.replaceWith ? c.replaceFix(kw, rem.replaceWith) : undefined)) return;
  const v = valueArg(VALUE_ARGS.global, k);
  if (v) {
    checkValue(c, v, st.args[v.arg], kw, `'${k}'`);
    const extra = st.args[v.arg + 1];
    if (v.only && extra)
      c.add(
        'arg',
        { start: extra.start, end: st.args[st.args.length - 1].end },
        `'${k}' takes one argument; '${extra.value}' is unexpected.`,
      );
  }
  if (k === 'log') checkLogTarget(c, st);
  if (!st.args.length && info.syntax?.length && info.syntax.every((s) => /^\S+\s+</.test(s)))
    c.add('arg', kw, `'${k}' needs an argument (${info.syntax[0]}).`);
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
      if (compareVersions(c.target, rem.until) >= 0)
        c.add('removed-keyword', nameRange, `'${removedInfo(two) ? two : k}' was removed in HAProxy ${rem.until}: use ${rem.use}.`);
      return;
    }
    if (k === 'option') {
      const o = st.args[0];
      if (!o) return void c.add('arg', kw, `'option' needs an option name.`);
      const guess = didYouMean(o.value, OPTION_NAMES);
      c.add(
        'unknown-keyword',
        o,
        `Unknown option '${o.value}'${guess ? `; did you mean '${guess}'?` : '.'}`,
        guess ? { fixes: c.replaceFix(o, guess) } : {},
      );
      return;
    }
    if (k === 'timeout') {
      const o = st.args[0];
      if (!o) return void c.add('arg', kw, `'timeout' needs a kind (${TIMEOUT_KINDS.slice(0, 6).join(', ')}, ...).`);
      const guess = didYouMean(o.value, TIMEOUT_KINDS);
      c.add(
        'unknown-keyword',
        o,
        `Unknown timeout '${o.value}'${guess ? `; did you mean '${guess}'?` : '.'}`,
        guess ? { fixes: c.replaceFix(o, guess) } : {},
      );
      return;
    }
    const family = [...PROXY.keys()].filter((n) => n.startsWith(k + ' '));
    if (family.length && st.args[0]) {
      const guess = didYouMean(`${k} ${st.args[0].value}`, family);
      c.add(
        'unknown-keyword',
        { start: kw.start, end: st.args[0].end },
        `Unknown '${k}' parameter '${st.args[0].value}'${guess ? `; did you mean '${guess}'?` : '.'}`,
      );
      return;
    }
    if (GLOBAL.has(k)) {
      c.add('not-allowed-here', kw, `'${k}' is a 'global' keyword, not allowed in '${kind}'.`);
      return;
    }
    const guess = didYouMean(k, proxyCandidates());
    c.add(
      'unknown-keyword',
      kw,
      `Unknown keyword '${k}' in '${kind}' section${guess ? `; did you mean '${guess}'?` : '.'}`,
      guess ? { fixes: c.replaceFix(kw, guess) } : {},
    );
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
      c.add(
        'not-allowed-here',
        nameRange,
        `'${name}' is not allowed in a ${kind} (it needs ${needs ? `${needs} capability` : 'another section'}).`,
      );
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
    c.add(
      'arg',
      { start: args[0].start, end: args[args.length - 1].end },
      `'${name}' takes no argument; '${args[0].value}' is unexpected.`,
    );
  const v = valueArg(VALUE_ARGS.proxy, k);
  if (v) checkValue(c, v, args[v.arg], nameRange, `'${name}'`);
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
      x.facts.timeouts.add(name.slice(8));
      break;
    case 'log':
      checkLogTarget(c, st);
      break;
    case 'use_backend':
    case 'default_backend': {
      const b = args[0];
      if (!b) c.add('arg', kw, `'${k}' needs a backend name.`);
      else x.facts.backendRefs.push(b);
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
        if (prev) c.lineRefs = true;
        if (prev)
          c.add(
            'duplicate-server',
            args[0],
            `${kind} '${x.facts.name}', another server named '${args[0].value}' was already defined at line ${prev.line + 1}, please use distinct names.`,
          );
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
    case 'option':
      if (name === 'option httpchk') checkHttpchk(c, args);
      break;
    case 'filter':
      if (args[0]?.value === 'spoe' && !args.some((w) => w.value === 'config'))
        c.add('arg', { start: kw.start, end: args[0].end }, `'filter spoe' needs its configuration file ('config <file>').`);
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
    if (k === 'tcp-response' && st.args[0]?.value === 'content') x.facts.hasRespRules = true;
    checkAction(c, st, k);
  }
}

/** From this version on HAProxy refuses headers hidden after the version of `option httpchk` (2.6 warns). */
const HTTPCHK_HEADERS_REFUSED = '3.0';

/** `option httpchk <method> <uri> <version>`: headers after the version (`HTTP/1.1\\r\\nHost:\\ x`) are for `http-check send`. */
function checkHttpchk(c: Checker, args: Word[]): void {
  const version = args[2];
  if (!version || version.envVars || !/[\r\n]|\\[rn]/.test(version.value + version.raw)) return;
  const refused = compareVersions(c.target, HTTPCHK_HEADERS_REFUSED) >= 0;
  c.add(
    refused ? 'arg' : 'deprecated',
    { start: version.start, end: args[args.length - 1].end },
    refused
      ? `HAProxy ${c.target} refuses headers after the HTTP version of 'option httpchk': send them with 'http-check send hdr <name> <value>'.`
      : `Headers after the HTTP version of 'option httpchk' are deprecated (refused from HAProxy ${HTTPCHK_HEADERS_REFUSED}): send them with 'http-check send hdr <name> <value>'.`,
    refused ? {} : { severity: 'warning', deprecated: true },
  );
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
    const cands = candidateList(`action ${set} ${c.target}`, () =>
      [...ACTIONS].filter(([, i]) => i.sets.includes(set) && isAvailable(i, c.target)).map(([n]) => n),
    );
    const guess = didYouMean(a, cands);
    c.add('unknown-keyword', actionWord, `Unknown '${set}' action '${raw}'${guess ? `; did you mean '${guess}'?` : '.'}`);
    return;
  }
  if (!c.ok(info) && !c.version(info, actionWord, `Action '${a}'`)) return;
  if (!info.sets.includes(set))
    c.add('not-allowed-here', actionWord, `Action '${a}' is not valid in '${set}' rules (valid in: ${info.sets.join(', ')}).`);
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
      c.add(
        'unknown-keyword',
        w,
        `Unknown ${what} option '${w.value}'${guess ? `; did you mean '${guess}'?` : '.'}`,
        guess ? { fixes: c.replaceFix(w, guess) } : {},
      );
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
  const v = sec.keyword === 'ring' ? (valueArg(VALUE_ARGS.ring, k) ?? valueArg(VALUE_ARGS.section, k)) : valueArg(VALUE_ARGS.section, k);
  if (v) {
    // what the value is for: the keyword and the words before it (`'timeout retry'`)
    let what = k;
    for (let i = 0; i < v.arg; i++) what += ` ${st.args[i]?.value ?? ''}`;
    checkValue(c, v, st.args[v.arg], kw, `'${what}'`);
  }
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
      c.add(
        'unknown-fetch',
        { start: conv.start, end: conv.nameEnd },
        `Unknown converter '${n}'${guess ? `; did you mean '${guess}'?` : '.'}`,
      );
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
      c.lineRefs = true;
      c.add('undeclared-acl', w, `ACL '${name}' is used before it is declared (line ${later.line + 1}); declare it first.`);
      return;
    }
  }
  const known = facts ? [...facts.acls.keys(), ...PREDEFINED_ACLS.keys()] : [...PREDEFINED_ACLS.keys()];
  const guess = didYouMean(name, known);
  c.add(
    'undeclared-acl',
    w,
    `ACL '${name}' is not declared in this section${guess ? `; did you mean '${guess}'?` : '.'}`,
    guess ? { fixes: c.replaceFix(w, guess) } : {},
  );
}

// ---------------------------------------------------------------------------------------------
// Incremental validation. What a section's own lines give (their findings, and the facts the
// cross-section checks read) depends only on the section's text, the target version and which
// of its lines a `.if` block disables: it is kept per section, in the coordinates of the text it
// was computed on, and taken over by a later version of the document whose section has the same
// text (the same object when the re-parse kept it, else the same characters, shifted). The
// header lines, the names, the inheritance and everything between sections are computed on every
// run from these summaries, which costs a loop over the sections.

/** An offset range and the word written there. */
interface Ref {
  start: number;
  end: number;
  value: string;
}

/** A line HAProxy ignores in a proxy in tcp mode (http-option-in-tcp), as the check reads it. */
interface HttpOnlyLine {
  /** Its lookup name (`option forwardfor`, `http-request`). */
  name: string;
  /** For `option` lines, the option. */
  option?: string;
  /** The proxy kinds the keyword is written for. */
  sections: readonly string[];
  start: number;
  end: number;
}

/** What checkReferences reads of a proxy's lines, in line order. */
type RefItem =
  | { t: 'section'; kind: string; w: Ref }
  | { t: 'finding'; f: Finding }
  | { t: 'track'; w: Ref }
  | { t: 'table'; w: Ref }
  | { t: 'userlist'; name: string; start: number; end: number };

interface ProxySummary {
  /** The last `mode` line's value. */
  mode?: string;
  timeouts: Set<string>;
  hasRules: boolean;
  hasConnRules: boolean;
  hasRespRules?: boolean;
  /** `use_backend` / `default_backend` targets without expansions. */
  backendRefs: Ref[];
  /** A live `server`, `server-template` or `dispatch` line. */
  hasServers: boolean;
  /** A live `bind` or `stats enable` line. */
  listens: boolean;
  /** A `stick-table` line (live or not). */
  stickTable: boolean;
  httpOnly: HttpOnlyLine[];
  /** What the section's lines override in the sections it inherits from (`option X`, `log format`). */
  overrides: string[];
  refs: RefItem[];
}

/** One section's own results, in the coordinates of the text they were computed on. */
interface SectionResult {
  /** Offset of the header line's start, and the line, when computed. */
  base: number;
  line: number;
  /** Which of its statements a `.if` block disabled, when computed. */
  disabled: string;
  /** A finding points outside the section (a fix that edits another section): never reused. */
  volatile: boolean;
  /** A message names a line number: reused only where the section starts on the same line. */
  lineRefs: boolean;
  /** The findings of the section's statements, in order. */
  findings: Finding[];
  proxy?: ProxySummary;
  /** The `table` names of a peers section. */
  peerTables?: string[];
}

/**
 * The previous run for a document: its tree, the target version it was judged at, and each
 * section's result (by index in `file.sections`). Kept per document by validateHaproxy; holds
 * no node of the tree except through `file`, which the next run replaces.
 */
export interface HaproxyValidationMemo {
  key?: string;
  file?: HaproxyFile;
  results: (SectionResult | undefined)[];
  /** Sections computed and taken over by the last run (for tests and benchmarks). */
  computed: number;
  reused: number;
}

export function createHaproxyValidationMemo(): HaproxyValidationMemo {
  return { results: [], computed: 0, reused: 0 };
}

/**
 * The previous run's result of each section that has the same text as one of the previous
 * version's (sectionMatch.ts): the sections before the edit and after it.
 */
function previousResults(memo: HaproxyValidationMemo | undefined, file: HaproxyFile, key: string): (SectionResult | undefined)[] {
  const old = memo?.file;
  if (!memo || !old || memo.key !== key) return [];
  const match = matchSections(old, file);
  const out: (SectionResult | undefined)[] = new Array(match.length);
  for (let i = 0; i < match.length; i++) if (match[i] >= 0) out[i] = memo.results[match[i]];
  return out;
}

/** Which statements of a section a `.if` block disabled ('' for none). */
function disabledSignature(c: Checker, sec: Section): string {
  if (!c.anyDisabled) return '';
  let sig = '';
  const list = sec.statements;
  for (let i = 0; i < list.length; i++) if (list[i].disabled) sig += `${i},`;
  return sig;
}

/** Findings of a section result into the run's list, moved by `d` characters. */
function emit(c: Checker, list: readonly Finding[], d: number): void {
  if (d === 0) for (let i = 0; i < list.length; i++) c.out.push(list[i]);
  else for (let i = 0; i < list.length; i++) c.out.push(shiftFinding(list[i], d));
}

const at = (r: { start: number; end: number }, d: number) => ({ start: r.start + d, end: r.end + d });

/** The checks of a proxy section's lines: their findings and the section's summary. */
function computeProxy(c: Checker, sec: Section, kind: string, base: number, disabled: string): SectionResult {
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
  const ctx: Ctx = { c, sec, kind, facts };
  let mode: string | undefined;
  let hasServers = false;
  let listens = false;
  let stickTable = false;
  const httpOnly: HttpOnlyLine[] = [];
  const overrides: string[] = [];
  for (const st of sec.statements) {
    const k = st.keyword?.value;
    if (k === 'stick-table') stickTable = true;
    if (st.disabled) continue;
    // what the cross-section checks read of the live lines
    if (k === 'mode' && st.args[0]) mode = st.args[0].value;
    if (k && SERVER_LINE.test(k)) hasServers = true;
    if (k === 'bind' || (k === 'stats' && st.sub?.value === 'enable')) listens = true;
    if (k === 'option' && st.sub) overrides.push(`option ${st.sub.value}`);
    if (k === 'log-format' || (k === 'option' && /^(tcplog|httplog|httpslog|clflog|logasap)$/.test(st.sub?.value ?? '') && !st.prefix))
      overrides.push('log format');
    if (k && !st.prefix) {
      const name = k === 'option' || k === 'capture' ? (st.sub ? `${k} ${st.sub.value}` : undefined) : k;
      if (name && httpOnlyKeyword(name)) {
        const sections = matchProxyKeyword([k, ...st.args.map((w) => w.value)])?.info.sections ?? [];
        const kw = st.keyword!;
        httpOnly.push({
          name,
          option: k === 'option' ? st.sub?.value : undefined,
          sections,
          start: kw.start,
          end: (st.sub && name.includes(' ') ? st.sub : kw).end,
        });
      }
    }
    if (!k || k.startsWith('.')) continue;
    checkProxyStatement(ctx, st);
    for (const s of st.samples) checkSample(c, s, !!st.acl || (st.condition ? s.start >= st.condition.start : false), kind === 'defaults');
    checkCondition(c, st, facts);
  }
  const backendRefs: Ref[] = [];
  for (const w of facts.backendRefs)
    if (!(w.envVars || w.value.includes('%[') || w.value.includes('$'))) backendRefs.push({ start: w.start, end: w.end, value: w.value });
  const proxy: ProxySummary = {
    mode,
    timeouts: facts.timeouts,
    hasRules: facts.hasRules,
    hasConnRules: facts.hasConnRules,
    hasRespRules: facts.hasRespRules,
    backendRefs,
    hasServers,
    listens,
    stickTable,
    httpOnly,
    overrides,
    refs: referenceItems(sec, kind, facts.name),
  };
  return { base, line: sec.header.line, disabled, volatile: c.volatile, lineRefs: c.lineRefs, findings: c.out, proxy };
}

/** The checks of the lines of `global` and the other sections. */
function computeOther(c: Checker, sec: Section, kind: string, base: number, disabled: string): SectionResult {
  for (const st of sec.statements) {
    if (st.disabled || !st.keyword || st.keyword.value.startsWith('.')) continue;
    if (kind === 'global') checkGlobal(c, st);
    else checkOtherSection(c, sec, st);
  }
  let peerTables: string[] | undefined;
  if (kind === 'peers') {
    peerTables = [];
    for (const st of sec.statements) if (st.keyword?.value === 'table' && st.args[0]) peerTables.push(st.args[0].value);
  }
  return { base, line: sec.header.line, disabled, volatile: c.volatile, lineRefs: c.lineRefs, findings: c.out, peerTables };
}

/** A section's result: the previous run's when it still holds, else computed now. */
function sectionResult(c: Checker, sec: Section, prev: SectionResult | undefined, memo: HaproxyValidationMemo | undefined): SectionResult {
  const base = sectionBase(c.file, sec);
  const disabled = disabledSignature(c, sec);
  if (prev && !prev.volatile && prev.disabled === disabled && (!prev.lineRefs || prev.line === sec.header.line)) {
    if (memo) memo.reused++;
    return prev;
  }
  if (memo) memo.computed++;
  const saved = c.out;
  c.out = [];
  c.volatile = false;
  c.lineRefs = false;
  try {
    return PROXY_KINDS.has(sec.keyword)
      ? computeProxy(c, sec, sec.keyword, base, disabled)
      : computeOther(c, sec, sec.keyword, base, disabled);
  } finally {
    c.out = saved;
  }
}

/** A proxy section in one run: its summary, where it is now, and what it inherits from. */
interface Proxy {
  sec: Section;
  kind: string;
  name: string;
  s: ProxySummary;
  /** How far the section moved since its summary was computed. */
  d: number;
  parent?: Proxy;
}

/** All diagnostics findings for a parsed file; `memo`: the previous run for the same document. */
export function haproxyFindings(file: HaproxyFile, settings: ServiceSettings, memo?: HaproxyValidationMemo): Finding[] {
  const c = new Checker(file, settings);
  const key = c.target + (c.judgedNewest ? ' newest' : '');
  const prev = previousResults(memo, file, key);
  if (memo) memo.computed = memo.reused = 0;
  const results: (SectionResult | undefined)[] = new Array(file.sections.length);
  for (const e of file.errors) c.add('syntax', e, e.message.charAt(0).toUpperCase() + e.message.slice(1) + '.');
  applyConditionalBlocks(c, file);

  for (const st of file.orphans) {
    if (st.disabled || !st.keyword || st.keyword.value.startsWith('.')) continue;
    c.add('syntax', st.keyword, `'${st.keyword.value}' appears outside of any section.`);
  }

  const proxies: Proxy[] = [];
  const allFacts: Proxy[] = [];
  const byKindName = new Map<string, Proxy>();
  const defaultsByName = new Map<string, Proxy>();
  let lastDefaults: Proxy | undefined;
  const otherNames = new Map<string, Section>();

  for (let i = 0; i < file.sections.length; i++) {
    const sec = file.sections[i];
    if (sec.header.disabled) continue;
    checkHeader(c, sec);
    const kind = sec.keyword;
    if (PROXY_KINDS.has(kind)) {
      const p: Proxy = { sec, kind, name: sectionName(sec), s: undefined!, d: 0 };
      const fromIdx = sec.header.args.findIndex((w) => w.value === 'from');
      const fromName = fromIdx >= 0 ? sec.header.args[fromIdx + 1]?.value : undefined;
      if (fromName !== undefined) {
        p.parent = defaultsByName.get(fromName);
        if (!p.parent && sec.header.args[fromIdx + 1])
          c.add('arg', sec.header.args[fromIdx + 1], `No 'defaults' section named '${fromName}' before this line.`);
      } else if (kind !== 'defaults') p.parent = lastDefaults;
      allFacts.push(p);
      const r = (results[i] = sectionResult(c, sec, prev[i], memo));
      p.s = r.proxy!;
      p.d = sectionBase(file, sec) - r.base;
      emit(c, r.findings, p.d);
      if (kind === 'defaults') {
        if (p.name) {
          const dup = defaultsByName.get(p.name);
          if (dup)
            c.add(
              'duplicate-proxy',
              sec.name!,
              `A 'defaults' section named '${p.name}' already exists (line ${dup.sec.header.line + 1}).`,
              { severity: 'warning' },
            );
          defaultsByName.set(p.name, p);
        }
        lastDefaults = p;
      } else {
        const caps = PROXY_SECTIONS[kind].caps;
        for (const cap of caps) {
          const dup = byKindName.get(`${cap}:${p.name}`);
          if (dup && sec.name) {
            c.add(
              'duplicate-proxy',
              sec.name,
              `${kind} '${p.name}' has the same name as the ${dup.kind} on line ${dup.sec.header.line + 1}.`,
            );
            break;
          }
        }
        // a frontend and a backend may share a name, but newer versions warn that it will not last
        // (byKindName is keyed by capability: `be:NAME` is a backend or a listen)
        const other =
          kind === 'frontend' ? byKindName.get(`be:${p.name}`) : kind === 'backend' ? byKindName.get(`fe:${p.name}`) : undefined;
        if (other && sec.name && other.kind !== 'listen' && probedCheck('duplicate frontend and backend name', c.target) === 'warned')
          c.add(
            'duplicate-proxy',
            sec.name,
            `${kind} '${p.name}' has the same name as the ${other.kind} on line ${other.sec.header.line + 1}; HAProxy ${c.target} warns that this will not be supported any more.`,
            { severity: 'warning' },
          );
        for (const cap of caps) byKindName.set(`${cap}:${p.name}`, p);
        proxies.push(p);
      }
      const parent = p.parent;
      if (parent && parent.s.hasRules) {
        if (kind === 'defaults' || kind === 'listen')
          c.add(
            'defaults-rules',
            sec.header.keyword!,
            `A ${kind} section cannot inherit from defaults '${parent.name}' (line ${parent.sec.header.line + 1}), which defines TCP/HTTP rules.`,
          );
        else if (kind === 'backend' && parent.s.hasConnRules)
          c.add(
            'defaults-rules',
            sec.header.keyword!,
            `A backend cannot inherit from defaults '${parent.name}' (line ${parent.sec.header.line + 1}), which defines 'tcp-request connection' or 'tcp-request session' rules.`,
          );
        else if (kind === 'frontend' && parent.s.hasRespRules)
          c.add(
            'defaults-rules',
            sec.header.keyword!,
            `A frontend cannot inherit from defaults '${parent.name}' (line ${parent.sec.header.line + 1}), which defines 'tcp-response content' rules.`,
          );
      }
    } else {
      if (sec.name && kind !== 'traces') {
        const key = `${kind}:${sec.name.value}`;
        const dup = otherNames.get(key);
        if (dup)
          c.add('duplicate-proxy', sec.name, `A '${kind}' section named '${sec.name.value}' already exists (line ${dup.header.line + 1}).`);
        else otherNames.set(key, sec);
      }
      const r = (results[i] = sectionResult(c, sec, prev[i], memo));
      emit(c, r.findings, sectionBase(file, sec) - r.base);
    }
  }

  // Cross-proxy checks: backends named by switching rules, modes, timeouts.
  const byBackendName = new Map<string, Proxy>();
  const reportedInherited = new Set<HttpOnlyLine>();
  for (const p of proxies) if ((p.kind === 'backend' || p.kind === 'listen') && !byBackendName.has(p.name)) byBackendName.set(p.name, p);
  for (const p of proxies) {
    const mode = effectiveMode(p);
    for (const ref of p.s.backendRefs) {
      const w = at(ref, p.d);
      const target = byBackendName.get(ref.value);
      if (!target) {
        const guess = didYouMean(ref.value, byBackendName.keys());
        c.add(
          'unknown-backend',
          w,
          `No backend named '${ref.value}'${guess ? `; did you mean '${guess}'?` : '.'}`,
          guess ? { fixes: c.replaceFix(w, guess) } : {},
        );
        continue;
      }
      const tmode = effectiveMode(target);
      if (mode === 'http' && tmode === 'tcp')
        c.add('mode-mismatch', w, `${p.kind} '${p.name}' is in http mode but backend '${target.name}' is in tcp mode.`);
    }
    checkTimeouts(c, p, mode);
    const headerHasAddress = p.sec.header.args.length > 1 && p.sec.header.args[1].value !== 'from';
    if (p.kind === 'frontend' && !headerHasAddress && !p.s.listens)
      c.add(
        'no-bind',
        p.sec.header.keyword!,
        `frontend '${p.name}' has no 'bind' line; declare it as a backend if it is meant to receive no connections of its own.`,
      );
    if (mode === 'tcp') {
      // HTTP-only keywords (overrides.ts HTTP_ONLY_KEYWORDS, each seen warned about by haproxy -c)
      // of the proxy and of the defaults it inherits: HAProxy ignores them with a warning
      // nearest section first: a nearer `no option X` or log format (`option tcplog`, `log-format`) overrides a farther one
      const overridden = new Set<string>();
      for (let q: Proxy | undefined = p; q; q = q.parent) {
        for (const h of q.s.httpOnly) {
          if (reportedInherited.has(h)) continue;
          if (overridden.has(h.name) || ((h.name === 'option httplog' || h.name === 'option httpslog') && overridden.has('log format')))
            continue;
          if (!h.sections.includes(p.kind)) continue;
          const o = h.option;
          if ((o === 'httplog' || o === 'httpslog') && p.kind === 'backend') continue; // a backend does not log
          reportedInherited.add(h);
          const why = p.s.mode || inheritsMode(p) ? 'runs in tcp mode' : "runs in tcp mode (no 'mode' line: tcp is the default)";
          if (o === 'httplog' || o === 'httpslog')
            c.add(
              'http-option-in-tcp',
              at(h, q.d),
              `'option ${o}' needs 'mode http'; ${p.kind} '${p.name}' ${why} and falls back to 'option tcplog'.`,
            );
          else
            c.add('http-option-in-tcp', at(h, q.d), `'${h.name}' needs 'mode http'; ${p.kind} '${p.name}' ${why}, so HAProxy ignores it.`);
        }
        for (const n of q.s.overrides) overridden.add(n);
      }
    }
  }
  checkReferences(c, file, allFacts, results);
  if (memo) {
    memo.key = key;
    memo.file = file;
    memo.results = results;
  }
  return c.out;
}

/** What checkReferences reads of a proxy section's live lines, in line order. */
function referenceItems(sec: Section, kind: string, name: string): RefItem[] {
  const items: RefItem[] = [];
  const ref = (k: string, w: Word | undefined) => {
    if (!w || w.envVars || NAME_WITH_EXPANSION.test(w.value)) return;
    items.push({ t: 'section', kind: k, w: { start: w.start, end: w.end, value: w.value } });
  };
  // the proxy's server names, gathered when a `use-server` line asks
  let servers: Set<string> | undefined;
  const serverNames = (): Set<string> =>
    (servers ??= new Set(sec.statements.filter((s) => s.keyword?.value === 'server' && s.args[0]).map((s) => s.args[0].value)));
  for (const st of sec.statements) {
    if (st.disabled || !st.keyword) continue;
    const k = st.keyword.value;
    const a = st.args;
    if (k === 'server' || k === 'default-server' || k === 'server-template') {
      for (let i = 0; i < a.length - 1; i++) if (a[i].value === 'resolvers') ref('resolvers', a[i + 1]);
    } else if (k === 'use-server' && a[0] && !a[0].envVars && !NAME_WITH_EXPANSION.test(a[0].value) && !serverNames().has(a[0].value)) {
      items.push({
        t: 'finding',
        f: {
          ruleId: 'haproxy/unknown-reference',
          start: a[0].start,
          end: a[0].end,
          message: `No server named '${a[0].value}' in ${kind} '${name}'.`,
        },
      });
    } else if (k === 'stick-table') {
      for (let i = 0; i < a.length - 1; i++) if (a[i].value === 'peers') ref('peers', a[i + 1]);
    } else if (k === 'email-alert' && a[0]?.value === 'mailers') {
      ref('mailers', a[1]);
    } else if ((k === 'http-request' || k === 'http-response') && CACHE_ACTION.test(a[0]?.value ?? '')) {
      ref('cache', a[1]);
    } else if (k === 'filter' && a[0]?.value === 'cache') {
      ref('cache', a[1]);
    }
    if (RULE_KEYWORDS.has(k)) {
      // `track-scN key` without `table` tracks in the proxy's own stick table
      const ai = a.findIndex((w) => TRACK_SC.test(w.value));
      if (ai >= 0 && !a.slice(ai).some((w) => w.value === 'table'))
        items.push({ t: 'track', w: { start: a[ai].start, end: a[ai].end, value: a[ai].value } });
    }
    if (RULE_KEYWORDS.has(k) || k === 'stick') {
      for (let i = 1; i < a.length - 1; i++) {
        if (a[i].value !== 'table') continue;
        const t = a[i + 1];
        if (t.envVars || NAME_WITH_EXPANSION.test(t.value)) continue;
        items.push({ t: 'table', w: { start: t.start, end: t.end, value: t.value } });
      }
    }
    for (const s of st.samples) {
      if (HTTP_AUTH.test(s.fetch) && s.args[0] && !NAME_WITH_EXPANSION.test(s.args[0]))
        items.push({ t: 'userlist', name: s.args[0], start: s.start, end: s.end });
    }
  }
  return items;
}

/** Names used by other sections: resolvers, caches, userlists, peers, mailers, servers, stick tables. */
function checkReferences(c: Checker, file: HaproxyFile, proxies: Proxy[], results: (SectionResult | undefined)[]): void {
  const named = new Map<string, Set<string>>();
  const tables = new Set<string>();
  for (let i = 0; i < file.sections.length; i++) {
    const sec = file.sections[i];
    if (sec.header.disabled || !sec.name) continue;
    if (!named.has(sec.keyword)) named.set(sec.keyword, new Set());
    named.get(sec.keyword)!.add(sec.name.value);
    const r = results[i];
    if (r?.proxy?.stickTable) tables.add(sec.name.value);
    if (r?.peerTables) for (const t of r.peerTables) tables.add(`${sec.name.value}/${t}`);
  }
  const has = (kind: string, name: string) => named.get(kind)?.has(name) ?? false;
  for (const p of proxies) {
    for (const item of p.s.refs) {
      if (item.t === 'section') {
        if (has(item.kind, item.w.value)) continue;
        const w = at(item.w, p.d);
        const guess = didYouMean(item.w.value, named.get(item.kind) ?? []);
        c.add(
          'unknown-reference',
          w,
          `No '${item.kind}' section named '${item.w.value}'${guess ? `; did you mean '${guess}'?` : '.'}`,
          guess ? { fixes: c.replaceFix(w, guess) } : {},
        );
      } else if (item.t === 'finding') {
        c.out.push(p.d ? shiftFinding(item.f, p.d) : item.f);
      } else if (item.t === 'track') {
        if (!tables.has(p.name))
          c.add(
            'unknown-reference',
            at(item.w, p.d),
            `'${item.w.value}' without 'table' needs a 'stick-table' in ${p.kind}${p.name ? ` '${p.name}'` : ''}.`,
          );
      } else if (item.t === 'table') {
        if (!tables.has(item.w.value))
          c.add(
            'unknown-reference',
            at(item.w, p.d),
            `No stick table named '${item.w.value}' (a proxy with a 'stick-table' line, or 'peers/table').`,
          );
      } else if (!has('userlist', item.name)) {
        c.add('unknown-reference', at(item, p.d), `No 'userlist' section named '${item.name}'.`);
      }
    }
  }
}

/** Whether some defaults section up the chain writes a `mode`. */
function inheritsMode(p: Proxy): boolean {
  for (let q = p.parent; q; q = q.parent) if (q.s.mode) return true;
  return false;
}

function effectiveMode(p: Proxy | undefined): string {
  let q = p;
  while (q) {
    if (q.s.mode) return q.s.mode;
    q = q.parent;
  }
  return 'tcp';
}

function inheritedTimeouts(p: Proxy): Set<string> {
  const out = new Set<string>();
  let q: Proxy | undefined = p;
  while (q) {
    for (const t of q.s.timeouts) out.add(t);
    q = q.parent;
  }
  return out;
}

function checkTimeouts(c: Checker, p: Proxy, mode: string): void {
  if (mode !== 'http' && mode !== 'tcp') return;
  const have = inheritedTimeouts(p);
  const need: string[] = [];
  const fe = p.kind === 'frontend' || p.kind === 'listen';
  // server-side timeouts only matter where there are servers to talk to (HAProxy warns the same way)
  const be = (p.kind === 'backend' || p.kind === 'listen') && p.s.hasServers;
  if (be && !have.has('connect')) need.push('connect');
  if (fe && !have.has('client')) need.push('client');
  if (be && !have.has('server')) need.push('server');
  if (!need.length) return;
  const hdr = p.sec.header;
  const insertAt = hdr.line + 1 < c.file.lineStarts.length ? c.file.lineStarts[hdr.line + 1] : c.file.text.length;
  const first = p.sec.statements[0];
  const indent = first ? (/^[ \t]*/.exec(c.file.text.slice(c.file.lineStarts[first.line]))?.[0] ?? '    ') : '    ';
  const defaults: Record<string, string> = { connect: '5s', client: '30s', server: '30s' };
  const text = need.map((n) => `${indent}timeout ${n} ${defaults[n]}\n`).join('');
  const nl = insertAt === c.file.text.length && !c.file.text.endsWith('\n') ? '\n' : '';
  c.add(
    'missing-timeout',
    hdr.keyword!,
    `${p.kind} '${p.name}' has no ${need.map((n) => `'timeout ${n}'`).join(', ')}; connections may hang forever.`,
    {
      fixes: [
        {
          title: `Add ${need.map((n) => `timeout ${n}`).join(', ')}`,
          edits: [{ start: insertAt, end: insertAt, newText: nl + text }],
          safe: false,
        },
      ],
    },
  );
}

/**
 * The previous run of a document lives in the caller's memo bag (`bag.haproxyValidation`: the
 * server's ParseCache keeps one per open document, whose sections' results are taken over where
 * their text did not change). Without a bag (`check`) every run starts afresh.
 */
export function haproxyValidationMemo(bag: Record<string, unknown> | undefined): HaproxyValidationMemo | undefined {
  return bag?.haproxyValidation as HaproxyValidationMemo | undefined;
}

export function validateHaproxy(
  doc: TextDocument,
  file: HaproxyFile,
  settings: ServiceSettings,
  bag?: Record<string, unknown>,
): Diagnostic[] {
  let findings: Finding[];
  const memo = haproxyValidationMemo(bag) ?? createHaproxyValidationMemo();
  if (bag) bag.haproxyValidation = memo;
  try {
    findings = haproxyFindings(file, settings, memo);
  } catch (e) {
    memo.file = undefined;
    memo.results = [];
    findings = [
      {
        ruleId: 'haproxy/syntax',
        start: 0,
        end: 0,
        message: `Internal error while checking: ${(e as Error)?.message ?? e}`,
        severity: 'information',
      },
    ];
  }
  return haproxyRules.toDiagnostics(doc, findings, settings, 'haproxy');
}

export { docUrl };
export type { KeywordInfo };
