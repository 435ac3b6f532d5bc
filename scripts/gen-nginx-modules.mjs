#!/usr/bin/env node
// Generates server/src/languages/nginx/data/modules.json: the directives of Debian's third-party nginx
// modules (libnginx-mod-*), read from each module's own command table (its `ngx_command_t`
// arrays: name, context flags, argument-count flags) in a git checkout of the module's public
// repository. Facts only: names, contexts, argument counts, the module each directive is in, the
// `.so` Debian ships it as, the repository and commit read.
//
//   node scripts/gen-nginx-modules.mjs SRC_DIR
//
// SRC_DIR holds one git directory per repository, named `owner+name/repo` (bare or not); the
// sources are read with `git show` and never copied anywhere. The module list below (package,
// `.so`, repository, documentation, what Debian makes it depend on) is ours.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const OUT = join(here, '..', 'server', 'src', 'nginx', 'data', 'modules.json');

/**
 * One row per `.so`. `modules`: the `ngx_module_t` names compiled into it (default: every module
 * of the repository); `paths`: the source files to read (default: every `.c` outside tests).
 * `suites`: the Debian suites packaging it (bookworm = the host; trixie, sid = the matrix roots).
 */
const ALL = ['bookworm', 'trixie', 'sid'];
const MODULES = [
  {
    so: 'ndk_http_module',
    name: 'ndk',
    title: 'Nginx Development Kit',
    pkg: 'libnginx-mod-http-ndk',
    repo: 'vision5/ngx_devel_kit',
    suites: ALL,
    paths: ['src/ndk.c'],
  },
  {
    so: 'ngx_http_auth_pam_module',
    name: 'auth-pam',
    title: 'PAM authentication',
    pkg: 'libnginx-mod-http-auth-pam',
    repo: 'sto/ngx_http_auth_pam_module',
    suites: ALL,
  },
  {
    so: 'ngx_http_brotli_filter_module',
    name: 'brotli',
    title: 'Brotli compression (filter)',
    pkg: 'libnginx-mod-http-brotli-filter',
    repo: 'google/ngx_brotli',
    suites: ALL,
    modules: ['ngx_http_brotli_filter_module'],
  },
  {
    so: 'ngx_http_brotli_static_module',
    name: 'brotli-static',
    title: 'Brotli compression (precompressed files)',
    pkg: 'libnginx-mod-http-brotli-static',
    repo: 'google/ngx_brotli',
    suites: ALL,
    modules: ['ngx_http_brotli_static_module'],
  },
  {
    so: 'ngx_http_cache_purge_module',
    name: 'cache-purge',
    title: 'Cache purge',
    pkg: 'libnginx-mod-http-cache-purge',
    repo: 'nginx-modules/ngx_cache_purge',
    suites: ALL,
  },
  {
    so: 'ngx_http_dav_ext_module',
    name: 'dav-ext',
    title: 'WebDAV extensions (PROPFIND, OPTIONS, LOCK, UNLOCK)',
    pkg: 'libnginx-mod-http-dav-ext',
    repo: 'arut/nginx-dav-ext-module',
    suites: ALL,
  },
  {
    so: 'ngx_http_echo_module',
    name: 'echo',
    title: 'echo',
    pkg: 'libnginx-mod-http-echo',
    repo: 'openresty/echo-nginx-module',
    suites: ALL,
  },
  {
    so: 'ngx_http_fancyindex_module',
    name: 'fancyindex',
    title: 'Fancy indexes',
    pkg: 'libnginx-mod-http-fancyindex',
    repo: 'aperezdc/ngx-fancyindex',
    suites: ALL,
  },
  {
    so: 'ngx_http_geoip2_module',
    name: 'geoip2',
    title: 'GeoIP2 (http)',
    pkg: 'libnginx-mod-http-geoip2',
    repo: 'leev/ngx_http_geoip2_module',
    suites: ALL,
    modules: ['ngx_http_geoip2_module'],
  },
  {
    so: 'ngx_stream_geoip2_module',
    name: 'geoip2-stream',
    title: 'GeoIP2 (stream)',
    pkg: 'libnginx-mod-stream-geoip2',
    repo: 'leev/ngx_http_geoip2_module',
    suites: ALL,
    modules: ['ngx_stream_geoip2_module'],
    requires: ['ngx_stream_module'],
  },
  {
    so: 'ngx_http_headers_more_filter_module',
    name: 'headers-more',
    title: 'headers-more',
    pkg: 'libnginx-mod-http-headers-more-filter',
    repo: 'openresty/headers-more-nginx-module',
    suites: ALL,
  },
  {
    so: 'ngx_http_js_module',
    name: 'njs',
    title: 'njs (http)',
    pkg: 'libnginx-mod-http-js',
    repo: 'nginx/njs',
    suites: ALL,
    modules: ['ngx_http_js_module'],
    doc: 'https://nginx.org/en/docs/http/ngx_http_js_module.html',
  },
  {
    so: 'ngx_stream_js_module',
    name: 'njs-stream',
    title: 'njs (stream)',
    pkg: 'libnginx-mod-stream-js',
    repo: 'nginx/njs',
    suites: ALL,
    modules: ['ngx_stream_js_module'],
    requires: ['ngx_stream_module'],
    doc: 'https://nginx.org/en/docs/stream/ngx_stream_js_module.html',
  },
  {
    so: 'ngx_http_lua_module',
    name: 'lua',
    title: 'Lua (OpenResty lua-nginx-module)',
    pkg: 'libnginx-mod-http-lua',
    repo: 'openresty/lua-nginx-module',
    suites: ALL,
    requires: ['ndk_http_module'],
  },
  {
    so: 'ngx_http_memc_module',
    name: 'memc',
    title: 'memc (extended memcached)',
    pkg: 'libnginx-mod-http-memc',
    repo: 'openresty/memc-nginx-module',
    suites: ALL,
  },
  {
    so: 'ngx_http_modsecurity_module',
    name: 'modsecurity',
    title: 'ModSecurity',
    pkg: 'libnginx-mod-http-modsecurity',
    repo: 'owasp-modsecurity/ModSecurity-nginx',
    suites: ALL,
  },
  {
    so: 'ngx_http_set_misc_module',
    name: 'set-misc',
    title: 'set-misc',
    pkg: 'libnginx-mod-http-set-misc',
    repo: 'openresty/set-misc-nginx-module',
    suites: ALL,
    requires: ['ndk_http_module'],
  },
  {
    so: 'ngx_http_srcache_filter_module',
    name: 'srcache',
    title: 'srcache (subrequest cache)',
    pkg: 'libnginx-mod-http-srcache-filter',
    repo: 'openresty/srcache-nginx-module',
    suites: ALL,
  },
  {
    so: 'ngx_http_subs_filter_module',
    name: 'subs-filter',
    title: 'Substitutions filter',
    pkg: 'libnginx-mod-http-subs-filter',
    repo: 'yaoweibin/ngx_http_substitutions_filter_module',
    suites: ALL,
  },
  {
    so: 'ngx_http_uploadprogress_module',
    name: 'uploadprogress',
    title: 'Upload progress',
    pkg: 'libnginx-mod-http-uploadprogress',
    repo: 'masterzen/nginx-upload-progress-module',
    suites: ALL,
  },
  {
    so: 'ngx_http_upstream_fair_module',
    name: 'upstream-fair',
    title: 'Upstream fair balancer',
    pkg: 'libnginx-mod-http-upstream-fair',
    repo: 'gnosek/nginx-upstream-fair',
    suites: ALL,
  },
  {
    so: 'ngx_nchan_module',
    name: 'nchan',
    title: 'Nchan pub/sub',
    pkg: 'libnginx-mod-nchan',
    repo: 'slact/nchan',
    suites: ALL,
    paths: ['src/nchan_module.c', 'src/nchan_config_commands.c'],
    doc: 'https://nchan.io/#configuration',
  },
  {
    so: 'ngx_rtmp_module',
    name: 'rtmp',
    title: 'RTMP',
    pkg: 'libnginx-mod-rtmp',
    repo: 'arut/nginx-rtmp-module',
    suites: ALL,
    doc: 'https://github.com/arut/nginx-rtmp-module/wiki/Directives',
  },
  {
    so: 'ngx_http_auth_spnego_module',
    name: 'auth-spnego',
    title: 'SPNEGO/Kerberos authentication',
    pkg: 'libnginx-mod-http-auth-spnego',
    repo: 'stnoonan/spnego-http-auth-nginx-module',
    suites: ['trixie', 'sid'],
  },
  {
    so: 'ngx_http_push_stream_module',
    name: 'push-stream',
    title: 'Push stream',
    pkg: 'libnginx-mod-http-push-stream',
    repo: 'wandenberg/nginx-push-stream-module',
    suites: ['trixie', 'sid'],
  },
  {
    so: 'ngx_http_auth_jwt_module',
    name: 'auth-jwt',
    title: 'JWT authentication (TeslaGov)',
    pkg: 'libnginx-mod-http-auth-jwt',
    repo: 'TeslaGov/ngx-http-auth-jwt-module',
    suites: ['sid'],
  },
  {
    so: 'ngx_http_eval_module',
    name: 'eval',
    title: 'eval',
    pkg: 'libnginx-mod-http-eval',
    repo: 'openresty/nginx-eval-module',
    suites: ['sid'],
  },
  {
    so: 'ngx_http_hmac_secure_link_module',
    name: 'hmac-secure-link',
    title: 'HMAC secure link',
    pkg: 'libnginx-mod-http-hmac-secure-link',
    repo: 'nginx-modules/ngx_http_hmac_secure_link_module',
    suites: ['sid'],
  },
  {
    so: 'ngx_http_xss_filter_module',
    name: 'xss',
    title: 'xss (cross-site JSONP)',
    pkg: 'libnginx-mod-http-xss',
    repo: 'openresty/xss-nginx-module',
    suites: ['sid'],
  },
  {
    so: 'ngx_http_zstd_filter_module',
    name: 'zstd',
    title: 'Zstandard compression (filter)',
    pkg: 'libnginx-mod-http-zstd-filter',
    repo: 'myguard-labs/nginx-zstd-module',
    suites: ['sid'],
    modules: ['ngx_http_zstd_filter_module'],
  },
  {
    so: 'ngx_http_zstd_static_module',
    name: 'zstd-static',
    title: 'Zstandard compression (precompressed files)',
    pkg: 'libnginx-mod-http-zstd-static',
    repo: 'myguard-labs/nginx-zstd-module',
    suites: ['sid'],
    modules: ['ngx_http_zstd_static_module'],
  },
];

// nginx's context flags, as our context names (see childContext in server/src/languages/nginx/ast.ts)
const CONTEXT_FLAGS = {
  NGX_MAIN_CONF: 'main',
  NGX_HTTP_MAIN_CONF: 'http',
  NGX_HTTP_SRV_CONF: 'server',
  NGX_HTTP_LOC_CONF: 'location',
  NGX_HTTP_UPS_CONF: 'upstream',
  NGX_HTTP_SIF_CONF: 'if in server',
  NGX_HTTP_LIF_CONF: 'if in location',
  NGX_HTTP_LMT_CONF: 'limit_except',
  NGX_STREAM_MAIN_CONF: 'stream',
  NGX_STREAM_SRV_CONF: 'stream/server',
  NGX_STREAM_UPS_CONF: 'stream/upstream',
  NGX_MAIL_MAIN_CONF: 'mail',
  NGX_MAIL_SRV_CONF: 'mail/server',
  NGX_RTMP_MAIN_CONF: 'rtmp',
  NGX_RTMP_SRV_CONF: 'rtmp/server',
  NGX_RTMP_APP_CONF: 'rtmp/application',
  NGX_RTMP_REC_CONF: 'rtmp/recorder',
};
// argument-count flags: the counts each allows (-1: any number from the one before on)
const ARG_FLAGS = {
  NGX_CONF_NOARGS: [0],
  NGX_CONF_TAKE1: [1],
  NGX_CONF_TAKE2: [2],
  NGX_CONF_TAKE3: [3],
  NGX_CONF_TAKE4: [4],
  NGX_CONF_TAKE5: [5],
  NGX_CONF_TAKE6: [6],
  NGX_CONF_TAKE7: [7],
  NGX_CONF_TAKE12: [1, 2],
  NGX_CONF_TAKE13: [1, 3],
  NGX_CONF_TAKE23: [2, 3],
  NGX_CONF_TAKE123: [1, 2, 3],
  NGX_CONF_TAKE1234: [1, 2, 3, 4],
};
const IGNORED_FLAGS = new Set(['NGX_DIRECT_CONF', 'NGX_ANY_CONF', '0']);

function git(dir, ...args) {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function stripComments(text) {
  // strings are kept (a directive name is one), comments go
  return text.replace(/("(?:[^"\\\n]|\\.)*")|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (m, str) => str ?? ' ');
}

/** `#define NAME value` lines of a set of sources (for modules that name their flag sets). */
function defines(texts) {
  const out = new Map();
  for (const t of texts) {
    for (const m of t.matchAll(/^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+((?:[^\n\\]|\\\n)+)/gm))
      out.set(m[1], m[2].replace(/\\\n/g, ' ').trim());
  }
  return out;
}

function flagTokens(expr, defs, depth = 0) {
  const out = [];
  for (const raw of expr.replace(/[()]/g, ' ').split('|')) {
    const t = raw.trim();
    if (!t) continue;
    if (CONTEXT_FLAGS[t] || ARG_FLAGS[t] || /^NGX_CONF_(BLOCK|FLAG|1MORE|2MORE|ANY|MULTI)$/.test(t) || IGNORED_FLAGS.has(t)) out.push(t);
    else if (defs.has(t) && depth < 8) out.push(...flagTokens(defs.get(t), defs, depth + 1));
    else out.push(`?${t}`);
  }
  return out;
}

/** One command-table entry as facts: contexts, block, argument counts. */
function commandFacts(name, tokens) {
  const contexts = [];
  const counts = new Set();
  let block = false;
  let flag = false;
  let more = -1;
  const unknown = [];
  for (const t of tokens) {
    if (CONTEXT_FLAGS[t]) contexts.push(CONTEXT_FLAGS[t]);
    else if (ARG_FLAGS[t]) for (const n of ARG_FLAGS[t]) counts.add(n);
    else if (t === 'NGX_CONF_BLOCK') block = true;
    else if (t === 'NGX_CONF_FLAG') {
      flag = true;
      counts.add(1);
    } else if (t === 'NGX_CONF_1MORE') more = more < 0 ? 1 : Math.min(more, 1);
    else if (t === 'NGX_CONF_2MORE') more = more < 0 ? 2 : Math.min(more, 2);
    else if (t === 'NGX_CONF_ANY') more = 0;
    else if (t.startsWith('?')) unknown.push(t.slice(1));
  }
  let min;
  let max;
  if (more >= 0) {
    min = Math.min(more, ...counts);
    max = -1;
  } else if (counts.size) {
    min = Math.min(...counts);
    max = Math.max(...counts);
  } else {
    // nginx: no argument flag at all means no arguments are accepted
    min = 0;
    max = 0;
  }
  const row = { contexts: [...new Set(contexts)].sort(), block, min, max };
  if (flag && !block && max === 1 && min === 1) row.flag = true;
  // TAKE13 and the like: min/max say 1..3, but 2 is refused
  if (more < 0 && counts.size && counts.size !== max - min + 1) row.counts = [...counts].sort((a, b) => a - b);
  if (unknown.length) row.unknownFlags = unknown;
  return row;
}

function extract(dir, spec) {
  const files = git(dir, 'ls-tree', '-r', '--name-only', 'HEAD')
    .split('\n')
    .filter((p) => /\.(c|h)$/.test(p) && !/(^|\/)(t|test|tests|util|dev)\//.test(p));
  const texts = new Map(files.map((p) => [p, stripComments(git(dir, 'show', `HEAD:${p}`))]));
  const defs = defines(texts.values());
  // command arrays, and which module each belongs to
  const arrays = new Map();
  const moduleOf = new Map();
  for (const [p, t] of texts) {
    if (!p.endsWith('.c')) continue;
    for (const m of t.matchAll(/ngx_command_t\s+(\w+)\s*\[\s*\]\s*=\s*\{([\s\S]*?)\n\s*\}\s*;/g)) {
      const entries = [];
      for (const e of m[2].matchAll(/\{\s*ngx_string\s*\(\s*"([^"]+)"\s*\)\s*,\s*([^,]+?)\s*,/g))
        entries.push({ name: e[1], tokens: flagTokens(e[2], defs) });
      arrays.set(m[1], { file: p, entries });
    }
    for (const m of t.matchAll(/ngx_module_t\s+(\w+)\s*=\s*\{\s*NGX_MODULE_V1\s*,\s*&?\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)/g))
      moduleOf.set(m[3], { module: m[1], type: m[4] });
  }
  // the variables a module registers (`ngx_http_variable_t` / `ngx_stream_variable_t` tables):
  // names, and whether a name is a prefix (NGX_HTTP_VAR_PREFIX)
  const variables = [];
  for (const [p, t] of texts) {
    if (!p.endsWith('.c') || (spec.paths && !spec.paths.includes(p))) continue;
    if (spec.modules && !spec.modules.some((m) => t.includes(`ngx_module_t  ${m}`) || t.includes(`ngx_module_t ${m}`))) continue;
    for (const m of t.matchAll(/ngx_(?:http|stream)_variable_t\s+\w+\s*\[\s*\]\s*=\s*\{([\s\S]*?)\n\s*\}\s*;/g)) {
      for (const e of m[1].matchAll(/\{\s*ngx_string\s*\(\s*"([^"]+)"\s*\)([^}]*)\}/g))
        variables.push({ name: e[1], prefix: /VAR_PREFIX/.test(e[2]) });
    }
  }
  const rows = [];
  for (const [arr, { file, entries }] of arrays) {
    const mod = moduleOf.get(arr);
    if (!mod) continue; // a table no module of this repository registers
    if (spec.modules && !spec.modules.includes(mod.module)) continue;
    if (spec.paths && !spec.paths.includes(file)) continue;
    for (const e of entries) rows.push({ name: e.name, cmodule: mod.module, file, ...commandFacts(e.name, e.tokens) });
  }
  return { rows, variables };
}

const src = process.argv[2];
if (!src) {
  console.error('usage: node scripts/gen-nginx-modules.mjs SRC_DIR (owner+name/repo git directories)');
  process.exit(2);
}
// the suites' gaps scripts/probe-nginx-modules.ts recorded are kept
const previous = existsSync(OUT) ? JSON.parse(readFileSync(OUT, 'utf8')) : { modules: {} };
const out = {
  generated:
    "scripts/gen-nginx-modules.mjs; do not edit. Facts only (directive names, context flags, argument-count flags, the module and .so) read from each module's ngx_command_t tables at the repository commit recorded per module; no source text is copied. missingIn: scripts/probe-nginx-modules.ts.",
  modules: {},
  directives: {},
};
let problems = 0;
for (const spec of MODULES) {
  const dir = join(src, spec.repo.replace('/', '+'), 'repo');
  if (!existsSync(dir)) {
    console.error(`missing source: ${spec.repo} (${dir})`);
    problems++;
    continue;
  }
  const commit = git(dir, 'rev-parse', 'HEAD').trim();
  const { rows, variables } = extract(dir, spec);
  const files = [...new Set(rows.map((r) => r.file))].sort();
  out.modules[spec.so] = {
    name: spec.name,
    title: spec.title,
    package: spec.pkg,
    suites: spec.suites,
    requires: spec.requires ?? [],
    doc: spec.doc ?? `https://github.com/${spec.repo}#readme`,
    source: { repo: `https://github.com/${spec.repo}`, commit, files },
  };
  if (variables.length)
    out.modules[spec.so].variables = [...new Map(variables.map((v) => [v.name, v])).values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  if (previous.modules?.[spec.so]?.missingIn) out.modules[spec.so].missingIn = previous.modules[spec.so].missingIn;
  for (const r of rows) {
    const { name, file: _f, cmodule: _c, ...facts } = r;
    if (facts.unknownFlags) {
      console.error(`${spec.so}: ${name}: unknown flags ${facts.unknownFlags.join(', ')}`);
      problems++;
    }
    (out.directives[name] ??= []).push({ so: spec.so, ...facts });
  }
  console.log(`${spec.so}: ${rows.length} directives, ${variables.length} variables from ${spec.repo}@${commit.slice(0, 12)}`);
}
out.directives = Object.fromEntries(Object.entries(out.directives).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(OUT, `${JSON.stringify(out, null, 1)}\n`);
console.log(
  `${Object.keys(out.directives).length} directive names, ${Object.keys(out.modules).length} modules -> ${OUT}${problems ? ` (${problems} problems)` : ''}`,
);
