// The nginx security checks built on the variable-flow analysis (nginx/flow.ts): SSRF, header
// and response splitting, host spoofing, origin/referer regexes, ReDoS, access rules and the
// header hygiene rules. Each pushes Findings against the rows of rules.ts.
import type { Fix, FixEdit } from '../../../core/rules';
import type { NginxFinding as Finding, NginxRuleId } from '../rules';
import type { Directive, Word } from '../ast';
import { variablesIn } from '../ast';
import { computeFlow, ifParts, ifPatternText, type FlowScope, type NginxFlow, type Sink } from '../flow';
import { anchoredStart, matches, parseRegex, redosRisk, unescapedDots, type ParsedRegex } from '../regex';
import { indentAt, insertLinesAfter, replace } from '../../../core/findingText';
import { add, type NginxCheckContext } from './checks';
import { weakCipherTokens } from '../../../core/tls';
import { REQUEST_PASS_DIRECTIVES } from '../data';

type Ctx = NginxCheckContext;

const lineOf = (ctx: Ctx, offset: number): number => {
  ctx.readLines = true; // a message with a line number does not move with its block
  let n = 1;
  for (let i = ctx.text.indexOf('\n'); i >= 0 && i < offset; i = ctx.text.indexOf('\n', i + 1)) n++;
  return n;
};

export type SecurityCheck = (ctx: Ctx, flow: NginxFlow) => void;

/**
 * The check that emits each security row's findings (rules.ts), in the order the checks run (a
 * check's first key places it): the run list is derived from it. With checks.ts's CHECK_OF it
 * must name every tuning row, and only rows (tsc checks both).
 */
const SECURITY_CHECK_OF = {
  'nginx/ssrf-proxy-pass': checkSsrf,
  'nginx/header-injection': checkSplitting,
  'nginx/host-spoofing': checkHostSpoofing,
  'nginx/valid-referers-none': checkOrigins,
  'nginx/origin-regex': checkOrigins,
  'nginx/add-header-multiline': checkHeaderHygiene,
  'nginx/add-header-content-type': checkHeaderHygiene,
  'nginx/allow-without-deny': checkAccess,
  'nginx/return-bypasses-access': checkAccess,
  'nginx/stub-status-open': checkAccess,
  'nginx/error-log-off': checkAccess,
  'nginx/ssl-ciphers-weak': checkAccess,
  'nginx/resolver-external': checkResolver,
  'nginx/regex-redos': checkRedos,
  'nginx/location-regex-unanchored': checkUnanchoredExtension,
} satisfies Partial<Record<NginxRuleId, SecurityCheck>>;

/** The rows the security checks emit. */
export type NginxSecurityRuleId = keyof typeof SECURITY_CHECK_OF;
const SECURITY_CHECKS: readonly SecurityCheck[] = [...new Set<SecurityCheck>(Object.values(SECURITY_CHECK_OF))];

/**
 * The checks whose findings are those of each sink on its own, in text order (one pass over the
 * sinks, nothing carried from one sink to the next), from what the sink's block and the blocks
 * around it say: run over a part of the file's sinks, they find that part's findings
 * (tuning/run.ts runs them per http-level server and keeps an unchanged server's).
 */
const PER_SINK: ReadonlySet<SecurityCheck> = new Set<SecurityCheck>([
  checkSsrf,
  checkSplitting,
  checkHostSpoofing,
  checkUnanchoredExtension,
]);

/** The sink lists the PER_SINK checks read (the other lists of a part are left empty). */
export const PER_SINK_NAMES: readonly string[] = [
  ...new Set([
    ...REQUEST_PASS_DIRECTIVES,
    'add_header',
    'more_set_headers',
    'proxy_set_header',
    'proxy_pass',
    'return',
    'rewrite',
    'location',
  ]),
];

/** The security checks in run order, each with whether it may run per part of the file (PER_SINK). */
export const SECURITY_RUN: readonly { check: SecurityCheck; perPart: boolean }[] = SECURITY_CHECKS.map((check) => ({
  check,
  perPart: PER_SINK.has(check),
}));

export function runSecurityChecks(ctx: Ctx): void {
  const flow = computeFlow(ctx.file, ctx.top.inner);
  for (let i = 0; i < SECURITY_CHECKS.length; i++) SECURITY_CHECKS[i](ctx, flow);
}

const isHttp = (s: FlowScope): boolean => {
  for (let x: FlowScope | undefined = s; x; x = x.up)
    if (x.ctx === 'stream' || x.ctx === 'mail' || x.ctx.startsWith('stream/') || x.ctx.startsWith('mail/')) return false;
  return true;
};

// ---------------------------------------------------------------------------------------------
// SSRF

const PASSES = REQUEST_PASS_DIRECTIVES;

function checkSsrf(ctx: Ctx, flow: NginxFlow): void {
  const all: Sink[] = [];
  for (const p of PASSES) all.push(...(flow.sinks.get(p) ?? []));
  if (all.length > 1) all.sort((a, b) => a.d.start - b.d.start);
  for (const { d, scope } of all) {
    const w = d.args[0];
    if (!w || w.raw.indexOf('$') < 0 || !isHttp(scope)) continue;
    const t = flow.wordTaint(w, d, scope);
    if (!t.hostUser) continue;
    let via = '';
    const loc = innermostInternal(flow, scope);
    if (loc) {
      // only internal redirects reach it (error_page, try_files, X-Accel-Redirect from the
      // upstream): the client does not pick its URI, unless a rewrite copies the client's path in
      const reacher = flow.internalReacher(loc, scope);
      if (!reacher) continue;
      via = ` The location is \`internal\`, but the \`rewrite\` on line ${lineOf(ctx, reacher.start)} lets a client steer requests into it.`;
    }
    const at = firstVar(ctx, flow, w, d, scope, (x) => x.user || x.hostUser) ?? w;
    add(
      ctx,
      'nginx/ssrf-proxy-pass',
      at,
      `The ${d.name} address comes from the request: ${t.why ?? 'client data'}. A client can make nginx connect to any host it can reach.${via} Map the request to a fixed set of upstreams instead.`,
    );
  }
}

/** The innermost enclosing location marked `internal;` (named locations are reached with the client's own request). */
function innermostInternal(flow: NginxFlow, scope: FlowScope): Directive | undefined {
  for (let s: FlowScope | undefined = scope; s; s = s.up) {
    if (s.d?.name !== 'location') continue;
    if (flow.isInternal(s.d) && !(s.d.args[s.d.args.length - 1]?.value ?? '').startsWith('@')) return s.d;
  }
  return undefined;
}

/** The first variable reference in `w` whose taint satisfies `pred`. */
function firstVar(
  ctx: Ctx,
  flow: NginxFlow,
  w: Word,
  d: Directive,
  scope: FlowScope,
  pred: (t: ReturnType<NginxFlow['variableTaint']>) => boolean,
): { start: number; end: number; name: string } | undefined {
  void ctx;
  for (const v of variablesIn(w)) if (pred(flow.variableTaint(v.name, d, scope))) return v;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// header and response splitting

const REDIRECT_CODES = /^30[12378]$/;

function checkSplitting(ctx: Ctx, flow: NginxFlow): void {
  const first = ctx.out.length;
  const judge = (d: Directive, scope: FlowScope, w: Word, what: () => string, skipOwnCaptures: boolean): void => {
    if (w.raw.indexOf('$') < 0 || !isHttp(scope)) return;
    for (const v of variablesIn(w)) {
      // nginx escapes a rewrite's own numbered captures in its replacement (checked on 1.22.1): %0d%0a stays encoded
      if (skipOwnCaptures && v.name.length === 1 && v.name >= '0' && v.name <= '9') continue;
      const t = flow.variableTaint(v.name, d, scope);
      if (!t.crlf) continue;
      const fixes: Fix[] = [];
      if ((v.name === 'uri' || v.name === 'document_uri') && d.name !== 'proxy_pass') {
        fixes.push({
          title: 'Use $request_uri (as sent, never holds CR/LF)',
          safe: false,
          edits: [replace(v.start, v.end, v.braced ? '${request_uri}' : '$request_uri')],
        });
      }
      const cls = negatedClassFix(ctx, flow, d, scope, v.name);
      if (cls) fixes.push(cls);
      const kind = d.name === 'proxy_set_header' || d.name === 'proxy_pass' ? 'request splitting' : 'response splitting';
      add(
        ctx,
        'nginx/header-injection',
        v,
        `HTTP ${kind}: ${t.crlfWhy ?? `$${v.name} can hold a line feed`} goes into ${what()}. A request that puts CR LF there (e.g. %0d%0a in the path) adds headers of the client's choosing.`,
        { fixes },
      );
      return;
    }
  };
  const LOCATION = (): string => 'the Location header';
  for (const { d, scope } of flow.sinks.get('add_header') ?? [])
    if (d.args[1]) judge(d, scope, d.args[1], () => `the response header ${d.args[0].value}`, false);
  for (const { d, scope } of flow.sinks.get('more_set_headers') ?? [])
    for (const w of headerWords(d.args)) judge(d, scope, w, () => 'a response header (more_set_headers)', false);
  for (const { d, scope } of flow.sinks.get('proxy_set_header') ?? [])
    if (d.args[1]) judge(d, scope, d.args[1], () => `the header ${d.args[0].value} sent to the upstream`, false);
  for (const { d, scope } of flow.sinks.get('proxy_pass') ?? [])
    if (d.args[0]) judge(d, scope, d.args[0], () => 'the request line sent to the upstream', false);
  for (const { d, scope } of flow.sinks.get('return') ?? []) {
    const a = d.args;
    if (a.length >= 2 && REDIRECT_CODES.test(a[0].value)) judge(d, scope, a[1], LOCATION, false);
    else if (a.length === 1 && /^(https?:\/\/|\$scheme)/.test(a[0].value)) judge(d, scope, a[0], LOCATION, false);
  }
  for (const { d, scope } of flow.sinks.get('rewrite') ?? []) {
    const a = d.args;
    if (a.length < 2) continue;
    const flag = a[2]?.value;
    if (flag === 'redirect' || flag === 'permanent' || /^(https?:\/\/|\$scheme)/.test(a[1].value)) judge(d, scope, a[1], LOCATION, true);
  }
  // one kind of sink after the other above: put this rule's findings back in text order
  if (ctx.out.length - first > 1) {
    const mine = ctx.out.splice(first).sort((x, y) => x.start - y.start);
    ctx.out.push(...mine);
  }
}

/** For a capture of a negated class (`[^/]`), a fix that keeps whitespace out of it (`[^/\s]`). */
function negatedClassFix(ctx: Ctx, flow: NginxFlow, d: Directive, scope: FlowScope, name: string): Fix | undefined {
  void d;
  // the location regex whose group this is (numbered or named)
  const loc = scope.location;
  if (!loc || loc.args.length < 2) return undefined;
  const re = flow.regexOf(loc);
  if (!re) return undefined;
  const cap = /^\d$/.test(name) ? re.captures.find((c) => c.index === Number(name)) : re.captures.find((c) => c.name === name);
  if (!cap) return undefined;
  const word = loc.args[loc.args.length - 1];
  if (word.quote !== 'none') return undefined;
  // the group's text: find the capture's opening parenthesis by counting groups
  const src = word.raw;
  let count = 0;
  let open = -1;
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '\\') {
      i++;
      continue;
    }
    if (src[i] === '[') {
      // skip a class
      let j = i + 1;
      if (src[j] === '^') j++;
      if (src[j] === ']') j++;
      while (j < src.length && src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      i = j;
      continue;
    }
    if (src[i] === '(' && (src[i + 1] !== '?' || /^\(\?P?<[A-Za-z_]|^\(\?'/.test(src.slice(i)))) {
      count++;
      if (count === cap.index) {
        open = i;
        break;
      }
    }
  }
  if (open < 0) return undefined;
  const m = /\[\^((?:\\.|[^\]\\])*)\]/.exec(src.slice(open));
  if (!m || /\\s|\\n|\\v|\\R/.test(m[1])) return undefined;
  const at = word.start + open + m.index + m[0].length - 1;
  return { title: `Keep whitespace out of [^${m[1]}] (add \\s)`, safe: false, edits: [{ start: at, end: at, newText: '\\s' }] };
}

// ---------------------------------------------------------------------------------------------
// host spoofing

function checkHostSpoofing(ctx: Ctx, flow: NginxFlow): void {
  // indexed: thousands of proxy_set_header lines, walked mostly before the JIT has optimised this
  const sinks = flow.sinks.get('proxy_set_header') ?? [];
  for (let i = 0; i < sinks.length; i++) {
    const { d, scope } = sinks[i];
    const h = d.args[0]?.value;
    if (!h || h.length !== 4 || h.toLowerCase() !== 'host' || !d.args[1] || d.args[1].raw.indexOf('$') < 0 || !isHttp(scope)) continue;
    const w = d.args[1];
    for (const v of variablesIn(w)) {
      // $host and $http_host name the same virtual host: a named server only receives requests
      // whose Host matched its server_name, and on the default (or only) server $host is just as
      // client-chosen. $http_host keeps the port, which backends need for their redirects.
      if (v.name === 'host' || v.name === 'http_host') continue;
      const t = flow.variableTaint(v.name, d, scope);
      if (!t.user) continue;
      add(
        ctx,
        'nginx/host-spoofing',
        v,
        `The upstream's Host header is ${t.why ?? `$${v.name}`}, which is not the virtual host nginx chose: a client can make the backend believe it was asked for any host (cache poisoning, password-reset links to another domain). Use \`$host\`, \`$http_host\` or the literal name.`,
      );
      break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// origin and referer checks

const ORIGIN_VARS = new Set(['$http_origin', '$http_referer']);

function checkOrigins(ctx: Ctx, flow: NginxFlow): void {
  for (const { d, scope } of flow.sinks.get('if') ?? []) {
    const p = ifParts(d);
    // `!~` guards the same way (a crafted value that matches is let through): both count
    if (!p.subject || !p.op || !p.pattern) continue;
    const subject = p.subject.value.replace(/^\(\s*/, '');
    if (!ORIGIN_VARS.has(subject) || !isHttp(scope)) continue;
    const text = ifPatternText(d);
    if (text === undefined) continue;
    judgeOrigin(ctx, p.pattern, text, p.op.endsWith('*'), subject === '$http_referer' ? 'referer' : 'origin');
  }
  for (const m of flow.maps.values()) {
    const src = m.source?.value;
    if (!src || !ORIGIN_VARS.has(src)) continue;
    for (const e of m.entries) {
      if (!e.key.value.startsWith('~')) continue;
      const caseless = e.key.value.startsWith('~*');
      judgeOrigin(ctx, e.key, e.key.value.slice(caseless ? 2 : 1), caseless, src === '$http_referer' ? 'referer' : 'origin');
    }
  }
  for (const { d } of flow.sinks.get('valid_referers') ?? []) {
    for (const a of d.args) {
      if (a.value === 'none') {
        add(
          ctx,
          'nginx/valid-referers-none',
          a,
          '`none` accepts requests without a Referer, and any page can make a browser send one without it (a Referrer-Policy, an https-to-http link): the check is void for an attacker.',
        );
      }
      if (a.value.startsWith('~')) judgeOrigin(ctx, a, a.value.slice(1), true, 'valid_referers');
    }
  }
}

/** Host names the pattern spells out, e.g. `example\.com` → example.com. */
function domainsIn(pattern: string): string[] {
  const out = new Set<string>();
  for (const m of pattern.matchAll(/[A-Za-z0-9-]+(?:(?:\\\.|\.)[A-Za-z0-9-]+)+/g)) {
    const d = m[0].replace(/\\\./g, '.');
    if (/[A-Za-z]/.test(d.split('.').pop() ?? '')) out.add(d.toLowerCase());
  }
  return [...out];
}

function judgeOrigin(ctx: Ctx, at: Word, pattern: string, caseless: boolean, kind: 'origin' | 'referer' | 'valid_referers'): void {
  const re = parseRegex(pattern, caseless);
  if (!re) return;
  const what = kind === 'valid_referers' ? '`valid_referers` pattern' : `check of $http_${kind}`;
  if (unescapedDots(re)) {
    add(
      ctx,
      'nginx/origin-regex',
      at,
      `This ${what} has an unescaped \`.\` in a host name: it matches any character, so a look-alike domain (\`wwwXexample.com\`) passes. Write \`\\.\`.`,
      {
        fixes: () => [{ title: 'Escape the dots', safe: true, edits: dotEdits(at, pattern) }].filter((f) => f.edits.length > 0),
      },
    );
    return;
  }
  if (!re.exact) return;
  const bypass = originBypass(re, pattern, kind);
  if (bypass)
    add(
      ctx,
      'nginx/origin-regex',
      at,
      `This ${what} is not anchored: \`${bypass}\` passes it. Anchor both ends (\`^https://example\\.com$\`).`,
    );
  void anchoredStart;
}

/** Edits that escape the unescaped dots between name characters in a word's pattern. */
function dotEdits(w: Word, pattern: string): FixEdit[] {
  const edits: FixEdit[] = [];
  const raw = w.raw;
  const base = w.start + (w.quote === 'none' ? 0 : 1);
  const offsetInRaw = raw.replace(/^["']/, '').indexOf(pattern);
  if (offsetInRaw < 0) return edits;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '.' && !inClass && /[A-Za-z0-9-]/.test(pattern[i - 1] ?? '') && /[A-Za-z0-9-]/.test(pattern[i + 1] ?? '')) {
      edits.push({ start: base + offsetInRaw + i, end: base + offsetInRaw + i, newText: '\\' });
    }
  }
  return edits;
}

/** Host names of one pattern tried for a bypass (each costs a few dozen linear-time matches). */
const MAX_DOMAINS_TRIED = 8;

/** A crafted Origin/Referer that the pattern accepts although it names another site, if any. */
function originBypass(re: ParsedRegex, pattern: string, kind: 'origin' | 'referer' | 'valid_referers'): string | undefined {
  const evil = 'attacker.invalid';
  // the linear-time matcher (regex.ts matches): a pattern never runs in the JavaScript engine
  const js = { test: (s: string) => matches(re, s) === true };
  for (const dom of domainsIn(pattern).slice(0, MAX_DOMAINS_TRIED)) {
    const schemes = kind === 'valid_referers' ? [''] : ['https://', 'http://'];
    const tails = kind === 'origin' ? ['', '/'] : ['/', '', '/page'];
    let legit: { scheme: string; host: string; tail: string } | undefined;
    outer: for (const scheme of schemes) {
      for (const host of [dom, `www.${dom}`, `a.${dom}`]) {
        for (const tail of tails) {
          if (js.test(`${scheme}${host}${tail}`)) {
            legit = { scheme, host, tail };
            break outer;
          }
        }
      }
    }
    if (!legit) continue;
    const { scheme, host, tail } = legit;
    const tries = [
      `${scheme}${host}.${evil}${tail}`,
      `${scheme}${evil}/${host}${tail}`,
      `${scheme}${evil}/?${scheme}${host}${tail}`,
      `${scheme}${host.replace(dom, `attacker${dom}`)}${tail}`,
    ];
    for (const t of tries) if (js.test(t)) return t;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// header hygiene

function checkHeaderHygiene(ctx: Ctx, flow: NginxFlow): void {
  for (const name of ['add_header', 'more_set_headers']) {
    for (const { d } of flow.sinks.get(name) ?? []) {
      const words = name === 'add_header' ? d.args.slice(1, 2) : headerWords(d.args);
      for (const w of words) {
        if (w.value.indexOf('\n') < 0) continue;
        const written = /\r?\n/.test(w.raw);
        add(
          ctx,
          'nginx/add-header-multiline',
          w,
          `This header value ${written ? 'spans several lines' : 'holds a `\\n` escape, which nginx turns into a line feed'}: nginx sends the line break inside the header (obsolete header folding, RFC 7230), which many clients reject or cut off. Keep it on one line.`,
          {
            fixes: written
              ? [{ title: 'Join the lines', safe: true, edits: [replace(w.start, w.end, w.raw.replace(/[ \t]*\r?\n[ \t]*/g, ' '))] }]
              : undefined,
          },
        );
      }
    }
  }
  for (const { d, scope } of flow.sinks.get('add_header') ?? []) {
    const name = d.args[0];
    if (!name || name.value.toLowerCase() !== 'content-type' || !d.args[1]) continue;
    // the backend's type hidden (`proxy_hide_header Content-Type`), or a 204 that has no body nor type
    if (contentTypeHiddenOrEmpty(scope)) continue;
    add(
      ctx,
      'nginx/add-header-content-type',
      name,
      '`add_header Content-Type` adds a second Content-Type header next to the one nginx or the backend already sends. Set the type with `default_type` (or `types`), or `proxy_hide_header` the upstream one.',
      {
        fixes: () => [
          { title: `Use default_type ${d.args[1].value}`, safe: false, edits: [replace(d.start, d.end, `default_type ${d.args[1].raw};`)] },
        ],
      },
    );
  }
}

const HIDE_HEADER = /^(proxy|fastcgi|uwsgi|scgi|grpc)_hide_header$/;

/** Whether the upstream's Content-Type is hidden where `scope` answers, or the block answers `return 204`. */
function contentTypeHiddenOrEmpty(scope: FlowScope): boolean {
  if (scope.children.some((c) => !c.entry && c.name === 'return' && c.args[0]?.value === '204')) return true;
  for (let s: FlowScope | undefined = scope; s; s = s.up)
    if (s.children.some((c) => !c.entry && HIDE_HEADER.test(c.name) && c.args[0]?.value.toLowerCase() === 'content-type')) return true;
  return false;
}

/** The header arguments of `more_set_headers` (the values of `-s` statuses and `-t` types skipped). */
function headerWords(args: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i].value === '-s' || args[i].value === '-t') i++;
    else out.push(args[i]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// access rules

function named(list: readonly Directive[], name: string): Directive[] {
  const out: Directive[] = [];
  for (const d of list) if (!d.entry && d.name === name) out.push(d);
  return out;
}

interface AccessInfo {
  allows: Directive[];
  deny: boolean;
  auth: boolean;
  returns: Directive[] | undefined;
}

/** `return 403;`, `return 444;`, `return 404 "text";`: an answer that serves nothing. */
function isErrorReturn(r: Directive): boolean {
  const code = Number(r.args[0]?.value);
  return Number.isInteger(code) && code >= 400 && code <= 599;
}

function checkAccess(ctx: Ctx, flow: NginxFlow): void {
  for (const name of ['error_log', 'ssl_ciphers', 'proxy_ssl_ciphers', 'grpc_ssl_ciphers'])
    for (const { d } of flow.sinks.get(name) ?? []) judgeLine(ctx, d);
  // the access rules of each block (stream servers included: the stream access module works alike)
  const levels = new Map<FlowScope, AccessInfo>();
  const info = (scope: FlowScope): AccessInfo => {
    let i = levels.get(scope);
    if (!i) levels.set(scope, (i = { allows: [], deny: false, auth: false, returns: undefined }));
    return i;
  };
  for (const { d, scope } of flow.sinks.get('allow') ?? []) info(scope).allows.push(d);
  for (const { scope } of flow.sinks.get('deny') ?? []) info(scope).deny = true;
  for (const name of ['auth_basic', 'auth_request'])
    for (const { d, scope } of flow.sinks.get(name) ?? []) if (d.args[0]?.value !== 'off') info(scope).auth = true;
  for (const { d, scope } of levels.size ? (flow.sinks.get('return') ?? []) : []) {
    const i = levels.get(scope);
    if (i) (i.returns ??= []).push(d);
  }
  const at = (l: AccessInfo): number => (l.allows[0] ?? l.returns?.[0])?.start ?? 0;
  const ordered = [...levels].sort((a, b) => at(a[1]) - at(b[1]));
  for (const [scope, l] of ordered) {
    // allow without deny: everyone not listed is allowed too
    if (l.allows.length && !l.deny && l.allows.some((a) => a.args[0]?.value !== 'all') && !satisfyAny(scope)) {
      const last = l.allows[l.allows.length - 1];
      add(
        ctx,
        'nginx/allow-without-deny',
        last.nameWord,
        '`allow` without `deny`: addresses that match no rule are allowed anyway, so this restricts nothing. End the list with `deny all;`.',
        {
          fixes: () => [
            {
              title: 'Add deny all',
              safe: false,
              edits: [insertLinesAfter(ctx.text, last.end, ['deny all;'], indentAt(ctx.text, last.start))],
            },
          ],
        },
      );
    }
    // return runs in the rewrite phase, before allow/deny and auth are checked (HTTP only: stream's return runs last)
    if (l.returns && (l.allows.length || l.deny || l.auth) && (scope.ctx === 'location' || scope.ctx === 'server')) {
      for (const r of l.returns) {
        // `deny all; return 403;`: an error answer gives nobody more than the access rules would
        if (isErrorReturn(r)) continue;
        add(
          ctx,
          'nginx/return-bypasses-access',
          r.nameWord,
          '`return` answers in the rewrite phase, before the access phase where `allow`/`deny` and authentication run: every client gets this response. Move the access rules to an enclosing block, or the `return` into a nested location.',
        );
      }
    }
  }
  for (const { d, scope } of flow.sinks.get('stub_status') ?? []) {
    let guarded = false;
    for (const s of [scope.children, ...ancestors(scope)]) {
      if (
        named(s, 'allow').length ||
        named(s, 'deny').length ||
        named(s, 'auth_basic').some((a) => a.args[0]?.value !== 'off') ||
        named(s, 'auth_request').length
      ) {
        guarded = true;
        break;
      }
    }
    if (!guarded)
      add(
        ctx,
        'nginx/stub-status-open',
        d.nameWord,
        '`stub_status` without `allow`/`deny` or authentication: anyone can read the connection counters. Restrict it (e.g. `allow 127.0.0.1; deny all;`).',
      );
  }
}

function ancestors(scope: FlowScope): Directive[][] {
  const out: Directive[][] = [];
  for (let s = scope.up; s; s = s.up) out.push(s.children);
  return out;
}

/** Whether the `satisfy` that applies in `scope` (its own, else the nearest enclosing one) is `any`. */
function satisfyAny(scope: FlowScope): boolean {
  for (let s: FlowScope | undefined = scope; s; s = s.up) {
    const sat = named(s.children, 'satisfy');
    if (sat.length) return sat[sat.length - 1].args[0]?.value === 'any';
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// resolver

function checkResolver(ctx: Ctx, flow: NginxFlow): void {
  let dynamic: boolean | undefined;
  for (const { d } of flow.sinks.get('resolver') ?? []) {
    const external = d.args.filter((a) => !a.value.includes('=') && isPublicAddress(a.value));
    if (!external.length) continue;
    // the resolver picks upstream addresses when a *_pass has a variable or an upstream server has `resolve`;
    // for OCSP stapling alone the answer is signed, so a spoofed lookup only makes stapling fail
    dynamic ??=
      PASSES.some((p) => (flow.sinks.get(p) ?? []).some((s) => (s.d.args[0]?.raw ?? '').includes('$'))) || /\bresolve\b/.test(ctx.text);
    add(
      ctx,
      'nginx/resolver-external',
      external[0],
      `\`resolver ${external.map((a) => a.value).join(' ')}\`: nginx's resolver has no DNSSEC and trusts any answer that arrives in time, so a resolver across the internet lets an on-path attacker answer the lookups${dynamic ? ' that choose upstream addresses here' : ''} (nginx before 1.21.0 also had CVE-2021-23017 in it). Use a local resolver (127.0.0.1, or your network's own).`,
      dynamic ? {} : { severity: 'information' },
    );
  }
}

/** A literal IPv4/IPv6 address (optionally with a port) that is not loopback, private or link-local. */
export function isPublicAddress(v: string): boolean {
  let a = v;
  const br = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (br) a = br[1];
  else if (/^[\d.]+:\d+$/.test(a)) a = a.replace(/:\d+$/, '');
  const m4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
  if (m4) {
    const [x, y] = [Number(m4[1]), Number(m4[2])];
    if (x === 127 || x === 10 || x === 0) return false;
    if (x === 172 && y >= 16 && y <= 31) return false;
    if (x === 192 && y === 168) return false;
    if (x === 169 && y === 254) return false;
    if (x === 100 && y >= 64 && y <= 127) return false; // carrier-grade NAT
    return true;
  }
  if (a.includes(':') && /^[0-9a-fA-F:]+$/.test(a)) {
    const l = a.toLowerCase();
    if (l === '::1' || l === '::') return false;
    if (/^f[cd]/.test(l) || /^fe[89ab]/.test(l)) return false;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// ReDoS

function checkRedos(ctx: Ctx, flow: NginxFlow): void {
  const judge = (w: Word, re: ParsedRegex | undefined, where: string): void => {
    if (!re) return;
    const risk = redosRisk(re);
    if (risk)
      add(
        ctx,
        'nginx/regex-redos',
        w,
        `This ${where} regex has ${risk}: on a crafted input PCRE tries exponentially many ways to match, and a worker spends its CPU on one request. Make the repetition unambiguous (e.g. \`[^/]+\` instead of \`.+\` inside a repeated group).`,
      );
  };
  for (const { d } of flow.sinks.get('location') ?? []) {
    if (d.args.length > 1 && (d.args[0].value === '~' || d.args[0].value === '~*'))
      judge(d.args[d.args.length - 1], flow.regexOf(d), 'location');
  }
  for (const { d } of flow.sinks.get('if') ?? []) {
    const p = ifParts(d);
    if (p.pattern && p.op) judge(p.pattern, flow.regexOf(d), '`if`');
  }
  for (const { d } of flow.sinks.get('rewrite') ?? []) if (d.args[0]) judge(d.args[0], flow.regexOf(d), '`rewrite`');
  for (const m of flow.maps.values()) for (const e of m.entries) if (e.regex) judge(e.key, e.regex, '`map`');
}

// ---------------------------------------------------------------------------------------------
// TLS ciphers

/** `error_log off` and weak cipher lists (found by the access walk). */
function judgeLine(ctx: Ctx, d: Directive): void {
  if (d.name === 'error_log') {
    if (d.args[0]?.value !== 'off') return;
    const w = d.args[0];
    add(
      ctx,
      'nginx/error-log-off',
      w,
      '`error_log off` does not turn the log off: nginx writes it to a file named `off` (relative to its prefix). Use `error_log /dev/null crit;` to discard it.',
      {
        fixes: [
          { title: 'Use error_log /dev/null crit', safe: true, edits: [replace(w.start, d.args[d.args.length - 1].end, '/dev/null crit')] },
        ],
      },
    );
    return;
  }
  if (!d.args[0]) return;
  const weak = weakCipherTokens(d.args[0].value);
  if (weak.length)
    add(
      ctx,
      'nginx/ssl-ciphers-weak',
      d.args[0],
      `\`${d.name}\` enables broken ciphers (${weak.join(', ')}): exclude them (\`!aNULL:!MD5:!RC4:!3DES\`), or use a current list such as \`HIGH:!aNULL:!MD5\`.`,
    );
}

// ---------------------------------------------------------------------------------------------
// regex locations for a file extension without `$`

const PASS_NAMES = new Set(PASSES);

/** A block that serves nothing: `deny all` or an error `return`, with no handler, alias, root or try_files. */
function refusesOnly(children: readonly Directive[]): boolean {
  let refuses = false;
  for (const c of children) {
    if (c.entry) continue;
    if ((c.name === 'deny' && c.args[0]?.value === 'all') || (c.name === 'return' && isErrorReturn(c))) refuses = true;
    else if (c.block || c.name === 'root' || c.name === 'alias' || c.name === 'try_files' || c.name === 'rewrite') return false;
  }
  return refuses;
}

function checkUnanchoredExtension(ctx: Ctx, flow: NginxFlow): void {
  for (const { d } of flow.sinks.get('location') ?? []) {
    if (d.args.length < 2 || (d.args[0].value !== '~' && d.args[0].value !== '~*')) continue;
    const w = d.args[d.args.length - 1];
    // `\.php`, `\.(php|phtml)`, `\.php[0-9]?` at the very end, with no `$` after it
    const m = /\\\.(\(\??:?[A-Za-z0-9|]+\)|[A-Za-z0-9]+)(\[[^\]]*\]\??)?$/.exec(w.value);
    if (!m) continue;
    const executes = !!d.block?.children.some((c) => !c.entry && PASS_NAMES.has(c.name));
    // a location that only refuses (`deny all;`, `return 403;`): matching more only refuses more
    if (!executes && d.block && refusesOnly(d.block.children)) continue;
    const ext = m[0].replace(/^\\\./, '.');
    add(
      ctx,
      'nginx/location-regex-unanchored',
      w,
      `\`location ~ ${w.value}\` is not anchored with \`$\`: it also matches \`/upload/x${ext.replace(/[()?:|\[\]]/g, '').split('|')[0]}.jpg\` and \`/x${ext.replace(/[()?:|\[\]]/g, '').split('|')[0]}/y\`${executes ? ', and hands them to the backend it passes to' : ''}. End the pattern with \`$\`.`,
      {
        severity: executes ? 'warning' : 'information',
        fixes: [
          {
            title: 'Anchor the pattern with $',
            safe: false,
            edits: [{ start: w.end - (w.quote === 'none' ? 0 : 1), end: w.end - (w.quote === 'none' ? 0 : 1), newText: '$' }],
          },
        ],
      },
    );
  }
}
