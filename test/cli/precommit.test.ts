// The repo's .pre-commit-hooks.yaml under Debian's `pre-commit`, offline: a throw-away hooks
// repository holding our .pre-commit-hooks.yaml (pre-commit clones it by its local path, so
// nothing is fetched; the hooks are `language: system`, so nothing is installed), a throw-away
// project repository using both hooks, and `proxy-tuner` on PATH as a user's install puts it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, ensureBuilt } from './build';
import { BIN } from './helpers';

const havePreCommit = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' }).status === 0;
// CI installs it (scripts/install-system-packages.sh): there a missing pre-commit is a failure
const skip = !havePreCommit && process.env.CI !== 'true' ? 'pre-commit is not installed (apt-get install pre-commit)' : false;

let root: string;
let env: NodeJS.ProcessEnv;

function sh(cwd: string, cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, error: r.error };
}

function git(cwd: string, ...args: string[]) {
  const r = sh(cwd, 'git', args);
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.out}`);
  return r.out.trim();
}

const BAD_NGINX = 'events {}\nhttp {\n    server {\n        listn 8080;\n    }\n}\n';
const UGLY_NGINX = 'events {}\nhttp {\nserver {\n  listen 127.0.0.1:8080;\n}\n}\n';
const GOOD_NGINX = 'events {}\nhttp {\n    server {\n        listen 127.0.0.1:8080;\n    }\n}\n';

describe('pre-commit hooks (.pre-commit-hooks.yaml)', { skip }, () => {
  before(() => {
    ensureBuilt();
    root = mkdtempSync(join(tmpdir(), 'proxy-tuner-precommit-'));
    // `proxy-tuner` on PATH, as `npm install -g` would put it
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'proxy-tuner'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'proxy-tuner'), 0o755);
    env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      PRE_COMMIT_HOME: join(root, 'cache'),
      PROXY_TUNER_NO_LOCAL_VERSION: '1',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: root,
    };
    // the hooks repository: our hooks file, committed
    const hooks = join(root, 'hooks');
    mkdirSync(hooks);
    git(hooks, 'init', '-q');
    copyFileSync(join(REPO, '.pre-commit-hooks.yaml'), join(hooks, '.pre-commit-hooks.yaml'));
    git(hooks, 'add', '.');
    git(hooks, 'commit', '-qm', 'hooks');
    const rev = git(hooks, 'rev-parse', 'HEAD');
    // the project using them
    const project = join(root, 'project');
    mkdirSync(join(project, 'conf.d'), { recursive: true });
    git(project, 'init', '-q');
    writeFileSync(
      join(project, '.pre-commit-config.yaml'),
      `repos:\n  - repo: ${hooks}\n    rev: ${rev}\n    hooks:\n      - id: proxy-tuner-check\n      - id: proxy-tuner-format\n`,
    );
    writeFileSync(join(project, 'README.md'), 'not a config\n');
    git(project, 'add', '.');
    git(project, 'commit', '-qm', 'start');
    const install = sh(project, 'pre-commit', ['install']);
    assert.equal(install.status, 0, install.out);
  });

  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('blocks a commit with an error, then with an unformatted file, and lets a clean one through', () => {
    const project = join(root, 'project');
    // an error: the check hook fails and names the problem
    writeFileSync(join(project, 'conf.d', 'site.conf'), BAD_NGINX);
    git(project, 'add', '.');
    let r = sh(project, 'git', ['commit', '-qm', 'bad']);
    assert.notEqual(r.status, 0, r.out);
    assert.match(r.out, /proxy-tuner check\.+Failed/);
    assert.match(r.out, /conf\.d\/site\.conf:4:9: error: .*listn.* \[nginx\/unknown-directive\]/);
    // valid but unformatted: check passes, format --check fails naming the file
    writeFileSync(join(project, 'conf.d', 'site.conf'), UGLY_NGINX);
    git(project, 'add', '.');
    r = sh(project, 'git', ['commit', '-qm', 'ugly']);
    assert.notEqual(r.status, 0, r.out);
    assert.match(r.out, /proxy-tuner check\.+Passed/);
    assert.match(r.out, /proxy-tuner format --check\.+Failed/);
    assert.match(r.out, /\[warn\] conf\.d\/site\.conf/);
    assert.equal(readFileSync(join(project, 'conf.d', 'site.conf'), 'utf8'), UGLY_NGINX, 'the hook changes no file');
    // formatted and valid: the commit goes through
    writeFileSync(join(project, 'conf.d', 'site.conf'), GOOD_NGINX);
    git(project, 'add', '.');
    r = sh(project, 'git', ['commit', '-qm', 'good']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /proxy-tuner check\.+Passed/);
    assert.match(r.out, /proxy-tuner format --check\.+Passed/);
    assert.equal(git(project, 'log', '-1', '--format=%s'), 'good');
  });

  it('skips files that are not configs', () => {
    const project = join(root, 'project');
    writeFileSync(join(project, 'README.md'), 'listn 80;\n');
    git(project, 'add', '.');
    const r = sh(project, 'pre-commit', ['run', '--files', 'README.md']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /proxy-tuner check\.+\(no files to check\)Skipped/);
  });
});
