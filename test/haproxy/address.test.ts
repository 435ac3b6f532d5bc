// Address forms on bind and server lines: our verdict against `haproxy -c` of the matrix (2.6,
// 3.0, 3.2) for a set of good and bad forms. Only loopback addresses go to the binaries (and
// `haproxy -c` binds nothing); wildcard forms are checked without them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { diagnose } from './helpers';
import { haproxyCheck, matrixBinaries, tempDir } from '../snippets/helpers';

const HEAD = 'defaults\n  mode tcp\n  timeout connect 5s\n  timeout client 5s\n  timeout server 5s\n';

function config(kind: 'bind' | 'server', addr: string): string {
  return kind === 'bind'
    ? `${HEAD}frontend f\n  bind ${addr}\n  default_backend b\nbackend b\n  server s 127.0.0.1:1\n`
    : `${HEAD}frontend f\n  bind 127.0.0.1:18997\n  default_backend b\nbackend b\n  server s ${addr}\n`;
}

/** Our errors on the address line (0-based line 6 for bind, 9 for server). */
function ours(kind: 'bind' | 'server', addr: string, version?: string): { errors: string[]; warnings: string[] } {
  const line = kind === 'bind' ? 6 : 9;
  const { diags } = diagnose(config(kind, addr), version ? { haproxyVersion: version } : {});
  const on = diags.filter((d) => d.range.start.line === line);
  return {
    errors: on.filter((d) => d.severity === 1).map((d) => `${d.code}: ${d.message}`),
    warnings: on.filter((d) => d.severity === 2).map((d) => `${d.code}: ${d.message}`),
  };
}

const SOCK = '/tmp/pt-address-test.sock';
const FORMS: Record<'bind' | 'server', { good: string[]; bad: string[] }> = {
  bind: {
    good: [
      '127.0.0.1:80',
      '[::1]:80',
      '::1:80',
      'ipv6@::1:80',
      'ipv6@[::1]:80',
      'ipv4@127.0.0.1:80',
      '127.0.0.1:8000-8010',
      '127.0.0.1:80-80',
      '127.0.0.1:65535',
      `unix@${SOCK}`,
      SOCK,
      'abns@pt-test',
      '127.0.0.1:80,127.0.0.1:81',
      'tcp4@127.0.0.1:80',
      'tcp6@[::1]:80',
      '127.0.0.2:8080',
    ],
    bad: [
      '127.0.0.1',
      '127.0.0.1:',
      'ipv4@::1:80',
      'ipv6@127.0.0.1:80',
      '127.0.0.1:8010-8000',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '127.0.0.1:99999',
      '127.0.0.1:+1',
      '127.0.0.1:-1',
      'fd@x',
      'fd@',
      'udp@127.0.0.1:80',
      '300.1.1.1:80',
      'ipv4@127.0.0.1',
      '127.0.0.1:80,127.0.0.1',
      '127.0.0.1:65016-',
      '127.0.0.1:65016--1024',
      '127.0.0.1:0-11',
      '127.0.0.1:66016-1024',
      '127.0.0.1:80-',
    ],
  },
  server: {
    good: [
      '127.0.0.1:80',
      '127.0.0.1',
      '[::1]:80',
      '::1:80',
      'ipv6@::1:80',
      'ipv4@127.0.0.1:80',
      '127.0.0.1:0',
      '127.0.0.1:+1',
      '127.0.0.1:-1',
      '127.0.0.1:',
      `unix@${SOCK}`,
      'abns@pt-test',
      'ipv4@127.0.0.1',
      '127.0.0.1:65535',
    ],
    bad: [
      'ipv4@::1:80',
      'ipv6@127.0.0.1:80',
      '127.0.0.1:8000-8010',
      '127.0.0.1:65536',
      'fd@3',
      'fd@x',
      'udp@127.0.0.1:80',
      '127.0.0.1:80,127.0.0.1:81',
      '300.1.1.1:80',
      '127.0.0.1:13005-13010',
    ],
  },
};

describe('address forms (pure)', () => {
  for (const kind of ['bind', 'server'] as const) {
    it(`${kind}: good forms draw nothing, bad ones an error`, () => {
      for (const a of FORMS[kind].good) assert.deepEqual(ours(kind, a), { errors: [], warnings: [] }, `${kind} ${a}`);
      for (const a of FORMS[kind].bad) assert.ok(ours(kind, a).errors.length, `${kind} ${a}: expected an error`);
    });
  }

  it('wildcard forms and variables', () => {
    for (const a of [':80', '*:80', ':::80', '[::]:443', '${ADDR}:80', '"${ADDR}"'])
      assert.deepEqual(ours('bind', a), { errors: [], warnings: [] }, a);
  });

  it('messages say what is wrong', () => {
    assert.match(ours('bind', '127.0.0.1').errors[0], /address: 'bind 127\.0\.0\.1' needs a port/);
    assert.match(ours('bind', '127.0.0.1:8010-8000').errors[0], /first port must not be above the last/);
    assert.match(ours('server', '127.0.0.1:8000-8010').errors[0], /port range .* is for 'bind'/);
    assert.match(ours('bind', '127.0.0.1:+1').errors[0], /port offset .* is for servers/);
    assert.match(ours('bind', 'ipv4@::1:80').errors[0], /IPv6 address; 'ipv4@' takes IPv4/);
    assert.match(ours('bind', 'fd@x').errors[0], /needs a file descriptor number/);
    assert.match(ours('server', 'fd@3').errors[0], /cannot connect through a file descriptor/);
    assert.match(ours('bind', 'udp@127.0.0.1:80').errors[0], /datagram address/);
  });

  it('trailing junk in a port: refused from 3.0, read as the number by 2.6', () => {
    assert.equal(ours('bind', '127.0.0.1:80x', '3.2').errors.length, 1);
    assert.deepEqual(ours('bind', '127.0.0.1:80x', '2.6').errors, []);
    assert.match(ours('bind', '127.0.0.1:80x', '2.6').warnings[0], /reads port '80x' as 80/);
  });
});

const bins = matrixBinaries('haproxy', ['2.6', '3.0', '3.2']);

describe('address forms against the real haproxy -c', { skip: !bins.length && 'no haproxy binaries' }, () => {
  for (const bin of bins) {
    it(`haproxy ${bin.version}: refuses exactly the forms we report as errors`, () => {
      const dir = tempDir('address');
      const disagree: string[] = [];
      try {
        for (const kind of ['bind', 'server'] as const) {
          for (const a of [...FORMS[kind].good, ...FORMS[kind].bad, '127.0.0.1:80x', 'abnsz@pt-test']) {
            const r = haproxyCheck(bin, dir, config(kind, a));
            const refused = r.status !== 0;
            const mine = ours(kind, a, bin.version).errors;
            if (refused !== mine.length > 0)
              disagree.push(
                `${kind} ${a}: haproxy ${refused ? 'refuses' : 'accepts'} (${r.output.split('\n').filter((l) => /ALERT/.test(l))[0] ?? ''}), we say ${mine.join('; ') || 'nothing'}`,
              );
          }
        }
        assert.deepEqual(disagree, []);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(join(SOCK), { force: true });
      }
    });
  }
});
