// The project config (.proxy-tuner.json) in the editor: the language server reads the file that
// applies to each document (walking up from its folder) and judges with it, under the editor's
// own settings, which win. Plus the pure reader: parsing, globs, contexts, ignore.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../cli/build';
import { LspClient, type RpcMessage } from './rpcClient';
import {
  CONTEXT_NAMES,
  contextFor,
  findProjectConfig,
  globToRegExp,
  isIgnored,
  parseProjectConfig,
  projectSettings,
} from '../../server/src/service/projectConfig';

describe('project config reader (pure)', () => {
  it('matches globs relative to the config folder; a glob without / matches a name anywhere', () => {
    const cases: [string, string, boolean][] = [
      ['conf.d/*.conf', 'conf.d/a.conf', true],
      ['conf.d/*.conf', 'x/conf.d/a.conf', false],
      ['conf.d/*.conf', 'conf.d/sub/a.conf', false],
      ['**/conf.d/*.conf', 'x/y/conf.d/a.conf', true],
      ['**/conf.d/*.conf', 'conf.d/a.conf', true],
      ['*.bak', 'deep/er/x.bak', true],
      ['vendor/**', 'vendor/a/b.conf', true],
      ['vendor/', 'vendor/a.conf', true],
      ['vendor', 'vendor/a.conf', true],
      ['site?.conf', 'site1.conf', true],
      ['site?.conf', 'site10.conf', false],
      ['{a,b}/*.cfg', 'b/x.cfg', true],
      ['{a,b}/*.cfg', 'c/x.cfg', false],
      ['a.conf', 'a_conf', false],
    ];
    for (const [glob, path, want] of cases) assert.equal(globToRegExp(glob).test(path), want, `${glob} ~ ${path}`);
  });

  it('reads versions, severities, ignore, contexts and indentation; lists what is wrong; refuses non-JSON', () => {
    const cfg = parseProjectConfig(
      JSON.stringify({
        nginx: { version: '1.22.1' },
        haproxy: { version: 2.6 },
        rules: { 'nginx/a': 'off', 'nginx/b': 'loud' },
        ignore: ['vendor/**'],
        contexts: { 'conf.d/*.conf': 'http', 'x/*.conf': 'nowhere' },
        format: { indent: 2 },
        extra: true,
      }),
      '/p/.proxy-tuner.json',
    );
    assert.equal(cfg.dir, '/p');
    assert.deepEqual(projectSettings(cfg), { nginx: { version: '1.22.1' }, rules: { 'nginx/a': 'off' } });
    assert.deepEqual(cfg.format, { tabSize: 2, insertSpaces: true });
    assert.equal(contextFor(cfg, '/p/conf.d/a.conf'), 'http');
    assert.equal(contextFor(cfg, '/q/conf.d/a.conf'), undefined);
    assert.ok(isIgnored(cfg, '/p/vendor/x/y.conf'));
    assert.ok(!isIgnored(cfg, '/p/site.conf'));
    assert.equal(cfg.problems.length, 4, cfg.problems.join('\n'));
    assert.throws(() => parseProjectConfig('{ nginx', '/p/.proxy-tuner.json'), /\/p\/\.proxy-tuner\.json: not valid JSON/);
    assert.throws(() => parseProjectConfig('[1]', '/p/.proxy-tuner.json'), /must hold a JSON object/);
  });

  it("the editor's JSON schema (schemas/proxy-tuner.schema.json, package.json jsonValidation) says what the reader reads", () => {
    const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'proxy-tuner.schema.json'), 'utf8'));
    assert.deepEqual(schema.properties.contexts.additionalProperties.enum, [...CONTEXT_NAMES]);
    assert.deepEqual(schema.properties.rules.additionalProperties.enum, ['off', 'error', 'warning', 'information', 'hint']);
    // every top-level key the schema allows is read without a complaint
    const sample = {
      $schema: 'x',
      nginx: { version: '1.22.1' },
      haproxy: { version: '2.6', files: [['global.cfg', './site.cfg']] },
      rules: {},
      lint: { select: ['default'], extendSelect: ['hardening'], ignore: ['nginx/http2-missing'] },
      ignore: ['a'],
      contexts: { 'a/*.conf': 'http' },
      format: { indent: 'tab' },
    };
    assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(sample).sort());
    assert.deepEqual(parseProjectConfig(JSON.stringify(sample), '/p/.proxy-tuner.json').problems, []);
    assert.deepEqual(parseProjectConfig(JSON.stringify(sample), '/p/.proxy-tuner.json').lint, sample.lint);
    assert.deepEqual(Object.keys(schema.properties.lint.properties).sort(), ['extendSelect', 'ignore', 'select']);
    // the files HAProxy loads together, as absolute paths in load order
    assert.deepEqual(parseProjectConfig(JSON.stringify(sample), '/p/.proxy-tuner.json').haproxy, {
      version: '2.6',
      files: [['/p/global.cfg', '/p/site.cfg']],
    });
    assert.deepEqual(parseProjectConfig('{"haproxy": {"files": ["a.cfg"]}}', '/p/.proxy-tuner.json').problems, [
      '"haproxy.files" must be an array of groups, each an array of paths HAProxy loads together',
    ]);
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.jsonValidation, [{ fileMatch: '.proxy-tuner.json', url: './schemas/proxy-tuner.schema.json' }]);
  });

  it('finds the nearest config walking up, reading each folder once', () => {
    const files: Record<string, string> = { '/a/.proxy-tuner.json': '{"nginx": {"version": "1.24.0"}}', '/a/b/c/.proxy-tuner.json': '{}' };
    const reads: string[] = [];
    const read = (p: string) => (reads.push(p), files[p]);
    const cache = new Map();
    assert.equal(findProjectConfig('/a/b/x.conf', read, cache)?.nginx?.version, '1.24.0');
    assert.equal(findProjectConfig('/a/b/c/d/x.conf', read, cache)?.file, '/a/b/c/.proxy-tuner.json');
    assert.equal(findProjectConfig('/z/x.conf', read, cache), undefined);
    const before = reads.length;
    findProjectConfig('/a/b/y.conf', read, cache);
    assert.equal(reads.length, before, 'cached');
  });
});

let dir: string;

function write(rel: string, text: string): string {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return pathToFileURL(p).href;
}

const HTTP2 = 'events {}\nhttp {\n    server {\n        listen 127.0.0.1:8443;\n        http2 on;\n        server_tokens on;\n    }\n}\n';

describe('language server with a project config', () => {
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-lsp-project-'));
    write(
      'proj/.proxy-tuner.json',
      JSON.stringify({
        nginx: { version: '1.22.1' },
        rules: { 'nginx/server-tokens-on': 'error' },
        contexts: { 'snippets/*.conf': 'http' },
        ignore: ['vendor/**'],
      }),
    );
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function diagnostics(server: LspClient, uri: string, text: string): Promise<any[]> {
    server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'nginx', version: 1, text } });
    return server.diagnosticsFor(uri, 1);
  }

  it('judges with the config: versions, severities, fragment contexts, ignored files', async () => {
    const server = new LspClient(['--stdio'], { PROXY_TUNER_NO_LOCAL_VERSION: '1' });
    try {
      await server.initialize();
      const site = await diagnostics(server, write('proj/site/nginx.conf', HTTP2), HTTP2);
      assert.ok(
        site.some((d) => d.code === 'nginx/needs-newer-version'),
        JSON.stringify(site),
      );
      assert.equal(site.find((d) => d.code === 'nginx/server-tokens-on')?.severity, 1);
      const fragment = await diagnostics(
        server,
        write('proj/snippets/names.conf', 'server_name example.org;\n'),
        'server_name example.org;\n',
      );
      assert.ok(
        fragment.some((d) => d.code === 'nginx/not-allowed-here'),
        'read in http, as the config says',
      );
      const commented = '# proxy-tuner: context http\nserver_name example.org;\n';
      const comment = await diagnostics(server, write('elsewhere/names.conf', commented), commented);
      assert.ok(
        comment.some((d) => d.code === 'nginx/not-allowed-here'),
        'read in http, as the comment says',
      );
      const plain = await diagnostics(server, write('elsewhere/plain.conf', 'server_name example.org;\n'), 'server_name example.org;\n');
      assert.ok(!plain.some((d) => d.code === 'nginx/not-allowed-here'), 'inferred as server without either');
      const ignored = await diagnostics(server, write('proj/vendor/x/bad.conf', 'listn 80;\n'), 'listn 80;\n');
      assert.deepEqual(ignored, []);
    } finally {
      await server.stop();
    }
  });

  it("lets the editor's own settings win over the config", async () => {
    const server = new LspClient(['--stdio'], { PROXY_TUNER_NO_LOCAL_VERSION: '1' });
    server.onServerRequest = (m: RpcMessage) =>
      m.method === 'workspace/configuration'
        ? (m.params.items as any[]).map(() => ({ nginx: { version: '1.26.0' }, rules: { 'nginx/server-tokens-on': 'hint' } }))
        : null;
    try {
      await server.initialize();
      const site = await diagnostics(server, write('proj/site2/nginx.conf', HTTP2), HTTP2);
      assert.ok(!site.some((d) => d.code === 'nginx/needs-newer-version'), JSON.stringify(site));
      assert.equal(site.find((d) => d.code === 'nginx/server-tokens-on')?.severity, 4);
    } finally {
      await server.stop();
    }
  });
});
