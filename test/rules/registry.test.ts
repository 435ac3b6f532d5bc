// Every diagnostic code is a registered rule (issue 15 item 3): the two registries hold every
// code, and the user's severity settings, `off` and `# proxy-tuner-disable-next-line RULE -- reason`
// comments work alike for a validation code, a navigation code (names across files), a
// host-fact code (`nginx -V` modules) and a binary-check code (a real `nginx -t` run).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { applyRules, codeActions, createWorkspaceIndex, validate, validateInWorkspace } from '../../server/src/service/languageService';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import { moduleDiagnostics, parseNginxV, type NginxBuildFacts } from '../../server/src/host/binaryFacts';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { binaryDiagnostics } from '../../server/src/service/binaryCheck';
import { checkWithBinary } from '../../server/src/host/binaryCheck';
import { nginxRegistry } from '../../server/src/languages/nginx/rules';
import { haproxyRegistry } from '../../server/src/languages/haproxy/rules';
import { allRules, findRule } from '../../server/src/service/ruleTable';
import type { ServiceSettings } from '../../server/src/core/types';
import { LspClient } from '../lsp/rpcClient';

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-registry-'));
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function write(rel: string, text: string): string {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

const codes = (ds: Diagnostic[], id: string) => ds.filter((d) => d.code === id);
const REASON = 'proxy-tuner-disable-next-line';

describe('the registries', () => {
  it('hold each id once, under its own language, and allRules/findRule read them', () => {
    for (const [lang, reg] of [
      ['nginx', nginxRegistry],
      ['haproxy', haproxyRegistry],
    ] as const) {
      for (const r of reg.all()) {
        assert.equal(r.language, lang, r.id);
        assert.ok(r.id.startsWith(`${lang}/`), r.id);
        assert.match(r.id, /^[a-z]+\/[a-z0-9-]+$/);
        assert.ok(r.title && r.why, r.id);
      }
    }
    const ids = allRules().map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(ids.length, nginxRegistry.all().length + haproxyRegistry.all().length);
    for (const id of [
      'nginx/unknown-directive',
      'nginx/include-not-found',
      'nginx/module-not-in-binary',
      'nginx/binary-check',
      'haproxy/binary-check',
      'nginx/large-document',
      'haproxy/unknown-keyword',
      'nginx/upstream-keepalive',
    ]) {
      assert.equal(findRule(id)?.id, id);
    }
  });
});

describe('a validation code (nginx/unknown-directive)', () => {
  const text = 'events {}\nhttp {\n    gzip_typs text/css;\n}\n';
  const doc = (t = text) => TextDocument.create('file:///v/nginx.conf', 'nginx', 1, t);

  it('has its default severity and documentation link', () => {
    const d = codes(validate(doc(), 'nginx', {}), 'nginx/unknown-directive');
    assert.equal(d.length, 1);
    assert.equal(d[0].severity, 1);
    assert.ok(d[0].codeDescription?.href.startsWith('https://nginx.org/'));
  });
  it('takes the severity setting, and `off`', () => {
    assert.equal(
      codes(validate(doc(), 'nginx', { rules: { 'nginx/unknown-directive': 'hint' } }), 'nginx/unknown-directive')[0]?.severity,
      4,
    );
    assert.deepEqual(codes(validate(doc(), 'nginx', { rules: { 'nginx/unknown-directive': 'off' } }), 'nginx/unknown-directive'), []);
  });
  it('is silenced by a suppression comment on the line before, and not by one for another rule', () => {
    const sup = `events {}\nhttp {\n    # ${REASON} nginx/unknown-directive -- typo kept for a test\n    gzip_typs text/css;\n}\n`;
    const ds = validate(doc(sup), 'nginx', {});
    assert.deepEqual(codes(ds, 'nginx/unknown-directive'), []);
    assert.deepEqual(codes(ds, 'nginx/suppression-without-reason'), []);
    const other = sup.replace('nginx/unknown-directive', 'nginx/arg-count');
    assert.equal(codes(validate(doc(other), 'nginx', {}), 'nginx/unknown-directive').length, 1);
  });
});

describe('a navigation code (nginx/include-not-found, over the files of a configuration)', () => {
  const run = (text: string, settings: ServiceSettings) => {
    const path = write(`nav-${Math.random().toString(36).slice(2)}/nginx.conf`, text);
    const uri = pathToFileURL(path).href;
    const d = TextDocument.create(uri, 'nginx', 1, text);
    const ws = createWorkspaceIndex({ fs: nodeFileSystem, open: { get: (u) => (u === uri ? d : undefined), all: () => [d] } });
    return codes(validateInWorkspace(d, 'nginx', settings, ws), 'nginx/include-not-found');
  };
  const text = 'events {}\nhttp {\n    include sites/missing.conf;\n}\n';

  it("is reported with its row's severity and link", () => {
    const d = run(text, {});
    assert.equal(d.length, 1);
    assert.equal(d[0].severity, 2);
    assert.ok(d[0].codeDescription?.href.includes('#include'));
  });
  it('takes the severity setting, `off` and a suppression comment', () => {
    assert.equal(run(text, { rules: { 'nginx/include-not-found': 'error' } })[0]?.severity, 1);
    assert.deepEqual(run(text, { rules: { 'nginx/include-not-found': 'off' } }), []);
    assert.deepEqual(
      run(text.replace('    include', `    # ${REASON} nginx/include-not-found -- made at deploy time\n    include`), {}),
      [],
    );
  });
});

describe('a host-fact code (nginx/module-not-in-binary, from `nginx -V`)', () => {
  // an `nginx -V` as Debian's nginx prints it, read by the same parser as the local binary's
  const facts: NginxBuildFacts = {
    ...parseNginxV(
      'nginx version: nginx/1.22.1\nconfigure arguments: --prefix=/usr/share/nginx --modules-path=/usr/lib/nginx/modules --with-http_ssl_module --with-http_geoip_module=dynamic\n',
    ),
    installed: ['ngx_http_geoip_module'],
    enabled: [],
  };
  const host = (text: string, settings: ServiceSettings) => {
    const d = TextDocument.create('file:///h/nginx.conf', 'nginx', 1, text);
    return codes(applyRules(d, 'nginx', moduleDiagnostics(d, parseNginx(text), facts), settings), 'nginx/module-not-in-binary');
  };
  const text = 'events {}\nhttp {\n    geoip_country /usr/share/GeoIP/GeoIP.dat;\n}\n';

  it("is an information diagnostic with the row's link", () => {
    const d = host(text, {});
    assert.equal(d.length, 1);
    assert.equal(d[0].severity, 3);
    assert.match(d[0].message, /ngx_http_geoip_module/);
    assert.equal(d[0].codeDescription?.href, nginxRegistry.get('nginx/module-not-in-binary')?.docUrl);
  });
  it('takes the severity setting, `off` and a suppression comment', () => {
    assert.equal(host(text, { rules: { 'nginx/module-not-in-binary': 'warning' } })[0]?.severity, 2);
    assert.deepEqual(host(text, { rules: { 'nginx/module-not-in-binary': 'off' } }), []);
    assert.deepEqual(
      host(text.replace('    geoip', `    # ${REASON} nginx/module-not-in-binary -- the production build has it\n    geoip`), {}),
      [],
    );
  });
  it('offers the "disable for this line" action like the service\'s own codes', () => {
    const d = TextDocument.create('file:///h/nginx.conf', 'nginx', 1, text);
    const diags = host(text, {});
    const actions = codeActions(d, 'nginx', diags[0].range, diags, {});
    assert.ok(actions.some((a) => a.title === 'Disable nginx/module-not-in-binary for this line'));
  });
});

describe('a binary-check code (nginx/binary-check, a real `nginx -t` on a sandboxed copy)', () => {
  it('takes the severity setting, `off` and a suppression comment', { timeout: 60_000 }, async () => {
    const text = 'events {}\nhttp {\n    server {\n        listen 8080;\n        gzip_typs text/css;\n    }\n}\n';
    const main = write('bin/nginx.conf', text);
    const r = await checkWithBinary({ configPath: main });
    assert.equal(r.status, 'error', r.output);
    const lines = text.split('\n');
    const raw = binaryDiagnostics(r, main, (_f, l) => lines[l]).get(main) ?? [];
    assert.equal(raw.length, 1);
    const d = TextDocument.create(pathToFileURL(main).href, 'nginx', 1, text);
    const plain = applyRules(d, 'nginx', raw, {});
    assert.equal(plain[0].code, 'nginx/binary-check');
    assert.equal(plain[0].severity, 1);
    assert.equal(plain[0].codeDescription?.href, nginxRegistry.get('nginx/binary-check')?.docUrl);
    assert.equal(applyRules(d, 'nginx', raw, { rules: { 'nginx/binary-check': 'warning' } })[0].severity, 2);
    assert.deepEqual(applyRules(d, 'nginx', raw, { rules: { 'nginx/binary-check': 'off' } }), []);
    // the comment is a comment for nginx too: the same message on the same line, silenced
    const supText = text.replace(
      '        gzip_typs',
      `        # ${REASON} nginx/binary-check -- checked on the target machine\n        gzip_typs`,
    );
    const supMain = write('bin-sup/nginx.conf', supText);
    const r2 = await checkWithBinary({ configPath: supMain });
    const supLines = supText.split('\n');
    const raw2 = binaryDiagnostics(r2, supMain, (_f, l) => supLines[l]).get(supMain) ?? [];
    assert.equal(raw2.length, 1);
    assert.deepEqual(applyRules(TextDocument.create(pathToFileURL(supMain).href, 'nginx', 1, supText), 'nginx', raw2, {}), []);
  });

  it('through the language server: the severity setting and a comment in an included file apply', { timeout: 60_000 }, async () => {
    const main = write('lsp/nginx.conf', 'events {}\nhttp {\n    include sites/*.conf;\n}\n');
    const incText = 'server {\n    listen 8081;\n    gzip_typs text/css;\n}\n';
    const inc = write('lsp/sites/a.conf', incText);
    const server = new LspClient(['--stdio'], { PROXY_TUNER_NO_LOCAL_VERSION: '1' });
    server.onServerRequest = (m) =>
      m.method === 'workspace/configuration' ? (m.params?.items ?? []).map(() => ({ rules: { 'nginx/binary-check': 'warning' } })) : null;
    try {
      await server.initialize();
      const uri = pathToFileURL(main).href;
      const incUri = pathToFileURL(inc).href;
      const incDiags = server.waitForNotification(
        'textDocument/publishDiagnostics',
        (p) => p.uri === incUri && p.diagnostics.some((d: any) => d.source === 'nginx -t'),
        30_000,
      );
      const res = await server.request('proxyTuner/validateWithBinary', { uri }, 30_000);
      assert.equal(res.status, 'error');
      const ds = (await incDiags).params.diagnostics.filter((x: any) => x.source === 'nginx -t');
      assert.equal(ds.length, 1);
      assert.equal(ds[0].message, 'unknown directive "gzip_typs"');
      assert.equal(ds[0].severity, 2, "the severity setting, not the binary's [emerg]");
      assert.equal(ds[0].codeDescription?.href, nginxRegistry.get('nginx/binary-check')?.docUrl);
      // the included file (not open) says to silence the line: the next run publishes nothing on it
      writeFileSync(inc, incText.replace('    gzip_typs', `    # ${REASON} nginx/binary-check -- the target build has it\n    gzip_typs`));
      const cleared = server.waitForNotification(
        'textDocument/publishDiagnostics',
        (p) => p.uri === incUri && !p.diagnostics.some((d: any) => d.source === 'nginx -t'),
        30_000,
      );
      const res2 = await server.request('proxyTuner/validateWithBinary', { uri }, 30_000);
      assert.equal(res2.status, 'error', 'nginx still refuses the file');
      assert.deepEqual((await cleared).params.diagnostics, []);
    } finally {
      await server.stop();
    }
  });
});
