// Every diagnostic code nginx files get, as rows of one registry: validation (what `nginx -t`
// says), the tuning and safety rows (tuning/rules.ts), the workspace's names across files, the
// local binary's facts (`nginx -V` modules), the real `nginx -t` run on a sandboxed copy, and
// the engine's own. Pure data: the checks live next to the parser, the service and the host
// adapters, and emit `NginxRuleId`s, so an id without a row here does not compile.
import { RuleRegistry, engineRules, largeDocumentRules, type Finding, type RuleMeta } from '../../core/rules';
import { NGINX_TUNING_RULES } from './tuning/rules';

const DOC = 'https://nginx.org/en/docs/';
const rule = <const N extends string>(
  id: N,
  category: RuleMeta['category'],
  severity: RuleMeta['severity'],
  title: string,
  why: string,
  docUrl = DOC,
): RuleMeta<`nginx/${N}`> => ({
  id: `nginx/${id}`,
  language: 'nginx',
  category,
  severity,
  title,
  why,
  docUrl,
});

/** The validation rows: what `nginx -t` refuses or warns about. */
export const NGINX_RULES = [
  rule(
    'syntax',
    'syntax',
    'error',
    'Syntax error',
    'nginx refuses to start when its reader cannot split the file into directives and blocks.',
    'https://nginx.org/en/docs/beginners_guide.html#conf_structure',
  ),
  rule(
    'unknown-directive',
    'correctness',
    'error',
    'Unknown directive',
    'nginx stops at a directive no loaded module defines; usually a typo.',
  ),
  rule(
    'not-allowed-here',
    'correctness',
    'error',
    'Directive not allowed in this context',
    'Each directive is accepted only in some blocks (http, server, location, stream...); elsewhere nginx refuses the config.',
  ),
  rule(
    'arg-count',
    'correctness',
    'error',
    'Wrong number of arguments',
    'nginx checks the number of arguments of every directive when it reads the config.',
  ),
  rule(
    'invalid-value',
    'correctness',
    'error',
    'Invalid value',
    'Flags, enumerations, sizes and times have fixed forms; nginx rejects anything else.',
  ),
  rule(
    'duplicate',
    'correctness',
    'error',
    'Duplicate directive',
    'Single-valued directives may appear once per block, and locations, upstreams and maps must have distinct names.',
  ),
  rule(
    'unknown-variable',
    'correctness',
    'error',
    'Unknown variable',
    'nginx refuses a config that uses a variable no module or `set`/`map`/`geo` defines.',
    'https://nginx.org/en/docs/varindex.html',
  ),
  rule(
    'needs-newer-version',
    'compatibility',
    'error',
    'Needs a newer nginx',
    'The directive appeared in a later nginx version than the one the config is judged against.',
  ),
  rule(
    'removed-in-version',
    'compatibility',
    'error',
    'Removed in the target version',
    'The directive no longer exists in the nginx version the config is judged against.',
  ),
  rule(
    'third-party-directive',
    'compatibility',
    'information',
    'Third-party module directive',
    "The directive comes from a loadable module (a third-party one packaged by distributions, or njs) that works only when a `load_module` line loads it, and not all of the configuration's `load_module` lines can be seen from here (a fragment whose main file is not open, an `include` in the main context this machine cannot read). Where they can be seen, a directive of a module not loaded is an unknown directive, as for nginx.",
  ),
  rule(
    'module-order',
    'correctness',
    'error',
    'Module loaded before what it needs',
    'Some loadable modules use another one\'s symbols (Debian\'s lua and set-misc need ndk, the stream modules need ngx_stream_module): nginx stops at a `load_module` line whose module needs one not loaded before it (dlopen() fails with "undefined symbol").',
  ),
  rule(
    'commercial-directive',
    'compatibility',
    'warning',
    'Commercial-only directive',
    'The directive exists only in the commercial subscription build of nginx.',
  ),
  rule(
    'deprecated',
    'compatibility',
    'warning',
    'Deprecated directive',
    'nginx warns about directives and parameters it keeps only for compatibility; a later version removes them.',
  ),
  rule(
    'empty-upstream',
    'correctness',
    'error',
    'Upstream without servers',
    'nginx refuses an upstream block that lists no server.',
    'https://nginx.org/en/docs/http/ngx_http_upstream_module.html#upstream',
  ),
  rule(
    'missing-certificate',
    'correctness',
    'error',
    'TLS listener without certificate',
    'A `listen ... ssl` server needs an `ssl_certificate` (and a key for each certificate) in the server or inherited from http, unless it rejects handshakes.',
    'https://nginx.org/en/docs/http/ngx_http_ssl_module.html#ssl_certificate',
  ),
  rule(
    'missing-events',
    'correctness',
    'error',
    'No events block',
    'nginx requires an `events {}` block in the main configuration file.',
    'https://nginx.org/en/docs/ngx_core_module.html#events',
  ),
];

/** Names used across the files of a configuration (service/workspaceIndex.ts). */
const nav = <const N extends string>(
  id: N,
  severity: RuleMeta['severity'],
  title: string,
  why: string,
  docUrl: string,
): RuleMeta<`nginx/${N}`> => ({
  id: `nginx/${id}`,
  language: 'nginx',
  category: 'correctness',
  severity,
  title,
  why,
  docUrl,
});

export const NGINX_NAVIGATION_RULES = [
  nav(
    'undefined-reference',
    'error',
    'A name no loaded file defines',
    'An upstream, shared-memory zone, cache or named location is used but defined nowhere in the configuration; nginx refuses to start or fails the request.',
    'https://nginx.org/en/docs/http/ngx_http_upstream_module.html#upstream',
  ),
  nav(
    'unused-definition',
    'hint',
    'A definition nothing uses',
    'An upstream, zone, cache or map that nothing in the configuration refers to is dead weight, or a sign of a typo in its user.',
    'https://nginx.org/en/docs/',
  ),
  nav(
    'include-limit',
    'information',
    'An include is read only in part by the editor',
    'The language server reads at most 100 files and 8 MB per include and 32 MB per include tree, and never files under /proc, /sys or /dev, so that an include such as `include /**/*;` cannot stall it.',
    'https://nginx.org/en/docs/ngx_core_module.html#include',
  ),
  nav(
    'include-not-found',
    'warning',
    'An include names no file',
    'nginx stops when a plain (non-glob) include names a file that does not exist; reported for relative paths, which name files of the config tree itself.',
    'https://nginx.org/en/docs/ngx_core_module.html#include',
  ),
];

/** Facts of the machine's own binaries: `nginx -V` (host/binaryFacts.ts) and a real `nginx -t` run (service/binaryCheck.ts). */
export const NGINX_HOST_RULES = [
  {
    id: 'nginx/module-not-in-binary',
    language: 'nginx',
    category: 'compatibility',
    severity: 'information',
    title: 'A directive whose module the local nginx does not have',
    why: 'The directive belongs to a standard module that the nginx on this machine was built without, was built as a loadable module that the configuration does not load, or whose `.so` file is not installed (`nginx -V` and the modules folder say which). The configuration may be meant for another machine; on this one `nginx -t` refuses it as an unknown directive.',
    docUrl: 'https://nginx.org/en/docs/ngx_core_module.html#load_module',
  },
  {
    id: 'nginx/binary-check',
    language: 'nginx',
    category: 'correctness',
    severity: 'error',
    title: 'A message of `nginx -t` run on a sandboxed copy of the saved file',
    why: 'The "Validate with nginx -t" command runs the real binary on a copy of the configuration (its paths moved into a temporary folder, on loopback only) and shows each of its messages on the line it names: an `[emerg]` is an error, a `[warn]` a warning. The severity shown is the binary\'s; a severity setting for this rule replaces it.',
    docUrl: 'https://nginx.org/en/docs/switches.html',
  },
] as const satisfies readonly RuleMeta[];

/** The rows by where their findings come from, for docs/rules.md. */
export const NGINX_RULE_GROUPS: readonly { title: string; rows: readonly RuleMeta[] }[] = [
  { title: 'validation (what `nginx -t` checks)', rows: NGINX_RULES },
  { title: 'tuning and safety', rows: NGINX_TUNING_RULES },
  { title: 'names across files', rows: NGINX_NAVIGATION_RULES },
  { title: 'the local binary (`nginx -V`, `nginx -t`)', rows: NGINX_HOST_RULES },
  { title: 'the engine (suppression comments, very large documents)', rows: [...engineRules('nginx'), ...largeDocumentRules('nginx')] },
];

/** Every nginx row, each id once. */
export const NGINX_REGISTRY_ROWS = [
  ...NGINX_RULES,
  ...NGINX_TUNING_RULES,
  ...engineRules('nginx'),
  ...largeDocumentRules('nginx'),
  ...NGINX_NAVIGATION_RULES,
  ...NGINX_HOST_RULES,
];

/** Every code an nginx diagnostic may carry. */
export type NginxRuleId = (typeof NGINX_REGISTRY_ROWS)[number]['id'];
/** A finding of an nginx check: its id must be a row of this registry. */
export type NginxFinding = Finding<NginxRuleId>;

export const nginxRegistry = new RuleRegistry<NginxRuleId>(NGINX_REGISTRY_ROWS);
