// The loadable modules against the real binaries (every nginx of the version matrix, each with
// its own suite's libnginx-mod-* packages): the facts of data/modules.json probed directive by
// directive (test/modules/probe.ts), configs of our own using each module accepted by nginx -t
// and clean in our linter, and nginx's errors about module directives caught at nginx's line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { loadMatrix, type MatrixBinary } from '../../server/src/runner/matrix';
import { nginxModule, validateInContext } from '../../server/src/languages/nginx/index';
import { installedModules, nginxT, probeBinary } from './probe';
import { LOADABLE_MODULES } from '../../server/src/languages/nginx/modules';

const allNginx = loadMatrix().filter((b) => b.product === 'nginx');
const nginxes = allNginx.filter((b) => installedModules(b).includes('ngx_http_headers_more_filter_module'));
const skip =
  nginxes.length === 0 &&
  !process.env.CI &&
  'no nginx with the third-party modules (scripts/install-system-packages.sh, scripts/provision-matrix.sh)';
const CONFIGS = join(__dirname, 'configs');

/** Our linter's errors on a config (judged at the binary's version, as a whole configuration). */
function lint(text: string, version: string) {
  const doc = TextDocument.create('file:///modules/nginx.conf', 'nginx', 1, text);
  return validateInContext(doc, nginxModule.parse(text), { nginxVersion: version }, 'main').filter((d) => d.severity === 1);
}

/** A config text for a binary: its own modules folder, a temp folder for pid/logs. */
function forBinary(text: string, bin: MatrixBinary, dir: string): string {
  return text.replace(/load_module modules\//g, `load_module ${bin.modulesDir}/`).replace(/@DIR@/g, dir);
}

test('this machine: every nginx of the matrix has the third-party modules of its suite', { skip }, () => {
  assert.ok(nginxes.length >= 1);
  assert.deepEqual(
    nginxes.map((b) => b.version),
    allNginx.map((b) => b.version),
    "every nginx of the matrix has its suite's libnginx-mod-* packages",
  );
  for (const b of nginxes)
    assert.ok(installedModules(b).length >= 25, `${b.version}: ${installedModules(b).length} modules in ${b.modulesDir}`);
});

/**
 * Each binary probes a share of the directive names (a fixed split by name, so every name is
 * probed on one binary per run; ~2,700 `nginx -t` runs in all), or all of them with
 * PROXY_TUNER_FULL_MODULE_PROBE=1 (~8,000 runs; scripts/probe-nginx-modules.ts always does).
 */
function share(i: number, n: number): ((name: string) => boolean) | undefined {
  if (process.env.PROXY_TUNER_FULL_MODULE_PROBE === '1' || n < 2) return undefined;
  return (name) => {
    let h = 0;
    for (let k = 0; k < name.length; k++) h = (h * 31 + name.charCodeAt(k)) >>> 0;
    return h % n === i;
  };
}

for (const [i, bin] of nginxes.entries()) {
  test(`nginx ${bin.version} (${bin.suite}): the module facts hold directive by directive`, { skip, timeout: 600_000 }, async () => {
    const include = share(i, nginxes.length);
    const r = await probeBinary(bin, { include });
    const unknown = Object.entries(r.unknownToBuild).map(([so, names]) => `${so}: ${names.length}`);
    console.log(
      `${r.binary}: ${r.modules.length} modules, ${Object.values(r.checked).reduce((a, b) => a + b, 0)} directive rows; ` +
        `${r.accepted} (directive, context) pairs accepted, wrong context refused ${r.rejections.held}/${r.rejections.checked}, ` +
        `argument counts refused ${r.arity.held}/${r.arity.checked}; unknown to this build: ${unknown.join(', ') || 'none'}; ${r.runs} nginx -t runs`,
    );
    assert.deepEqual(r.mismatches, []);
    assert.ok(r.accepted > (include ? 150 : 500), `${r.accepted} accepted`);
    assert.equal(r.rejections.held, r.rejections.checked);
    assert.equal(r.arity.held, r.arity.checked);
    // the packaged builds are older than the sources read: the names each lacks are recorded per suite
    // (scripts/probe-nginx-modules.ts) and must be exactly those
    for (const so of r.modules) {
      const recorded = (LOADABLE_MODULES.get(so)?.missingIn?.[bin.suite] ?? []).filter((n) => !include || include(n));
      assert.deepEqual(r.unknownToBuild[so] ?? [], recorded, `${so} in ${bin.suite}`);
    }
  });

  test(
    `nginx ${bin.version} (${bin.suite}): our configs using each module pass nginx -t and draw no error from our linter`,
    { skip, timeout: 120_000 },
    async () => {
      const have = new Set(installedModules(bin));
      const dir = mkdtempSync(join(tmpdir(), 'pt-modcfg-'));
      try {
        copyFileSync(join(CONFIGS, 'app.js'), join(dir, 'app.js'));
        let ran = 0;
        for (const f of readdirSync(CONFIGS)
          .filter((x) => x.endsWith('.conf'))
          .sort()) {
          const text = readFileSync(join(CONFIGS, f), 'utf8');
          const needs = /^# requires: (.*)$/m.exec(text)?.[1].split(' ') ?? [];
          if (!needs.every((n) => have.has(n))) continue;
          ran++;
          const real = forBinary(text, bin, dir);
          const r = await nginxT(bin, dir, f, real);
          assert.ok(r.ok, `${f}: nginx -t: ${r.output}`);
          assert.deepEqual(
            lint(text, bin.version).map((d) => `${f}:${d.range.start.line + 1}: ${d.message}`),
            [],
          );
        }
        assert.ok(ran >= 4, `${ran} configs ran`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test(
    `nginx ${bin.version} (${bin.suite}): nginx's errors about module directives are caught at nginx's line`,
    { skip, timeout: 120_000 },
    async () => {
      const head = 'pid @DIR@/nginx.pid;\nerror_log @DIR@/error.log;\n';
      const cases: { name: string; text: string; needs: string[]; lineOnly?: boolean }[] = [
        {
          name: 'lua loaded without ndk',
          needs: ['ngx_http_lua_module'],
          lineOnly: true,
          text: `load_module modules/ngx_http_lua_module.so;\n${head}events {}\n`,
        },
        {
          name: 'stream js before the stream module',
          needs: ['ngx_stream_js_module'],
          lineOnly: true,
          text: `load_module modules/ngx_stream_js_module.so;\nload_module modules/ngx_stream_module.so;\n${head}events {}\n`,
        },
        { name: 'not loaded', needs: [], text: `${head}events {}\nhttp {\n  brotli on;\n}\n` },
        {
          name: 'not loaded (lua block)',
          needs: [],
          text: `${head}events {}\nhttp {\n  server {\n    location / { content_by_lua_block { ngx.say(1) } }\n  }\n}\n`,
        },
        {
          name: 'wrong context',
          needs: ['ngx_http_headers_more_filter_module'],
          text: `load_module modules/ngx_http_headers_more_filter_module.so;\n${head}events {}\nhttp {\n  upstream u {\n    server 127.0.0.1:1;\n    more_set_headers "X: 1";\n  }\n}\n`,
        },
        {
          name: 'lua block in http',
          needs: ['ndk_http_module', 'ngx_http_lua_module'],
          text: `load_module modules/ndk_http_module.so;\nload_module modules/ngx_http_lua_module.so;\n${head}events {}\nhttp {\n  content_by_lua_block { ngx.say(1) }\n}\n`,
        },
        {
          name: 'too few arguments',
          needs: ['ngx_http_echo_module'],
          text: `load_module modules/ngx_http_echo_module.so;\n${head}events {}\nhttp {\n  server {\n    location / {\n      echo_sleep;\n    }\n  }\n}\n`,
        },
        {
          name: 'too many arguments',
          needs: ['ngx_http_fancyindex_module'],
          text: `load_module modules/ngx_http_fancyindex_module.so;\n${head}events {}\nhttp {\n  server {\n    location / { fancyindex on off; }\n  }\n}\n`,
        },
        {
          name: 'a flag',
          needs: ['ngx_http_brotli_filter_module'],
          text: `load_module modules/ngx_http_brotli_filter_module.so;\n${head}events {}\nhttp {\n  brotli yes;\n}\n`,
        },
        {
          name: 'rtmp application outside a server',
          needs: ['ngx_rtmp_module'],
          text: `load_module modules/ngx_rtmp_module.so;\n${head}events {}\nrtmp {\n  application live { live on; }\n}\n`,
        },
        {
          name: 'stream module without the stream family',
          needs: ['ngx_stream_js_module'],
          text: `${head}events {}\nhttp {\n  js_import app.js;\n}\n`,
        },
      ];
      const have = new Set(installedModules(bin));
      const dir = mkdtempSync(join(tmpdir(), 'pt-moderr-'));
      try {
        copyFileSync(join(CONFIGS, 'app.js'), join(dir, 'app.js'));
        for (const c of cases) {
          if (!c.needs.every((n) => have.has(n))) continue;
          const r = await nginxT(bin, dir, 'e.conf', forBinary(c.text, bin, dir));
          assert.equal(r.ok, false, `${c.name}: nginx accepted it`);
          assert.ok(r.line, `${c.name}: ${r.output}`);
          const ours = lint(c.text, bin.version);
          assert.ok(
            ours.some(
              (d) => d.range.start.line + 1 === r.line && (c.lineOnly || d.message.split(' ')[0] === (r.message ?? '').split(' ')[0]),
            ),
            `${c.name}: nginx: line ${r.line} ${r.message}; ours: ${ours.map((d) => `${d.range.start.line + 1} ${d.message}`).join('; ')}`,
          );
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}
