// The npm package as a user of another editor installs it: `npm pack` of this checkout, then
// `npm install -g` of the tarball into an empty prefix with no registry (--offline: the package
// must need nothing but itself), then the two commands it provides, run from an unrelated folder
// with node's module search cut off from this repository.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, ensureBuilt } from './build';
import { LspClient, completionLabels, hoverText } from '../lsp/rpcClient';
import { HAPROXY_FIXTURE, NGINX_FIXTURE } from '../lsp/fixtures';

const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
const skip = npm.status === 0 || process.env.CI ? false : 'npm is not on PATH';

describe('npm pack, npm install -g of the tarball, and the installed commands', { skip, timeout: 180_000 }, () => {
  let dir: string;
  let prefix: string;
  let pkgDir: string;
  let tarball: string;
  let work: string;
  const env = (): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
      PROXY_TUNER_NO_LOCAL_VERSION: '1',
      PROXY_TUNER_CACHE_DIR: join(dir, 'cache'),
    };
    delete e.NODE_PATH;
    delete e.NODE_OPTIONS;
    return e;
  };

  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-pack-'));
    prefix = join(dir, 'prefix');
    work = mkdtempSync(join(dir, 'work-'));
    // the bundles as built; --ignore-scripts: `prepare` would rebuild dist/ of this checkout
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(pack.status, 0, pack.stderr);
    const [info] = JSON.parse(pack.stdout) as { filename: string }[];
    tarball = join(dir, info.filename);
    const install = spawnSync(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', '--cache', join(dir, 'npm-cache'), tarball],
      { cwd: work, encoding: 'utf8', timeout: 60_000, env: env() },
    );
    assert.equal(install.status, 0, `${install.stdout}\n${install.stderr}`);
    pkgDir = join(prefix, 'lib', 'node_modules', 'proxy-tuner');
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs the bundles and launchers only: no dependencies, no sources, no source maps', () => {
    assert.ok(existsSync(join(prefix, 'bin', 'proxy-tuner')));
    assert.ok(existsSync(join(prefix, 'bin', 'proxy-tuner-language-server')));
    assert.equal(existsSync(join(pkgDir, 'node_modules')), false, 'the package pulled in dependencies');
    const dist = readdirSync(join(pkgDir, 'dist'));
    for (const f of ['cli.js', 'cli-main.js', 'server.js', 'nginx-reference.js']) assert.ok(dist.includes(f), `${f} missing: ${dist}`);
    assert.deepEqual(
      dist.filter((f) => f.endsWith('.map') || ['extension.js', 'webview.js'].includes(f)),
      [],
    );
    for (const d of ['client', 'server', 'cli', 'test', 'node_modules']) assert.equal(existsSync(join(pkgDir, d)), false, d);
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    assert.equal(pkg.dependencies, undefined, 'runtime dependencies would need a registry');
  });

  it('`proxy-tuner check` judges a config', () => {
    const conf = join(work, 'nginx.conf');
    writeFileSync(conf, NGINX_FIXTURE.text);
    const r = spawnSync('proxy-tuner', ['check', '--format', 'json', conf], { cwd: work, encoding: 'utf8', timeout: 60_000, env: env() });
    assert.equal(r.status, 1, `an error in the config: exit 1\n${r.stderr}`);
    assert.match(r.stdout, /nginx\/unknown-directive/);
    const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
    const v = spawnSync('proxy-tuner', ['--version'], { cwd: work, encoding: 'utf8', timeout: 30_000, env: env() });
    assert.equal(v.stdout.trim(), version);
    const sv = spawnSync('proxy-tuner-language-server', ['--version'], { cwd: work, encoding: 'utf8', timeout: 30_000, env: env() });
    assert.equal(sv.stdout.trim(), version);
  });

  it('`proxy-tuner-language-server --stdio` answers initialize, diagnostics, completion and hover', async () => {
    const client = new LspClient(['--stdio'], env(), [], join(prefix, 'bin', 'proxy-tuner-language-server'), work);
    try {
      const init = await client.initialize();
      assert.ok(init.capabilities.completionProvider);
      for (const f of [NGINX_FIXTURE, HAPROXY_FIXTURE]) {
        const file = join(work, f.fileName);
        writeFileSync(file, f.text);
        const uri = pathToFileURL(file).href;
        client.notify('textDocument/didOpen', { textDocument: { uri, languageId: f.language, version: 1, text: f.text } });
        const diags = await client.diagnosticsFor(uri, 1, 30_000);
        const d = diags.find((x) => x.code === f.diagnostic.code);
        assert.ok(d, JSON.stringify(diags));
        assert.deepEqual(d.range, f.diagnostic.range);
        const labels = completionLabels(
          await client.request('textDocument/completion', { textDocument: { uri }, position: f.completion.position }),
        );
        for (const l of f.completion.mustInclude) assert.ok(labels.includes(l), `${l} not in ${labels.slice(0, 30)}`);
        assert.match(
          hoverText(await client.request('textDocument/hover', { textDocument: { uri }, position: f.hover.position })),
          f.hover.mustMatch,
        );
      }
      assert.deepEqual(client.protocolErrors, []);
    } finally {
      await client.stop();
    }
  });
});
