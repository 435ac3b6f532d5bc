// Loadable modules (third-party libnginx-mod-*, njs): loaded by load_module lines (this file,
// included files, Debian's modules-enabled), validated like core directives when loaded, nginx's
// "unknown directive" when not, with a load_module fix from the host's installed modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { diagnose, fixture } from './helpers';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { validateFile } from '../../server/src/languages/nginx/validation';
import { doHover } from '../../server/src/languages/nginx/hover';
import { doComplete } from '../../server/src/languages/nginx/completion';
import { DIRECTIVES, docUrl } from '../../server/src/languages/nginx/data';
import {
  builtInModules,
  LOADABLE_MODULES,
  loadStateOf,
  modulesToLoad,
  standaloneLoadState,
} from '../../server/src/languages/nginx/modules';
import { createWorkspaceIndex, validateInWorkspace } from '../../server/src/service/languageService';
import { pathToUri } from '../../server/src/service/workspaceIndex';
import modulesJson from '../../server/src/languages/nginx/data/modules.json';
import { addedModulesOf, modulesPathOf } from '../../server/src/host/hostFacts';
import { nodeFileSystem } from '../../server/src/host/nodeHost';

const ISSUE = `load_module modules/ndk_http_module.so;
load_module modules/ngx_http_lua_module.so;
load_module modules/ngx_http_headers_more_filter_module.so;
events {}
http {
  more_set_headers "X-A: 1";
  brotli on;
  server {
    listen 127.0.0.1:8080;
    location / { content_by_lua_block { ngx.say("hi") } }
  }
}
`;

test("the facts: Debian's third-party modules, each with its .so, package, documentation and source commit", () => {
  const mods = (modulesJson as { modules: Record<string, { package: string; doc: string; source: { repo: string; commit: string } }> })
    .modules;
  assert.ok(Object.keys(mods).length >= 25, `${Object.keys(mods).length} modules`);
  for (const [so, m] of Object.entries(mods)) {
    assert.match(m.package, /^libnginx-mod-/, so);
    assert.match(m.doc, /^https:\/\//, so);
    assert.match(m.source.commit, /^[0-9a-f]{40}$/, so);
  }
  const more = DIRECTIVES.get('more_set_headers')!;
  assert.deepEqual(
    more.map((v) => [v.load, v.contexts, v.min, v.max]),
    [['ngx_http_headers_more_filter_module', ['http', 'if in location', 'location', 'server'], 1, -1]],
  );
  const lua = DIRECTIVES.get('content_by_lua_block')!;
  assert.deepEqual(
    lua.map((v) => [v.load, v.block, v.min, v.max]),
    [['ngx_http_lua_module', true, 0, 0]],
  );
  assert.equal(DIRECTIVES.get('brotli')![0].flag, true);
  // njs keeps its core rows (versions, values) and is marked loadable
  assert.ok(DIRECTIVES.get('js_import')!.every((v) => v.load === v.module));
  assert.deepEqual(modulesToLoad('ngx_http_lua_module', { loaded: new Set(), unknown: false }), ['ndk_http_module', 'ngx_http_lua_module']);
  assert.deepEqual(modulesToLoad('ngx_http_lua_module', { loaded: new Set(['ndk_http_module']), unknown: false }), ['ngx_http_lua_module']);
  assert.equal(LOADABLE_MODULES.get('ngx_http_lua_module')!.doc, 'https://github.com/openresty/lua-nginx-module#readme');
});

test("the issue's config: loaded modules are validated, not noted; brotli (not loaded) is nginx's unknown directive with a load_module fix", () => {
  const f = parseNginx(ISSUE);
  const findings = validateFile(f, {
    hostModules: () => ({ installed: ['ngx_http_brotli_filter_module', 'ngx_http_lua_module', 'ndk_http_module'] }),
  });
  assert.deepEqual(
    findings.map((x) => [x.ruleId, ISSUE.slice(x.start, x.end), x.message]),
    [
      [
        'nginx/unknown-directive',
        'brotli',
        'unknown directive "brotli": it is in the third-party brotli module (ngx_http_brotli_filter_module.so), which this configuration does not load',
      ],
    ],
  );
  const fix = findings[0].fixes![0];
  const fixed = ISSUE.slice(0, fix.edits[0].start) + fix.edits[0].newText + ISSUE.slice(fix.edits[0].end);
  assert.match(
    fixed,
    /load_module modules\/ngx_http_headers_more_filter_module\.so;\nload_module modules\/ngx_http_brotli_filter_module\.so;\nevents/,
  );
  assert.deepEqual(validateFile(parseNginx(fixed)), []);
  // not installed here: no fix (the module would have to be installed first)
  assert.equal(validateFile(f, { hostModules: () => ({ installed: [] }) })[0].fixes, undefined);
  assert.equal(validateFile(f)[0].fixes, undefined);
});

test("loaded third-party directives: contexts and argument counts are nginx's", () => {
  const text = `load_module modules/ngx_http_headers_more_filter_module.so;
load_module modules/ngx_http_echo_module.so;
load_module modules/ngx_http_upstream_fair_module.so;
events {}
more_set_headers "X: 1";
http {
  upstream u { server 127.0.0.1:1; fair; }
  server { listen 127.0.0.1:8080; more_clear_headers; location / { echo_sleep; echo hi; } }
}
`;
  const got = validateFile(parseNginx(text)).map((x) => [x.ruleId, text.slice(x.start, x.end).split(/[ ;]/)[0]]);
  assert.deepEqual(got, [
    ['nginx/not-allowed-here', 'more_set_headers'],
    ['nginx/arg-count', 'more_clear_headers'],
    ['nginx/arg-count', 'echo_sleep'],
  ]);
});

test('a lua dependency: the fix loads ndk first', () => {
  const text = 'events {}\nhttp { server { listen 127.0.0.1:8080; location / { content_by_lua_block { ngx.say(1) } } } }\n';
  const [f] = validateFile(parseNginx(text), { hostModules: () => ({ installed: ['ndk_http_module', 'ngx_http_lua_module'] }) });
  assert.equal(f.ruleId, 'nginx/unknown-directive');
  assert.deepEqual(f.fixes![0].edits, [
    { start: 0, end: 0, newText: 'load_module modules/ndk_http_module.so;\nload_module modules/ngx_http_lua_module.so;\n' },
  ]);
});

test('Lua and njs bodies stay raw; a block of a module not loaded is not judged inside', () => {
  const text = `load_module modules/ndk_http_module.so;
load_module modules/ngx_http_lua_module.so;
events {}
http { server { listen 127.0.0.1:8080; location / { content_by_lua_block { if x then ngx.say("{") end; frobnicate 1; } } } }
rtmp { server { listen 1935; application live { live on; } } }
`;
  const got = validateFile(parseNginx(text));
  assert.deepEqual(
    got.map((x) => [x.ruleId, text.slice(x.start, x.end)]),
    [['nginx/unknown-directive', 'rtmp']],
  );
});

test('rtmp, when loaded: its blocks are contexts of their own', () => {
  const text =
    'load_module modules/ngx_rtmp_module.so;\nevents {}\nrtmp { server { listen 1935; application live { live on; record off; } } live on; }\n';
  const got = validateFile(parseNginx(text));
  assert.deepEqual(
    got.map((x) => [x.ruleId, x.message]),
    [],
  );
  const bad = 'load_module modules/ngx_rtmp_module.so;\nevents {}\nrtmp { application live { } }\n';
  assert.deepEqual(
    validateFile(parseNginx(bad)).map((x) => x.message),
    ['"application" directive is not allowed here (rtmp)'],
  );
});

test('load state: fragments and main-level includes not seen mean "maybe loaded" (a note, arguments still checked)', () => {
  const frag = parseNginx('location / { more_set_headers; more_clear_headers X; }\n');
  assert.equal(standaloneLoadState(frag, 'server').unknown, true);
  const got = validateFile(frag, { context: 'server' });
  assert.deepEqual(
    got.map((x) => [x.ruleId, x.message]),
    [
      [
        'nginx/third-party-directive',
        '"more_set_headers" is in the third-party headers-more module (ngx_http_headers_more_filter_module.so); it works only when that module is loaded (`load_module` in the main configuration)',
      ],
      ['nginx/arg-count', 'invalid number of arguments in "more_set_headers" directive'],
    ],
  );
  const main = parseNginx('include /etc/nginx/modules-enabled/*.conf;\nevents {}\nhttp { more_set_headers "X: 1"; }\n');
  assert.equal(standaloneLoadState(main, 'main').unknown, true);
  assert.deepEqual(
    validateFile(main).map((x) => x.ruleId),
    ['nginx/third-party-directive'],
  );
  // an explicit state wins
  assert.deepEqual(
    validateFile(main, {
      modules: loadStateOf([{ ast: parseNginx('load_module modules/ngx_http_headers_more_filter_module.so;'), context: 'main' }], false),
    }),
    [],
  );
  assert.deepEqual(
    validateFile(main, { modules: { loaded: new Set(), unknown: false } }).map((x) => x.ruleId),
    ['nginx/unknown-directive'],
  );
});

test("the workspace: load_module lines in an included modules-enabled file count; a fragment of the config is judged by its main file's modules", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pt-modules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'modules-enabled'));
  mkdirSync(join(dir, 'sites-enabled'));
  writeFileSync(
    join(dir, 'modules-enabled', '50-mod-http-headers-more-filter.conf'),
    'load_module modules/ngx_http_headers_more_filter_module.so;\n',
  );
  const main = `include ${dir}/modules-enabled/*.conf;\nevents {}\nhttp { include ${dir}/sites-enabled/*; }\n`;
  writeFileSync(join(dir, 'nginx.conf'), main);
  const site = 'server {\n  listen 127.0.0.1:8080;\n  more_set_headers "X: 1";\n  brotli on;\n}\n';
  writeFileSync(join(dir, 'sites-enabled', 'app'), site);
  const ws = createWorkspaceIndex({ fs: nodeFileSystem });
  const doc = TextDocument.create(pathToUri(join(dir, 'sites-enabled', 'app')), 'nginx', 1, site);
  const diags = validateInWorkspace(doc, 'nginx', {}, ws).filter((d) => String(d.code).startsWith('nginx/'));
  assert.deepEqual(
    diags.map((d) => [d.code, d.range.start.line, d.severity]),
    [['nginx/unknown-directive', 3, 1]],
  );
  const mainDoc = TextDocument.create(pathToUri(join(dir, 'nginx.conf')), 'nginx', 1, main);
  assert.deepEqual(
    validateInWorkspace(mainDoc, 'nginx', {}, ws).filter((d) => d.severity === 1),
    [],
  );
  // a modules-enabled folder this machine lacks: anything may be loaded
  const elsewhere = main.replace(`${dir}/modules-enabled`, `${dir}/nowhere`);
  writeFileSync(join(dir, 'nginx.conf'), elsewhere);
  ws.invalidate();
  assert.deepEqual(
    validateInWorkspace(doc, 'nginx', {}, ws).filter((d) => d.severity === 1),
    [],
  );
});

test("hover links to the module's own documentation; completion offers a loaded module's directives", () => {
  const f = fixture(ISSUE.replace('more_set_headers', 'more_set_hea<|>ders'));
  const h = doHover(f.doc, parseNginx(f.text), f.cursor!, {});
  const md = (h?.contents as { value: string }).value;
  assert.match(md, /headers-more-nginx-module#readme/);
  assert.match(md, /load_module modules\/ngx_http_headers_more_filter_module\.so/);
  assert.equal(docUrl(DIRECTIVES.get('js_import')![0]), 'https://nginx.org/en/docs/http/ngx_http_js_module.html#js_import');
  const loads =
    'load_module modules/ngx_http_headers_more_filter_module.so;\nload_module modules/ndk_http_module.so;\nload_module modules/ngx_http_lua_module.so;\n';
  const c = fixture(`${loads}events {}\nhttp { server { location / { more_<|> } } }\n`);
  const items = doComplete(c.doc, parseNginx(c.text), c.cursor!, {}).items;
  const item = items.find((i) => i.label === 'more_set_headers');
  assert.ok(item, 'more_set_headers offered');
  assert.match(String(item!.detail), /ngx_http_headers_more_filter_module/);
  assert.ok(items.some((i) => i.label === 'content_by_lua_block'));
  // a main file that loads neither: neither module's directives
  const bare = fixture('events {}\nhttp { server { location / { more_<|> } } }\n');
  const none = doComplete(bare.doc, parseNginx(bare.text), bare.cursor!, {}).items.map((i) => i.label);
  assert.ok(!none.includes('more_set_headers') && !none.includes('content_by_lua_block'), 'not loaded: not offered');
});

test('diagnose helper: a fragment with a third-party directive in the wrong context is refused', () => {
  const { diags } = diagnose('more_set_headers "X: 1";\n', {}, 'upstream');
  assert.deepEqual(
    diags.map((d) => d.code),
    ['nginx/not-allowed-here'],
  );
});

test('every load_module line seen and known: a name no module defines is unknown, with the "did you mean" of the loaded ones', () => {
  const text =
    'load_module modules/ndk_http_module.so;\nload_module modules/ngx_http_lua_module.so;\nevents {}\nhttp { lua_shared_dic cache 1m; }\n';
  const [f] = validateFile(parseNginx(text));
  assert.equal(f.ruleId, 'nginx/unknown-directive');
  assert.equal(f.message, 'unknown directive "lua_shared_dic"; did you mean "lua_shared_dict"?');
  // a .so we know nothing of may define anything: the name keeps the information note
  const custom = text.replace('ngx_http_lua_module', 'ngx_http_custom_module');
  assert.deepEqual(
    validateFile(parseNginx(custom)).map((x) => x.ruleId),
    ['nginx/third-party-directive'],
  );
});

test('host facts: the modules folder an nginx -V names', () => {
  assert.equal(
    modulesPathOf(
      "configure arguments: --with-cc-opt='-g -O2' --prefix=/usr/share/nginx --modules-path=/usr/lib/nginx/modules --with-http_ssl_module",
    ),
    '/usr/lib/nginx/modules',
  );
  assert.equal(modulesPathOf('configure arguments: --prefix=/opt/nginx/ --with-http_ssl_module'), '/opt/nginx/modules');
  assert.equal(modulesPathOf('nginx version: nginx/1.22.1'), undefined);
});

test('a binary with the module compiled in (OpenResty): no load_module needed', () => {
  const text =
    'events {}\nhttp { server { listen 127.0.0.1:8080; location / { content_by_lua_block { ngx.say(1) } more_set_headers "X: 1"; brotli on; } } }\n';
  const openresty = {
    installed: [],
    added: ['../ngx_devel_kit-0.3.3', '../ngx_lua-0.10.26', '../headers-more-nginx-module-0.37', '../njs-0.8.4/nginx'],
  };
  assert.deepEqual(builtInModules(openresty.added).sort(), [
    'ndk_http_module',
    'ngx_http_headers_more_filter_module',
    'ngx_http_js_module',
    'ngx_http_lua_module',
    'ngx_stream_js_module',
  ]);
  const got = validateFile(parseNginx(text), { hostModules: () => openresty });
  assert.deepEqual(
    got.map((x) => text.slice(x.start, x.end)),
    ['brotli'],
  );
  assert.deepEqual(
    addedModulesOf(
      'configure arguments: --prefix=/usr/local/openresty/nginx --add-module=../ngx_lua-0.10.26 --add-dynamic-module=/src/njs/nginx',
    ),
    ['../ngx_lua-0.10.26'],
  );
});

test("a module loaded before what it needs (lua without ndk) is nginx's dlopen() failure, with a fix", () => {
  const text = 'load_module modules/ngx_http_lua_module.so;\nevents {}\nhttp { lua_shared_dict d 1m; }\n';
  const got = validateFile(parseNginx(text));
  assert.deepEqual(
    got.map((x) => [x.ruleId, x.message]),
    [['nginx/module-order', "ngx_http_lua_module.so needs ndk_http_module.so loaded before it (nginx's dlopen() fails: undefined symbol)"]],
  );
  const e = got[0].fixes![0].edits[0];
  const fixed = text.slice(0, e.start) + e.newText + text.slice(e.end);
  assert.ok(fixed.startsWith('load_module modules/ndk_http_module.so;\nload_module modules/ngx_http_lua_module.so;\n'));
  assert.deepEqual(validateFile(parseNginx(fixed)), []);
  // loaded after it: the order is the error, and adding a second line is no fix
  const late = 'load_module modules/ngx_stream_js_module.so;\nload_module modules/ngx_stream_module.so;\nevents {}\n';
  const [f] = validateFile(parseNginx(late));
  assert.equal(f.ruleId, 'nginx/module-order');
  assert.equal(f.fixes, undefined);
  // a modules-enabled include may hold it: not judged
  assert.deepEqual(
    validateFile(parseNginx(`include /etc/nginx/modules-enabled/*.conf;\n${text}`)).filter((x) => x.ruleId === 'nginx/module-order'),
    [],
  );
});

test("completion inside rtmp blocks offers the rtmp module's directives; hover gives a syntax from the command table", () => {
  const c = fixture('load_module modules/ngx_rtmp_module.so;\nevents {}\nrtmp { server { application live { <|> } } }\n');
  const labels = doComplete(c.doc, parseNginx(c.text), c.cursor!, {}).items.map((i) => i.label);
  assert.ok(labels.includes('live') && labels.includes('record'), labels.slice(0, 10).join(', '));
  assert.ok(!labels.includes('proxy_pass'));
  const h = fixture('load_module modules/ngx_http_brotli_filter_module.so;\nevents {}\nhttp { bro<|>tli on; }\n');
  const md = (doHover(h.doc, parseNginx(h.text), h.cursor!, {})?.contents as { value: string }).value;
  assert.match(md, /brotli on \| off;/);
  assert.match(md, /github\.com\/google\/ngx_brotli#readme/);
});

test('variables the modules register are known ($srcache_expire, $upload_progress_…)', () => {
  const text =
    'load_module modules/ngx_http_srcache_filter_module.so;\nevents {}\nhttp { server { listen 127.0.0.1:8080; location / { add_header X-Exp $srcache_expire; add_header X-F $srcache_fetch_status; return 204; } } }\n';
  assert.deepEqual(
    validateFile(parseNginx(text)).map((x) => x.message),
    [],
  );
  assert.deepEqual(
    validateFile(parseNginx(text.replace('$srcache_expire', '$srcache_expir'))).map((x) => x.message),
    ['unknown "srcache_expir" variable'],
  );
});
