// Every diagnostic code HAProxy files get, as rows of one registry: validation (what
// `haproxy -c` says), the tuning and safety rows (tuning/rules.ts), the workspace's names across
// files, the real `haproxy -c` run on a sandboxed copy, and the engine's own. Pure data: the
// checks emit `HaproxyRuleId`s, so an id without a row here does not compile.
import { RuleRegistry, engineRules, largeDocumentRules, type Finding, type RuleMeta } from '../../core/rules';
import { HAPROXY_TUNING_RULES } from './tuning/rules';

const DOC = 'https://docs.haproxy.org/dev/configuration.html';

const rule = <const N extends string>(
  id: N,
  category: RuleMeta['category'],
  severity: RuleMeta['severity'],
  title: string,
  why: string,
  anchor: string,
  fix?: string,
): RuleMeta<`haproxy/${N}`> => ({
  id: `haproxy/${id}`,
  language: 'haproxy',
  category,
  severity,
  title,
  why,
  docUrl: `${DOC}#${anchor}`,
  ...(fix ? { fix } : {}),
});

/** The validation rows: what `haproxy -c` refuses or warns about. */
export const HAPROXY_RULES = [
  rule(
    'syntax',
    'syntax',
    'error',
    'Malformed line: unmatched quote, broken condition or sample expression.',
    'HAProxy refuses to start on a line it cannot split into words or whose condition it cannot read.',
    '2.2',
  ),
  rule(
    'unknown-keyword',
    'correctness',
    'error',
    'Keyword HAProxy does not know.',
    'An unknown keyword makes `haproxy -c` fail; it is usually a typo or a keyword from another product.',
    '4.1',
    'Replace with the closest known keyword',
  ),
  rule(
    'not-allowed-here',
    'correctness',
    'error',
    'Keyword used in a section that does not accept it.',
    'Keywords belong to section kinds (see the keyword matrix); in `defaults` a misplaced keyword is an error, in a frontend or backend it is ignored with a warning.',
    '4.1',
  ),
  rule(
    'removed-keyword',
    'compatibility',
    'error',
    'Keyword removed in the target HAProxy version.',
    'Removed keywords make the configuration fail to load after an upgrade.',
    '4.1',
    'Use the replacement',
  ),
  rule(
    'needs-newer-version',
    'compatibility',
    'error',
    'Keyword, option or fetch newer than the target HAProxy version.',
    'The target version does not know it yet and will refuse the configuration.',
    '4.1',
  ),
  rule(
    'deprecated',
    'compatibility',
    'warning',
    'Deprecated keyword.',
    'Deprecated keywords still work but will go away; HAProxy warns about them.',
    '4.1',
  ),
  rule(
    'arg',
    'correctness',
    'error',
    'Missing, extra or invalid argument.',
    "HAProxy checks the number and form of each keyword's arguments.",
    '4.2',
  ),
  rule(
    'address',
    'correctness',
    'error',
    'Malformed listening or server address.',
    'HAProxy refuses a `bind` without a port, a port outside 1-65535, a reversed port range, a port range or offset where it is not allowed, an address of the wrong family for its `ipv4@`/`ipv6@` prefix, a datagram (`udp@`) address on a stream proxy, and a non-numeric `fd@`.',
    '11',
  ),
  rule(
    'invalid-time',
    'correctness',
    'error',
    'Invalid time value.',
    'Times are a number with an optional unit: us, ms (default), s, m, h, d.',
    '2.5',
  ),
  rule(
    'invalid-size',
    'correctness',
    'error',
    'Invalid size or number.',
    'Sizes are a number with an optional k, m or g suffix; counts are plain integers.',
    '2.5',
  ),
  rule(
    'unknown-fetch',
    'correctness',
    'error',
    'Unknown sample fetch or converter.',
    'An unknown fetch or converter makes the rule, and the configuration, fail to load.',
    '7.3',
  ),
  rule(
    'unknown-reference',
    'correctness',
    'error',
    'Reference to a section, server or table that does not exist.',
    'HAProxy resolves names of resolvers, caches, userlists, peers, mailers, servers and stick tables at start-up and refuses to start when one is missing.',
    '4.2',
  ),
  rule(
    'unknown-backend',
    'correctness',
    'error',
    '`use_backend`/`default_backend` names a backend that does not exist.',
    'HAProxy fails at start-up when a switching rule names a missing backend.',
    '4.2-use_backend',
  ),
  rule(
    'undeclared-acl',
    'correctness',
    'error',
    'Condition uses an ACL that is not declared (before it) in this section.',
    'ACLs are looked up when the rule is read: they must be declared earlier in the same section, or be predefined.',
    '7.2',
  ),
  rule(
    'duplicate-proxy',
    'correctness',
    'error',
    'Two proxies or sections of the same kind share a name.',
    'Names must be unique per capability: HAProxy rejects the second declaration.',
    '4',
  ),
  rule(
    'duplicate-server',
    'correctness',
    'error',
    'Two servers of one backend share a name.',
    'Every version of HAProxy refuses a second `server` line with a name already used in the same proxy ("please use distinct names").',
    '5.2',
  ),
  rule(
    'mode-mismatch',
    'correctness',
    'error',
    'An HTTP frontend switches to a TCP backend.',
    'HAProxy refuses to route from an `http` frontend to a `tcp` backend.',
    '4.2-mode',
  ),
  rule(
    'missing-timeout',
    'correctness',
    'warning',
    'Proxy without `timeout connect`, `timeout client` or `timeout server`.',
    'Without these timeouts stuck connections pile up forever; HAProxy warns at start-up.',
    '4.2-timeout%20client',
    'Add the missing timeouts',
  ),
  rule(
    'defaults-rules',
    'correctness',
    'error',
    'Proxy inherits from a `defaults` section whose rules it cannot inherit.',
    'Only frontends and backends may inherit TCP/HTTP rules from a named defaults section, and backends not connection/session rules.',
    '4',
  ),
  rule(
    'no-bind',
    'correctness',
    'warning',
    'Frontend without a `bind` line.',
    'A frontend that listens nowhere receives no traffic; HAProxy warns and suggests a backend.',
    '4.2-bind',
  ),
  rule(
    'http-option-in-tcp',
    'correctness',
    'warning',
    'HTTP-only keyword or option in a proxy that runs in tcp mode.',
    'HTTP rules, log formats, header options, cookies and the stats page need `mode http` (tcp is the default); HAProxy ignores them with a warning or falls back to the TCP variant.',
    '4.2-mode',
  ),
  rule(
    'log-format',
    'correctness',
    'warning',
    'Unknown `%` alias in a log-format string.',
    'Log-format strings accept a fixed set of `%` aliases (and `%[...]` samples); an unknown one is rejected or printed literally.',
    '8.2.6',
  ),
  rule(
    'ignored-here',
    'correctness',
    'warning',
    'Keyword ignored because the proxy lacks the needed capability.',
    'A frontend-only keyword in a backend (or the reverse) is ignored; HAProxy warns.',
    '4.1',
  ),
];

/** Names used across the files of a configuration (service/workspaceIndex.ts). */
export const HAPROXY_NAVIGATION_RULES = [
  {
    id: 'haproxy/unused-definition',
    language: 'haproxy',
    category: 'correctness',
    severity: 'hint',
    title: 'A definition nothing uses',
    why: 'A backend, ACL, userlist, resolvers, peers, mailers or cache section nothing refers to is dead weight, or a sign of a typo in its user.',
    docUrl: 'https://docs.haproxy.org/2.6/configuration.html',
  },
] as const satisfies readonly RuleMeta[];

/** A real `haproxy -c` run on a sandboxed copy (service/binaryCheck.ts). */
export const HAPROXY_HOST_RULES = [
  {
    id: 'haproxy/binary-check',
    language: 'haproxy',
    category: 'correctness',
    severity: 'error',
    title: 'A message of `haproxy -c` run on a sandboxed copy of the saved file',
    why: 'The "Validate with haproxy -c" command runs the real binary on a copy of the configuration (its paths moved into a temporary folder, on loopback only) and shows each of its messages on the line it names: an `[ALERT]` is an error, a `[WARNING]` a warning, a `[NOTICE]` information. The severity shown is the binary\'s; a severity setting for this rule replaces it.',
    docUrl: 'https://docs.haproxy.org/dev/management.html',
  },
] as const satisfies readonly RuleMeta[];

/** The rows by where their findings come from, for docs/rules.md. */
export const HAPROXY_RULE_GROUPS: readonly { title: string; rows: readonly RuleMeta[] }[] = [
  { title: 'validation (what `haproxy -c` checks)', rows: HAPROXY_RULES },
  { title: 'tuning and safety', rows: HAPROXY_TUNING_RULES },
  { title: 'names across files', rows: HAPROXY_NAVIGATION_RULES },
  { title: 'the local binary (`haproxy -c`)', rows: HAPROXY_HOST_RULES },
  { title: 'the engine (suppression comments, very large documents)', rows: [...engineRules('haproxy'), ...largeDocumentRules('haproxy')] },
];

/** Every HAProxy row, each id once. */
export const HAPROXY_REGISTRY_ROWS = [
  ...HAPROXY_RULES,
  ...HAPROXY_TUNING_RULES,
  ...engineRules('haproxy'),
  ...largeDocumentRules('haproxy'),
  ...HAPROXY_NAVIGATION_RULES,
  ...HAPROXY_HOST_RULES,
];

/** Every code a HAProxy diagnostic may carry. */
export type HaproxyRuleId = (typeof HAPROXY_REGISTRY_ROWS)[number]['id'];
/** An id without its `haproxy/` prefix (what the validator's `add` takes). */
export type HaproxyRuleName = WithoutPrefix<HaproxyRuleId>;
type WithoutPrefix<T> = T extends `haproxy/${infer N}` ? N : never;
/** A finding of a HAProxy check: its id must be a row of this registry. */
export type HaproxyFinding = Finding<HaproxyRuleId>;

export const haproxyRegistry = new RuleRegistry<HaproxyRuleId>(HAPROXY_REGISTRY_ROWS);
