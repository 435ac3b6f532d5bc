// Rule tiers, like clippy's lint groups and ruff's rule selection. The default set holds only
// the rules whose warning and information findings were right and worth acting on at least 90%
// of the time on the precision corpus (test/precision, `npm run precision`), and the errors; the
// rules below are opt-in groups, chosen with `select` / `extendSelect` / `ignore` (the editor's
// `proxyTuner.lint.*`, `.proxy-tuner.json`'s `lint`, the command line's `--select`,
// `--extend-select`, `--ignore`). A key `RULE@warning` puts only the findings a rule reports at
// that severity in the group (an unknown variable in a fragment, which the including file may
// define, is a warning; in a whole configuration it stays an error of the default set).
import type { ServiceSettings } from './types';

export type RuleTier = 'default' | 'performance-deep' | 'hardening' | 'pedantic';
export const OPT_IN_TIERS: readonly RuleTier[] = ['performance-deep', 'hardening', 'pedantic'];

/** What each opt-in group holds. */
export const TIER_TITLES: Record<RuleTier, string> = {
  default: 'on unless ignored: right and worth acting on in at least 90% of the measured findings, or errors',
  'performance-deep': 'tuning that pays off only under load the typical deployment does not see',
  hardening: 'security advice that is right in some setups and noise or wrong in the common one',
  pedantic: 'facts and style: true, rarely worth a change',
};

/** The opt-in rules (measured on the precision corpus: useful judgements / judged findings). */
export const RULE_TIERS: Readonly<Record<string, RuleTier>> = {
  'nginx/unknown-variable@warning': 'pedantic', // 1/26 useful: fragments naming what the includer defines
  'nginx/third-party-directive': 'pedantic', // 0/4 useful
  'nginx/worker-processes-not-auto': 'performance-deep', // 2/12 useful
  'nginx/worker-connections-low': 'performance-deep', // no finding on the corpus
  'nginx/worker-rlimit-nofile': 'performance-deep', // 0/14 useful
  'nginx/upstream-keepalive': 'performance-deep', // 0/2 useful
  'nginx/upstream-keepalive-headers': 'performance-deep', // no finding on the corpus
  'nginx/proxy-pass-no-upstream': 'performance-deep', // 0/26 useful
  'nginx/keepalive-requests-low': 'performance-deep', // no finding on the corpus
  'nginx/access-log-unbuffered': 'performance-deep', // 0/16 useful
  'nginx/sendfile-off': 'performance-deep', // 0/3 useful
  'nginx/gzip-min-length': 'performance-deep', // 0/4 useful
  'nginx/proxy-buffering-off': 'performance-deep', // 0/1 useful
  'nginx/listen-backlog-somaxconn': 'performance-deep', // no finding on the corpus
  'nginx/ssl-session-cache': 'performance-deep', // no finding on the corpus
  'nginx/ssl-protocols-old': 'hardening', // 2/20 useful
  'nginx/http2-missing': 'performance-deep', // 0/9 useful
  'nginx/alias-traversal': 'hardening', // no finding on the corpus
  'nginx/add-header-inheritance': 'pedantic', // 9/11 useful
  'nginx/proxy-set-header-inheritance': 'pedantic', // no finding on the corpus
  'nginx/host-in-redirect': 'hardening', // 0/6 useful
  'nginx/server-tokens-on': 'hardening', // no finding on the corpus
  'nginx/if-in-location': 'pedantic', // 0/4 useful
  'nginx/ssrf-proxy-pass': 'hardening', // no finding on the corpus
  'nginx/host-spoofing': 'hardening', // 0/17 useful
  'nginx/origin-regex': 'hardening', // no finding on the corpus
  'nginx/valid-referers-none': 'hardening', // 0/1 useful
  'nginx/add-header-multiline': 'pedantic', // no finding on the corpus
  'nginx/add-header-content-type': 'pedantic', // 0/2 useful
  'nginx/allow-without-deny': 'hardening', // no finding on the corpus
  'nginx/return-bypasses-access': 'hardening', // 0/5 useful
  'nginx/stub-status-open': 'hardening', // 0/1 useful
  'nginx/resolver-external': 'hardening', // 0/1 useful
  'nginx/regex-redos': 'hardening', // no finding on the corpus
  'nginx/ssl-ciphers-weak': 'hardening', // no finding on the corpus
  'nginx/version-end-of-life': 'pedantic', // 0/15 useful
  'nginx/include-not-found': 'pedantic', // 0/54 useful
  'haproxy/missing-timeout': 'pedantic', // 8/9 useful
  'haproxy/no-bind': 'pedantic', // no finding on the corpus
  'haproxy/http-option-in-tcp': 'pedantic', // 2/4 useful
  'haproxy/log-format': 'pedantic', // no finding on the corpus
  'haproxy/ignored-here': 'pedantic', // 0/12 useful
  'haproxy/global-maxconn': 'performance-deep', // 0/15 useful
  'haproxy/nbproc': 'pedantic', // no finding on the corpus
  'haproxy/nbthread-above-cores': 'performance-deep', // no finding on the corpus
  'haproxy/option-httpclose': 'performance-deep', // 9/21 useful
  'haproxy/http-reuse': 'performance-deep', // 0/30 useful
  'haproxy/server-no-check': 'pedantic', // 8/9 useful
  'haproxy/balance-long-lived': 'performance-deep', // 0/19 useful
  'haproxy/bufsize-without-maxrewrite': 'performance-deep', // no finding on the corpus
  'haproxy/ssl-old-protocols': 'hardening', // no finding on the corpus
  'haproxy/client-chosen-backend': 'hardening', // 0/2 useful
  'haproxy/forwardfor-no-hygiene': 'hardening', // 0/34 useful
  'haproxy/server-ssl-verify-none': 'hardening', // 0/15 useful
  'haproxy/weak-dh-param': 'hardening', // no finding on the corpus
  'haproxy/version-end-of-life': 'pedantic', // no finding on the corpus
};

/**
 * Warning and information rules kept in the default set without a measurement, because they are
 * not advice about the config: what the analysis itself did (a document too large for the full
 * analysis or the diagnostics cap, the include limit, a suppression comment without its reason) or what the binary
 * itself says (a deprecation `nginx -t` / `haproxy -c` warns about, a module the local `nginx -V`
 * lacks). They had no finding on the precision corpus.
 */
export const NOTICE_RULES: ReadonlySet<string> = new Set([
  'nginx/include-limit',
  'nginx/large-document',
  'haproxy/large-document',
  'nginx/diagnostics-capped',
  'haproxy/diagnostics-capped',
  'nginx/suppression-without-reason',
  'haproxy/suppression-without-reason',
  'nginx/module-not-in-binary',
  'nginx/deprecated',
  'haproxy/deprecated',
]);

/** The tier of a rule, or of its findings at `severity` when the rule has a tier for those. */
export function tierOf(id: string, severity?: string): RuleTier {
  return (severity !== undefined ? RULE_TIERS[`${id}@${severity}`] : undefined) ?? RULE_TIERS[id] ?? 'default';
}

/** Whether a selector (`all`, `default`, a group, a language `nginx`/`haproxy`, a rule id) covers the rule. */
function covers(selector: string, id: string, tier: RuleTier): boolean {
  const s = selector.trim();
  return s === 'all' || s === id || s === tier || id.startsWith(`${s}/`);
}

/**
 * Whether a rule (or its findings at `severity`) is selected: `select` plus `extendSelect`, minus
 * `ignore`. A severity set for the rule in `rules` selects it too. Settings without `lint` (the
 * service called as a library) select every rule; the user's settings (service/settings.ts
 * `resolveSettings`: the editor, the command line) select `["default"]` unless told otherwise.
 */
export function isSelected(id: string, settings: ServiceSettings, severity?: string): boolean {
  const lint = settings.lint;
  if (!lint) return true;
  const tier = tierOf(id, severity);
  const configured = settings.rules?.[id];
  if (configured && configured !== 'off') return true;
  if ((lint?.ignore ?? []).some((s) => covers(s, id, tier))) return false;
  const select = lint?.select ?? ['default'];
  return select.some((s) => covers(s, id, tier)) || (lint?.extendSelect ?? []).some((s) => covers(s, id, tier));
}
