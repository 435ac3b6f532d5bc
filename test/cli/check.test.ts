// `proxy-tuner check` as a user runs it: the built command line (`node bin/proxy-tuner.js`) in a
// subprocess, on fixture files in a temp dir. Checks the text and JSON shapes, the exit codes
// (0 clean or warnings only, 1 errors, 2 bad usage) and `--fix`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, ensureBuilt } from './build';

let dir: string;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Run {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'proxy-tuner.js'), ...args], {
    cwd: dir,
    input,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let folders = 0;

/**
 * Writes a fixture into a folder of its own (HAProxy loads every `.cfg` of a folder together,
 * so neighbours could change each other's findings) and returns its path relative to `dir`.
 */
function write(name: string, text: string): string {
  const rel = join(`case-${++folders}`, name);
  mkdirSync(join(dir, `case-${folders}`), { recursive: true });
  writeFileSync(join(dir, rel), text);
  return rel;
}

const TEXT_LINE =
  /^(?<file>[^:\n]+):(?<line>\d+):(?<col>\d+): (?<severity>error|warning|information|hint): (?<message>.+) \[(?<code>[a-z]+\/[a-z0-9-]+)\]$/;

interface TextProblem {
  file: string;
  line: number;
  col: number;
  severity: string;
  message: string;
  code: string;
}

function textProblems(stdout: string): TextProblem[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = TEXT_LINE.exec(l);
      assert.ok(m?.groups, `not a compiler-style line: ${JSON.stringify(l)}`);
      const g = m.groups;
      return { file: g.file, line: Number(g.line), col: Number(g.col), severity: g.severity, message: g.message, code: g.code };
    });
}

// A clean config, one with an error on a known line, one with only a tuning warning.
const CLEAN_NGINX = `events {}
http {
  server {
    listen 127.0.0.1:8080;
    location / {
      return 200 "ok";
    }
  }
}
`;
const ERROR_NGINX = `events {}
http {
  server {
    listn 8080;
    location / {
      return 200 "ok";
    }
  }
}
`;
const CLEAN_HAPROXY = `global
    maxconn 1000

defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend web
    bind 127.0.0.1:8080
    default_backend app

backend app
    server app1 127.0.0.1:9000 check
`;
const ERROR_HAPROXY = `global
    maxconn 1000

defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend web
    bnd 127.0.0.1:8080
    default_backend app

backend app
    server app1 127.0.0.1:9000 check
`;

// HAProxy without timeouts: HAProxy itself only warns, and so do we.
const WARNING_HAPROXY = `defaults
    mode http

frontend web
    bind 127.0.0.1:8080
    default_backend app

backend app
    server app1 127.0.0.1:9000
`;
// `http2 on` exists since nginx 1.25.1.
const HTTP2_NGINX = `events {}
http {
  server {
    listen 127.0.0.1:8443;
    http2 on;
  }
}
`;

/** A folder holding a fake `nginx` that reports `version`, to stand for the local binary. */
function fakeNginxOnPath(version: string): string {
  const bin = join(dir, `fake-nginx-${version}`);
  mkdirSync(bin, { recursive: true });
  const exe = join(bin, 'nginx');
  writeFileSync(exe, `#!/bin/sh\necho "nginx version: nginx/${version}" >&2\n`);
  chmodSync(exe, 0o755);
  return bin;
}

describe('proxy-tuner check (built CLI in a subprocess)', () => {
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-cli-'));
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('usage', () => {
    it('exits 2 with usage on stderr when no command or no file is given', () => {
      for (const args of [[], ['check'], ['check', '--format', 'json']]) {
        const r = cli(args);
        assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /Usage: proxy-tuner/);
        assert.equal(r.stdout, '');
      }
    });

    it('exits 2 on an unknown flag, a bad --format, a missing flag value, an unknown command', () => {
      const file = write('usage-nginx.conf', CLEAN_NGINX);
      const cases: [string[], RegExp][] = [
        [['check', '--frobnicate', file], /unknown option '--frobnicate'/],
        [['check', '--format', 'xml', file], /must be one of text, json, sarif, github/],
        [['check', file, '--nginx-version'], /needs a value/],
        [['check', '--fix=yes', file], /takes no value/],
        [['frobnicate'], /unknown command 'frobnicate'/],
      ];
      for (const [args, message] of cases) {
        const r = cli(args);
        assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
      }
    });

    it('exits 2 naming the file when a file does not exist or is a folder holding no config', () => {
      const file = write('exists.conf', CLEAN_NGINX);
      let r = cli(['check', file, 'missing.conf']);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /missing\.conf: no such file/);
      mkdirSync(join(dir, 'empty-folder', 'sub'), { recursive: true });
      writeFileSync(join(dir, 'empty-folder', 'notes.md'), '# not a config\n');
      r = cli(['check', 'empty-folder']);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /empty-folder: is a directory holding no nginx or HAProxy config/);
    });

    it('prints help and the package version with exit 0', () => {
      let r = cli(['--help']);
      assert.equal(r.status, 0);
      assert.match(r.stdout, /check FILE/);
      assert.match(r.stdout, /bench/);
      r = cli(['check', '--help']);
      assert.equal(r.status, 0);
      assert.match(r.stdout, /--format text\|json/);
      r = cli(['--version']);
      assert.equal(r.status, 0);
      const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
      assert.equal(r.stdout.trim(), pkg.version);
    });
  });

  describe('results', () => {
    it('exits 0 with no problem lines on clean nginx and HAProxy configs', () => {
      const n = write('clean-nginx.conf', CLEAN_NGINX);
      const h = write('clean-haproxy.cfg', CLEAN_HAPROXY);
      const r = cli(['check', '--nginx-version', '1.22.1', '--haproxy-version', '2.6', n, h]);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.deepEqual(
        textProblems(r.stdout).filter((p) => p.severity === 'error'),
        [],
      );
      assert.match(r.stderr, /2 files checked: 0 errors/);
      // the end of life of the binary: once per run, not a finding on each file
      assert.equal(r.stderr.match(/end-of-life/g)?.length, 1, r.stderr);
      assert.match(r.stderr, /note: nginx 1\.22\.1 is end-of-life upstream \(branch 1\.22 ended 2023-04\); Debian 12 still patches it/);
      assert.ok(!r.stdout.includes('version-end-of-life'), r.stdout);
      const two = cli(['check', '--nginx-version', '1.22.1', n, write('clean-nginx-2.conf', CLEAN_NGINX)]);
      assert.equal(two.stderr.match(/end-of-life/g)?.length, 1, two.stderr);
      const j = cli(['check', '--format', 'json', '--nginx-version', '1.22.1', '--haproxy-version', '2.6', n, h]);
      assert.equal(j.status, 0);
      assert.deepEqual(
        (JSON.parse(j.stdout) as { severity: string }[]).filter((p) => p.severity === 'error'),
        [],
      );
    });

    it('reports an nginx error like a compiler, 1-based, and exits 1', () => {
      const file = write('error-nginx.conf', ERROR_NGINX);
      const r = cli(['check', file]);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      const problems = textProblems(r.stdout);
      const unknown = problems.find((p) => p.code === 'nginx/unknown-directive');
      assert.ok(unknown, r.stdout);
      assert.deepEqual([unknown.file, unknown.line, unknown.col, unknown.severity], [file, 4, 5, 'error']);
      assert.match(unknown.message, /listn/);
    });

    it('reports a HAProxy error and exits 1; the language comes from the file name', () => {
      const file = write('haproxy.cfg', ERROR_HAPROXY);
      const r = cli(['check', file]);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      const bad = textProblems(r.stdout).find((p) => p.severity === 'error');
      assert.ok(bad, r.stdout);
      assert.ok(bad.code.startsWith('haproxy/'), bad.code);
      assert.deepEqual([bad.line, bad.col], [11, 5]);
    });

    it('counts lines and columns the same with CRLF line ends', () => {
      const file = write('crlf-nginx.conf', ERROR_NGINX.replace(/\n/g, '\r\n'));
      const r = cli(['check', file]);
      assert.equal(r.status, 1);
      const unknown = textProblems(r.stdout.replace(/\r/g, '')).find((p) => p.code === 'nginx/unknown-directive');
      assert.deepEqual([unknown?.line, unknown?.col], [4, 5]);
      assert.ok(!r.stdout.includes('\r'), 'a message carries a CR');
    });

    it('gives JSON with 0-based LSP positions that match the text output', () => {
      const file = write('json-nginx.conf', ERROR_NGINX);
      const text = textProblems(cli(['check', file]).stdout);
      const r = cli(['check', '--format', 'json', file]);
      assert.equal(r.status, 1);
      const problems = JSON.parse(r.stdout) as any[];
      assert.ok(Array.isArray(problems) && problems.length === text.length && problems.length > 0);
      for (const [i, p] of problems.entries()) {
        assert.deepEqual(Object.keys(p).sort(), ['code', 'file', 'message', 'range', 'severity']);
        assert.equal(p.file, file);
        assert.ok(['error', 'warning', 'information', 'hint'].includes(p.severity));
        for (const end of [p.range.start, p.range.end]) {
          assert.ok(Number.isInteger(end.line) && Number.isInteger(end.character), JSON.stringify(p.range));
        }
        assert.equal(p.range.start.line + 1, text[i].line);
        assert.equal(p.range.start.character + 1, text[i].col);
        assert.equal(p.code, text[i].code);
        assert.equal(p.severity, text[i].severity);
      }
      const unknown = problems.find((p) => p.code === 'nginx/unknown-directive');
      assert.deepEqual(unknown.range, { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } });
    });

    it('exits 0 when the problems are warnings at most', () => {
      const file = write('warn-haproxy.cfg', WARNING_HAPROXY);
      // missing-timeout is opt-in (core/tiers.ts): selected by name
      const r = cli(['check', '--extend-select', 'haproxy/missing-timeout', '--format', 'json', file]);
      const problems = JSON.parse(r.stdout) as any[];
      assert.ok(
        problems.some((p) => p.code === 'haproxy/missing-timeout' && p.severity === 'warning'),
        r.stdout,
      );
      assert.ok(
        problems.every((p) => p.severity !== 'error'),
        r.stdout,
      );
      assert.equal(r.status, 0);
      const t = cli(['check', '--extend-select', 'haproxy/missing-timeout', file]);
      assert.equal(t.status, 0);
      assert.ok(textProblems(t.stdout).some((p) => p.severity === 'warning' && p.code === 'haproxy/missing-timeout'));
      assert.ok(!textProblems(cli(['check', file]).stdout).some((p) => p.code === 'haproxy/missing-timeout'), 'not in the default set');
      assert.ok(
        !textProblems(cli(['check', '--select', 'all', '--ignore', 'haproxy/missing-timeout,pedantic', file]).stdout).some(
          (p) => p.code === 'haproxy/missing-timeout',
        ),
        '--ignore (comma-separated) wins',
      );
    });
  });

  describe('stdin', () => {
    it('checks a config read from stdin, named by --stdin-filename', () => {
      const named = cli(['check', '--stdin-filename', 'edge/lb.cfg', '-'], {}, ERROR_HAPROXY);
      assert.equal(named.status, 1, named.stderr);
      const p = textProblems(named.stdout).find((x) => x.severity === 'error');
      assert.deepEqual([p?.file, p?.line, p?.col, p?.code], ['edge/lb.cfg', 11, 5, 'haproxy/unknown-keyword']);
      // Without a name the content tells the language.
      const anonymous = cli(['check', '--format', 'json', '-'], {}, ERROR_NGINX);
      assert.equal(anonymous.status, 1);
      const problems = JSON.parse(anonymous.stdout) as any[];
      assert.ok(
        problems.some((x) => x.file === '<stdin>' && x.code === 'nginx/unknown-directive'),
        anonymous.stdout,
      );
    });

    it('fixes stdin to stdout, and refuses a second -', () => {
      const fixed = cli(['check', '--fix', '-'], {}, ERROR_NGINX);
      assert.equal(fixed.status, 0);
      assert.equal(fixed.stdout, cli(['check', '--fix', write('stdin-same.conf', ERROR_NGINX)]).stdout);
      const twice = cli(['check', '-', '-'], {}, ERROR_NGINX);
      assert.equal(twice.status, 2);
      assert.match(twice.stderr, /stdin \(-\) can be read once/);
    });
  });

  describe('target version', () => {
    it('judges against --nginx-version', () => {
      const file = write('http2-nginx.conf', HTTP2_NGINX);
      const old = cli(['check', '--nginx-version', '1.22.1', file]);
      assert.equal(old.status, 1, old.stdout);
      const p = textProblems(old.stdout).find((x) => x.code === 'nginx/needs-newer-version');
      assert.deepEqual([p?.line, p?.col], [5, 5]);
      const recent = cli(['check', '--nginx-version=1.25.1', file]);
      assert.equal(recent.status, 0, recent.stdout);
      assert.deepEqual(
        textProblems(recent.stdout).filter((x) => x.code === 'nginx/needs-newer-version'),
        [],
      );
    });

    it('judges against --haproxy-version', () => {
      // `ocsp-update.mode` (global) exists since HAProxy 3.0.
      const file = write('ocsp-haproxy.cfg', 'global\n    maxconn 1000\n    ocsp-update.mode on\n');
      const old = cli(['check', '--haproxy-version', '2.6', file]);
      assert.equal(old.status, 1, old.stdout);
      const p = textProblems(old.stdout).find((x) => x.code === 'haproxy/needs-newer-version');
      assert.deepEqual([p?.line, p?.col], [3, 5]);
      const recent = cli(['check', '--haproxy-version', '3.0', file]);
      assert.deepEqual(
        textProblems(recent.stdout).filter((x) => x.code === 'haproxy/needs-newer-version'),
        [],
      );
    });

    it('defaults to the local nginx -v, and to the newest without one', () => {
      const file = write('http2-default.conf', HTTP2_NGINX);
      const local122 = cli(['check', file], { PATH: fakeNginxOnPath('1.22.1') });
      assert.equal(local122.status, 1, local122.stdout + local122.stderr);
      assert.match(local122.stdout, /needs nginx >= 1\.25\.1 \(target is 1\.22\.1\)/);
      const local126 = cli(['check', file], { PATH: fakeNginxOnPath('1.26.2') });
      assert.equal(local126.status, 0, local126.stdout);
      // No local binary at all (probe off): judged as the newest version.
      const newest = cli(['check', file], { PROXY_TUNER_NO_LOCAL_VERSION: '1' });
      assert.equal(newest.status, 0, newest.stdout);
      // An explicit flag beats the local binary.
      const flagged = cli(['check', '--nginx-version', '1.24.0', file], { PATH: fakeNginxOnPath('1.26.2') });
      assert.equal(flagged.status, 1);
    });
  });

  describe('--fix', () => {
    it('prints the file with the safe fixes applied, never the unsafe ones, and exits 0', () => {
      const file = write('fix-nginx.conf', ERROR_NGINX);
      const before = JSON.parse(cli(['check', '--select', 'all', '--format', 'json', file]).stdout) as any[];
      const r = cli(['check', '--select', 'all', '--fix', file]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(readFileSync(join(dir, file), 'utf8'), ERROR_NGINX, '--fix must not write the file');
      assert.notEqual(r.stdout, ERROR_NGINX, `nothing was fixed; findings: ${JSON.stringify(before.map((p) => p.code))}`);
      // "listn" has only a suggestion ("did you mean listen"), which is not safe: it stays.
      assert.match(r.stdout, /^ {4}listn 8080;$/m);
      // Checked again, the fixed text has fewer findings and no new kind of finding.
      const fixed = write('fixed-nginx.conf', r.stdout);
      const after = JSON.parse(cli(['check', '--select', 'all', '--format', 'json', fixed]).stdout) as any[];
      assert.ok(after.length < before.length, `before: ${JSON.stringify(before)}\nafter: ${JSON.stringify(after)}`);
      const beforeCodes = new Set(before.map((p) => p.code));
      assert.deepEqual(
        after.filter((p) => !beforeCodes.has(p.code)),
        [],
      );
      assert.ok(after.some((p) => p.code === 'nginx/unknown-directive'));
    });

    it('reaches a fixed point: fixing the fixed text changes nothing', () => {
      for (const [name, text] of [
        ['fixpoint-nginx.conf', CLEAN_NGINX],
        ['fixpoint-haproxy.cfg', WARNING_HAPROXY],
      ] as const) {
        const once = cli(['check', '--fix', write(name, text)]);
        assert.equal(once.status, 0, once.stderr);
        const twice = cli(['check', '--fix', write(`again-${name}`, once.stdout)]);
        assert.equal(twice.status, 0);
        assert.equal(twice.stdout, once.stdout);
      }
    });

    it('refuses several files (exit 2)', () => {
      const a = write('fix-a.conf', CLEAN_NGINX);
      const b = write('fix-b.conf', CLEAN_NGINX);
      const r = cli(['check', '--fix', a, b]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /exactly one FILE/);
    });
  });
});
