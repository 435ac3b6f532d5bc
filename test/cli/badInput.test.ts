// Bad input gets a clear answer from every command: a binary file is refused as "not a text
// config" (exit 2) by check, format and bench; control characters in what the file says are
// escaped in terminal output; the line of an error is the same in check, bench and the editor's
// binary check for every line-end style (LF, CRLF, a lone CR); format refuses a file with syntax
// errors in both languages (exit 2); and every example passes `format --check`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readdirSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO } from './build';
import { runCli, tree } from './helpers';
import { checkWithBinary } from '../../server/src/host/binaryCheck';

/** The first 64 KiB of the node binary: an ELF file, like a binary saved under a config's name. */
function binaryBytes(): Buffer {
  const buf = Buffer.alloc(64 * 1024);
  const fd = openSync(process.execPath, 'r');
  try {
    readSync(fd, buf, 0, buf.length, 0);
  } finally {
    closeSync(fd);
  }
  return buf;
}

const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const NGINX_LINES = ['events {}', 'http {', '    server {', '        listen 127.0.0.1:1990;', '        bogus_directive on;', '    }', '}'];
const HAPROXY_LINES = [
  'defaults',
  '    mode http',
  '    timeout client 5s',
  '    timeout server 5s',
  '    timeout connect 5s',
  'frontend f',
  '    bind 127.0.0.1:1990',
  '    bogus_keyword x',
  '    default_backend b',
  'backend b',
  '    server s1 127.0.0.1:1980',
];
const ENDS = { LF: '\n', CRLF: '\r\n', CR: '\r' } as const;

describe('bad input', () => {
  let dir = '';
  before(() => {
    ensureBuilt();
    const files: Record<string, string> = {};
    for (const [name, nl] of Object.entries(ENDS)) {
      files[`ends-${name}/nginx.conf`] = NGINX_LINES.join(nl) + nl;
      files[`ends-${name}/haproxy.cfg`] = HAPROXY_LINES.join(nl) + nl;
    }
    files['esc/nginx.conf'] = 'events {}\nhttp {\n    server {\n        listen 127.0.0.1:1990;\n        bog\u001b[2Jus on;\n    }\n}\n';
    files['syntax/nginx.conf'] = 'events {}\nhttp {\n    server {\n        listen 127.0.0.1:1990\n}\n';
    files['syntax/haproxy.cfg'] = 'frontend f\n    bind 127.0.0.1:1990\n    acl x "unclosed\n    http-request deny if !\n';
    dir = tree(files);
    writeFileSync(join(dir, 'elf.cfg'), binaryBytes());
    writeFileSync(join(dir, 'elf.conf'), binaryBytes());
    writeFileSync(join(dir, 'nul.conf'), 'events {}\nhttp {\n    server_tokens off;\u0000\n}\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a binary file or one with NUL bytes: check, format and bench exit 2 with "not a text config"', () => {
    for (const f of ['elf.cfg', 'elf.conf', 'nul.conf']) {
      for (const args of [
        ['check', f],
        ['format', '--check', f],
        ['format', f],
        ['bench', f, '--duration', '1s'],
      ]) {
        const r = runCli(dir, args);
        assert.equal(r.status, 2, `${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
        assert.match(r.stderr, /not a text config/, `${args.join(' ')}`);
        assert.doesNotMatch(r.stdout + r.stderr, RAW_CONTROL, `${args.join(' ')}: raw control bytes on the terminal`);
      }
    }
  });

  it('control characters the file holds are escaped in check and bench output', () => {
    const check = runCli(dir, ['check', 'esc/nginx.conf']);
    assert.equal(check.status, 1, check.stderr);
    assert.match(check.stdout, /esc\/nginx\.conf:5:9: error: unknown directive "bog\\x1b\[2Jus"/);
    assert.doesNotMatch(check.stdout + check.stderr, RAW_CONTROL);
    const bench = runCli(dir, ['bench', 'esc/nginx.conf', '--duration', '1s']);
    assert.equal(bench.status, 1, bench.stderr);
    assert.match(bench.stderr, /unknown directive "bog\\x1b\[2Jus"/);
    assert.doesNotMatch(bench.stdout + bench.stderr, RAW_CONTROL);
  });

  for (const [name] of Object.entries(ENDS)) {
    it(`line ends ${name}: check, bench and the editor's binary check name the same line`, async () => {
      for (const [file, line, word] of [
        [`ends-${name}/nginx.conf`, 5, 'bogus_directive'],
        [`ends-${name}/haproxy.cfg`, 8, 'bogus_keyword'],
      ] as const) {
        const check = runCli(dir, ['check', file]);
        const at = new RegExp(`${file.replace(/[./]/g, '\\$&')}:(\\d+):\\d+: error: .*${word}`).exec(check.stdout);
        assert.ok(at, `check ${file}: ${check.stdout}`);
        assert.equal(Number(at[1]), line, `check ${file}`);
        const bench = runCli(dir, ['bench', file, '--duration', '1s']);
        assert.equal(bench.status, 1, `bench ${file}: ${bench.stderr}`);
        const b = new RegExp(`${file.replace(/[./]/g, '\\$&')}:(\\d+)`).exec(bench.stderr);
        assert.ok(b, `bench ${file}: ${bench.stderr}`);
        assert.equal(Number(b[1]), line, `bench ${file}: ${bench.stderr}`);
        const editor = await checkWithBinary({ configPath: join(dir, file) });
        const m = editor.messages.find((x) => x.severity === 'error');
        assert.equal(m?.line, line, `editor ${file}: ${JSON.stringify(editor.messages)}`);
      }
    });
  }

  it('format exits 2 on syntax errors in both languages and changes nothing', () => {
    for (const f of ['syntax/nginx.conf', 'syntax/haproxy.cfg']) {
      for (const args of [
        ['format', '--check', f],
        ['format', '--write', f],
      ]) {
        const r = runCli(dir, args);
        assert.equal(r.status, 2, `${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
        assert.match(r.stderr, /not formatted/);
        assert.doesNotMatch(r.stderr, /formatted\.$/m);
      }
    }
  });

  it('every example passes format --check', () => {
    const examples = join(REPO, 'examples');
    const files = readdirSync(examples, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(conf|cfg)$/.test(e.name))
      .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
    assert.ok(files.length >= 4, files.join(', '));
    for (const f of files) {
      const r = runCli(REPO, ['format', '--check', f]);
      assert.equal(r.status, 0, `${f}: ${r.stderr}`);
    }
  });
});
