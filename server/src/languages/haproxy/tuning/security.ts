// HAProxy security checks: the stats page and socket open to the network, backends chosen by
// client input, X-Forwarded-For without hygiene, and TLS settings (ciphers, certificate
// verification, DH size). Each pushes Findings against the rows of rules.ts.
import { PROXY_KINDS, TRAFFIC_PROXY_KINDS } from '../overrides';
import type { Fix } from '../../../core/rules';
import type { HaproxyFinding as Finding, HaproxyRuleId } from '../rules';
import type { SampleExpr, Section, Statement, Word } from '../ast';
import { weakCipherTokens } from '../../../core/tls';
import { defaultsOf, find, frontendsOf, insertAfterStatement, modeOf, sectionIndexOf, type HaproxyCheckContext } from './checks';

type Ctx = HaproxyCheckContext;

function add(ctx: Ctx, ruleId: HaproxyRuleId, at: { start: number; end: number }, message: string, extra: Partial<Finding> = {}): void {
  ctx.out.push({ ruleId, start: at.start, end: at.end, message, ...extra });
}

/** What the security checks read of a section, gathered in one pass over its lines. */
interface SectionScan {
  /** http-request / tcp-request lines. */
  requestRules: Statement[];
  /** use_backend / use-server lines. */
  routes: Statement[];
  acls: Map<string, Statement[]>;
  /** bind / server / default-server lines. */
  endpoints: Statement[];
  /** Global keywords the TLS check reads. */
  tlsGlobals: Statement[];
}

const TLS_GLOBALS = ['ssl-default-bind-ciphers', 'ssl-default-server-ciphers', 'tune.ssl.default-dh-param', 'ssl-server-verify'];

/** Two lists of statements in line order. */
function merged(a: readonly Statement[], b: readonly Statement[]): Statement[] {
  if (!b.length) return a as Statement[];
  if (!a.length) return b as Statement[];
  return [...a, ...b].sort((x, y) => x.start - y.start);
}

/**
 * The section's lines the checks read, from the shared by-name index (checks.ts `find`), kept in
 * that index: the same lists while the section object and its `.if` state are the same.
 */
function scan(ctx: Ctx, sec: Section): SectionScan {
  const index = sectionIndexOf(ctx, sec);
  let r = index.scan as SectionScan | undefined;
  if (r) return r;
  const acls = new Map<string, Statement[]>();
  for (const st of find(ctx, sec, 'acl')) {
    if (!st.acl) continue;
    const n = st.acl.name.value;
    const list = acls.get(n);
    if (list) list.push(st);
    else acls.set(n, [st]);
  }
  r = {
    requestRules: merged(find(ctx, sec, 'http-request'), find(ctx, sec, 'tcp-request')),
    routes: merged(find(ctx, sec, 'use_backend'), find(ctx, sec, 'use-server')),
    acls,
    endpoints: merged(merged(find(ctx, sec, 'bind'), find(ctx, sec, 'server')), find(ctx, sec, 'default-server')),
    tlsGlobals: sec.keyword === 'global' ? TLS_GLOBALS.flatMap((k) => find(ctx, sec, k)) : [],
  };
  index.scan = r;
  return r;
}

type SecurityCheck = (ctx: Ctx) => void;

/**
 * The check that emits each security row's findings (rules.ts), in run order (a check's first key
 * places it); the run list is derived. With checks.ts's CHECK_OF it names every tuning row (tsc).
 */
const SECURITY_CHECK_OF = {
  'haproxy/stats-no-auth': checkStats,
  'haproxy/stats-socket-exposed': checkStatsSocket,
  'haproxy/client-chosen-backend': checkClientChosenBackend,
  'haproxy/forwardfor-no-hygiene': checkForwardFor,
  'haproxy/ssl-weak-ciphers': checkTls,
  'haproxy/weak-dh-param': checkTls,
  'haproxy/server-ssl-verify-none': checkTls,
} satisfies Partial<Record<HaproxyRuleId, SecurityCheck>>;

/** The rows the security checks emit. */
export type HaproxySecurityRuleId = keyof typeof SECURITY_CHECK_OF;
const SECURITY_CHECKS: readonly SecurityCheck[] = [...new Set<SecurityCheck>(Object.values(SECURITY_CHECK_OF))];

export function runHaproxySecurityChecks(ctx: Ctx): void {
  for (let i = 0; i < SECURITY_CHECKS.length; i++) SECURITY_CHECKS[i](ctx);
}

/** The section's live `stats <sub>` lines, then its defaults' (stats settings are inherited). */
function statsLines(ctx: Ctx, sec: Section, sub: string): Statement[] {
  const own = find(ctx, sec, 'stats').filter((s) => s.sub?.value === sub);
  if (own.length || sec.keyword === 'defaults') return own;
  const def = defaultsOf(ctx, sec);
  return def ? find(ctx, def, 'stats').filter((s) => s.sub?.value === sub) : [];
}

/** Whether a listening address is on this host only (loopback, a UNIX socket, an inherited fd). */
export function isLocalAddress(addr: string): boolean {
  const a = addr.trim();
  if (a === '') return false;
  if (/^(unix@|abns@|fd@|sockpair@|\/|\.\/)/.test(a)) return true;
  const m = /^(?:ipv4@|ipv6@|tcp@|tcp4@|tcp6@|udp@|quic4@|quic6@)?(.*)$/.exec(a)!;
  let host = m[1];
  const br = /^\[([^\]]*)\]/.exec(host);
  if (br) host = br[1];
  else {
    const i = host.lastIndexOf(':');
    // IPv6 without brackets: HAProxy takes the part after the last colon as the port
    if (i >= 0) host = host.slice(0, i);
  }
  if (host === '' || host === '*' || host === '0.0.0.0' || host === '::') return false;
  return /^127\./.test(host) || host === '::1' || host === 'localhost' || host.startsWith('${');
}

function bindsOf(ctx: Ctx, sec: Section): Statement[] {
  const own = find(ctx, sec, 'bind');
  if (own.length || sec.keyword !== 'backend') return [...own];
  return frontendsOf(ctx, sec).flatMap((f) => [...find(ctx, f, 'bind')]);
}

const exposedBind = (b: Statement): Word | undefined => {
  const w = b.args[0];
  if (!w) return undefined;
  return w.value.split(',').some((p) => !isLocalAddress(p)) ? w : undefined;
};

/** Access limits that guard a proxy: any conditional deny / reject / auth rule. */
function restricted(ctx: Ctx, secs: Section[]): boolean {
  for (const s of secs) {
    for (const st of scan(ctx, s).requestRules) {
      const sub = st.sub?.value ?? '';
      if (/^(deny|reject|auth|tarpit|silent-drop)$/.test(sub)) return true;
      if (
        (sub === 'connection' || sub === 'content' || sub === 'session') &&
        st.args.some((a) => a.value === 'reject' || a.value === 'silent-drop')
      )
        return true;
    }
    for (const st of find(ctx, s, 'stats')) if (st.sub?.value === 'auth' || st.sub?.value === 'http-request') return true;
  }
  return false;
}

function checkStats(ctx: Ctx): void {
  const reported = new Set<Statement>();
  for (const sec of ctx.file.sections) {
    if (!TRAFFIC_PROXY_KINDS.has(sec.keyword)) continue;
    if (!find(ctx, sec, 'stats').length) {
      const def = defaultsOf(ctx, sec);
      if (!def || !find(ctx, def, 'stats').length) continue;
    }
    const on = [...statsLines(ctx, sec, 'enable'), ...statsLines(ctx, sec, 'uri')].sort((a, b) => a.start - b.start);
    if (!on.length || modeOf(ctx, sec) !== 'http') continue;
    if (statsLines(ctx, sec, 'auth').length || statsLines(ctx, sec, 'http-request').length) continue;
    const scope = [
      sec,
      ...(defaultsOf(ctx, sec) ? [defaultsOf(ctx, sec)!] : []),
      ...(sec.keyword === 'backend' ? frontendsOf(ctx, sec) : []),
    ];
    if (restricted(ctx, scope)) continue;
    const exposed = bindsOf(ctx, sec)
      .map(exposedBind)
      .find((w) => w);
    if (!exposed) continue;
    const st = on[0];
    if (reported.has(st)) continue;
    reported.add(st);
    const admin = statsLines(ctx, sec, 'admin')[0];
    add(
      ctx,
      'haproxy/stats-no-auth',
      st.sub ?? st.keyword!,
      `The stats page of ${sec.keyword} ${sec.name?.value ?? ''} is served on ${exposed.value} without \`stats auth\` or an access rule: anyone who reaches the port sees every backend and server${admin ? ', and `stats admin` lets them disable servers' : ''}. Add \`stats auth\`, bind it to 127.0.0.1, or restrict it with \`http-request deny unless { src ... }\`.`,
      admin ? {} : {},
    );
  }
}

function checkStatsSocket(ctx: Ctx): void {
  for (const sec of ctx.file.sections) {
    if (sec.keyword !== 'global') continue;
    for (const st of find(ctx, sec, 'stats')) {
      if (st.sub?.value !== 'socket') continue;
      const w = st.args[1];
      if (!w || isLocalAddress(w.value) || !/(^(ipv4@|ipv6@|tcp@|tcp4@|tcp6@))|:\d+$|^:/.test(w.value)) continue;
      const level = st.args.findIndex((a) => a.value === 'level');
      const lv = level >= 0 ? st.args[level + 1]?.value : 'admin';
      add(
        ctx,
        'haproxy/stats-socket-exposed',
        w,
        `The runtime API listens on ${w.value}, a network address, at level ${lv}: it has no authentication, so anyone who reaches the port can ${lv === 'user' ? 'read the stats and tables' : 'disable servers, change weights and maps, or read the tables'}. Use a UNIX socket (\`stats socket /run/haproxy/admin.sock mode 600 level admin\`) or 127.0.0.1.`,
        lv === 'user' ? { severity: 'information' } : {},
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// client input that chooses the backend

const CLIENT_FETCH =
  /^(req\.)?(f?hdr|hdr_val|hdr_ip|hdr_cnt|cook|cook_val|cook_cnt|body|body_param|body_len)$|^(url|url_param|urlp|urlp_val|path|pathq|query|base|base32|url32|capture\.req\.(hdr|uri|method|ver)|req\.ver|req\.uri|http_auth_user)$/;

function fromClient(s: SampleExpr, clientVars: Set<string>): boolean {
  if (s.converters.some((c) => c.name.startsWith('map'))) return false; // constrained to the map's values
  if (s.fetch === 'var') return clientVars.has((s.args[0] ?? '').trim());
  return CLIENT_FETCH.test(s.fetch);
}

const HDR_FETCH = /^(req\.)?(f?hdr)(_[a-z]+)?$/;

function checkClientChosenBackend(ctx: Ctx): void {
  // variables set from client input (http-request set-var(txn.x) <expr>)
  const clientVars = new Set<string>();
  for (const sec of ctx.file.sections) {
    for (const st of scan(ctx, sec).requestRules) {
      const setVar = st.args.find((a) => /^set-var(-fmt)?\(/.test(a.value));
      if (!setVar) continue;
      const name = /^set-var(?:-fmt)?\(([^),]+)/.exec(setVar.value)?.[1];
      const samples = st.samples.filter((s) => s.start >= setVar.end && (!st.condition || s.end <= st.condition.start));
      if (name && samples.some((s) => fromClient(s, clientVars))) clientVars.add(name.trim());
    }
  }
  for (const sec of ctx.file.sections) {
    if (!TRAFFIC_PROXY_KINDS.has(sec.keyword)) continue;
    const sc = scan(ctx, sec);
    if (!sc.routes.length) continue;
    // headers this section sets from client input (usually none: then routing needs no closer look)
    const copied = new Map<string, { st: Statement; header: Word; client: SampleExpr }>();
    for (const st of sc.requestRules) {
      if (st.keyword!.value !== 'http-request') continue;
      const sub = st.sub?.value;
      if (sub !== 'set-header' && sub !== 'add-header') continue;
      const header = st.args[1];
      const value = st.args[2];
      if (!header || !value || value.value.indexOf('%[') < 0) continue;
      const client = st.samples.find((s) => s.start >= value.start && s.end <= value.end && fromClient(s, clientVars));
      if (client && !copied.has(header.value.toLowerCase())) copied.set(header.value.toLowerCase(), { st, header, client });
    }
    const reported = new Set<string>();
    for (const st of sc.routes) {
      const k = st.keyword!.value;
      const target = st.args[0];
      if (target && target.value.includes('%[')) {
        const dynamic = st.samples.filter((s) => s.start >= target.start && s.end <= target.end);
        const client = dynamic.find((s) => fromClient(s, clientVars));
        if (client) {
          add(
            ctx,
            'haproxy/client-chosen-backend',
            target,
            `${k} takes the ${k === 'use_backend' ? 'backend' : 'server'} name from client input (\`${ctx.text.slice(client.start, client.end)}\`): a client can route itself to any ${k === 'use_backend' ? 'backend of this file, internal ones included' : 'server'}. Look the value up in a map (\`,map(/etc/haproxy/hosts.map,default_backend)\`) so only listed names are reachable.`,
          );
        }
        if (copied.size) for (const s of dynamic) noteRead(s, st);
      }
      if (!copied.size) continue;
      for (const t of st.condition?.terms ?? []) {
        if (t.kind === 'anonymous' && t.sample) noteRead(t.sample, st);
        if (t.kind === 'acl' && t.name) for (const a of sc.acls.get(t.name) ?? []) if (a.acl?.sample) noteRead(a.acl.sample, st);
      }
    }
    function noteRead(s: SampleExpr, rule: Statement): void {
      if (!HDR_FETCH.test(s.fetch) || !s.args[0]) return;
      const h = s.args[0].toLowerCase();
      const c = copied.get(h);
      if (!c || reported.has(h)) return;
      reported.add(h);
      add(
        ctx,
        'haproxy/client-chosen-backend',
        c.header,
        `This copies client input (\`${ctx.text.slice(c.client.start, c.client.end)}\`) into ${c.header.value}, which chooses the backend (line ${rule.line + 1}): the client picks where its request goes. Derive the header from a map or a fixed value, or route on something the client cannot set.`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// X-Forwarded-For

function checkForwardFor(ctx: Ctx): void {
  let hygiene: boolean | undefined;
  for (const sec of ctx.file.sections) {
    if (!PROXY_KINDS.has(sec.keyword)) continue;
    for (const st of find(ctx, sec, 'option forwardfor')) {
      if (st.prefix?.value === 'no') continue;
      if (modeOf(ctx, sec) !== 'http' && sec.keyword !== 'defaults') continue;
      const headerIdx = st.args.findIndex((a) => a.value === 'header');
      const header = (headerIdx >= 0 ? st.args[headerIdx + 1]?.value : undefined) ?? 'X-Forwarded-For';
      hygiene ??= ctx.file.sections.some((s) =>
        scan(ctx, s).requestRules.some(
          (x) =>
            x.keyword!.value === 'http-request' &&
            (x.sub?.value === 'del-header' || x.sub?.value === 'set-header') &&
            x.args[1]?.value.toLowerCase() === header.toLowerCase(),
        ),
      );
      if (hygiene) continue;
      const ifNone = st.args.find((a) => a.value === 'if-none');
      const fixes: Fix[] =
        sec.keyword === 'defaults'
          ? []
          : [
              {
                title: `Add http-request del-header ${header}`,
                safe: false,
                edits: [insertAfterStatement(ctx, st, [`http-request del-header ${header}`])],
              },
            ];
      if (ifNone) {
        add(
          ctx,
          'haproxy/forwardfor-no-hygiene',
          ifNone,
          `\`option forwardfor if-none\` passes the ${header} a client sent unchanged and adds nothing then: the backend logs and trusts whatever address the client claims. Delete the client's header first (\`http-request del-header ${header}\`), or drop if-none.`,
          { fixes },
        );
      } else {
        add(
          ctx,
          'haproxy/forwardfor-no-hygiene',
          st.sub ?? st.keyword!,
          `\`option forwardfor\` appends the client address, but the ${header} a client sent itself stays in front of it: a backend that reads the first address trusts what the client claims. Delete the incoming header (\`http-request del-header ${header}\`) unless a trusted proxy sits in front.`,
          { severity: 'information', fixes },
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TLS

/**
 * The TLS findings of each section, kept in its index (the same section object with the same
 * `.if` state: its lines are the same, only moved): a section the edit did not touch is not
 * scanned again, its findings are moved by as much as its header moved.
 */
function checkTls(ctx: Ctx): void {
  for (const sec of ctx.file.sections) {
    if (sec.keyword !== 'global' && !PROXY_KINDS.has(sec.keyword)) continue;
    const index = sectionIndexOf(ctx, sec);
    const kept = index.tls as { at: number; list: Finding[] } | undefined;
    const at = sec.headerStart;
    if (kept) {
      const d = at - kept.at;
      if (d !== 0) {
        kept.list = kept.list.map((f) => ({ ...f, start: f.start + d, end: f.end + d }));
        kept.at = at;
      }
      for (const f of kept.list) ctx.out.push(f);
      continue;
    }
    const saved = ctx.out;
    ctx.out = [];
    try {
      sectionTls(ctx, sec);
      index.tls = { at, list: ctx.out };
    } finally {
      const list = ctx.out;
      ctx.out = saved;
      for (const f of list) saved.push(f);
    }
  }
}

/** The TLS findings of one section: `global`'s TLS settings, a proxy's bind and server lines. */
function sectionTls(ctx: Ctx, sec: Section): void {
  {
    if (sec.keyword === 'global') {
      for (const st of scan(ctx, sec).tlsGlobals) {
        const k = st.keyword!.value;
        if ((k === 'ssl-default-bind-ciphers' || k === 'ssl-default-server-ciphers') && st.args[0]) {
          const weak = weakCipherTokens(st.args[0].value);
          if (weak.length)
            add(
              ctx,
              'haproxy/ssl-weak-ciphers',
              st.args[0],
              `\`${k}\` enables broken ciphers (${weak.join(', ')}): exclude them or use a current list (for example the Mozilla "intermediate" one).`,
            );
        }
        if (k === 'tune.ssl.default-dh-param') {
          const n = Number(st.args[0]?.value);
          if (Number.isFinite(n) && n < 2048)
            add(
              ctx,
              'haproxy/weak-dh-param',
              st.args[0],
              `Diffie-Hellman parameters of ${n} bits can be broken (Logjam): use 2048 or more.`,
            );
        }
        if (k === 'ssl-server-verify' && st.args[0]?.value === 'none') {
          add(
            ctx,
            'haproxy/server-ssl-verify-none',
            st.args[0],
            '`ssl-server-verify none` turns off certificate checks for every TLS server connection: anyone on the path can impersonate the backends. Verify against a CA (`ca-file`).',
          );
        }
      }
      return;
    }
    for (const st of scan(ctx, sec).endpoints) {
      const k = st.keyword!.value;
      let ci = -1;
      let vi = -1;
      const args = st.args;
      for (let i = 0; i < args.length; i++) {
        const v = args[i].value;
        if (v === 'ciphers') ci = i;
        else if (v === 'verify') vi = i;
      }
      if (ci < 0 && vi < 0) continue;
      if (ci >= 0 && st.args[ci + 1]) {
        const weak = weakCipherTokens(st.args[ci + 1].value);
        if (weak.length)
          add(
            ctx,
            'haproxy/ssl-weak-ciphers',
            st.args[ci + 1],
            `These \`ciphers\` enable broken ciphers (${weak.join(', ')}): exclude them or use a current list.`,
          );
      }
      if (k === 'server' && vi >= 0) {
        const v = vi;
        const addr = st.args[1]?.value ?? '';
        if (v >= 0 && st.args[v + 1]?.value === 'none' && st.args.some((a) => a.value === 'ssl') && !isLocalAddress(addr)) {
          add(
            ctx,
            'haproxy/server-ssl-verify-none',
            st.args[v + 1],
            `TLS to ${addr} without certificate verification: anyone on the path can impersonate this server. Use \`verify required ca-file ...\`${/^\d|^\[/.test(addr) ? '' : ' (and `verifyhost`)'}.`,
          );
        }
      }
    }
  }
}
