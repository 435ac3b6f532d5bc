// The planner reads as the binaries read (issue 33): quoted or escaped keywords, conditional
// blocks, bare CRs, refused keywords in any section, and the directives that run programs or
// read and write files of their own; and host-side reads that cannot hang (devices behind links,
// FIFOs, files over the cap). Each case plans a real file; a refusal names the line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { planSandbox, SandboxRefusal } from '../../server/src/runner/sandbox';
import {
  BACKEND_SLOTS,
  makeSandboxDir,
  makeTlsPair,
  readTextSafe,
  redactQuoted,
  removeSandboxDir,
} from '../../server/src/runner/sandbox/common';

const HAPROXY_BASE =
  'defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\nfrontend f\n  bind :8080\n  default_backend b\nbackend b\n  server s 10.0.0.1:80\n';
const NGINX_BASE = 'events {}\nhttp {\n  server {\n    listen 8080;\n    location / { return 200; }\n  }\n}\n';

function plan(kind: 'nginx' | 'haproxy', text: string, extra: Record<string, string> = {}): { refusal?: SandboxRefusal; copy?: string } {
  const src = mkdtempSync(join(os.tmpdir(), 'pt-planner-'));
  const dir = makeSandboxDir();
  try {
    for (const [n, t] of Object.entries(extra)) writeFileSync(join(src, n), t);
    const file = join(src, kind === 'nginx' ? 'nginx.conf' : 'haproxy.cfg');
    writeFileSync(file, text);
    const p = planSandbox(kind, { configPath: file, dir, backend: BACKEND_SLOTS, tls: makeTlsPair(dir, 'ecdsa'), contained: true });
    return { copy: p.files[0].text };
  } catch (e) {
    if (e instanceof SandboxRefusal) return { refusal: e };
    throw e;
  } finally {
    removeSandboxDir(dir);
    rmSync(src, { recursive: true, force: true });
  }
}

const refusedAt = (r: { refusal?: SandboxRefusal }, line: number, re: RegExp) => {
  assert.ok(r.refusal, 'refused');
  assert.equal(r.refusal.line, line, r.refusal.message);
  assert.match(r.refusal.message, re);
};

test('haproxy: a quoted or escaped keyword is refused (HAProxy reads "global", \'program\', \\x67lobal as the word)', () => {
  refusedAt(plan('haproxy', `${HAPROXY_BASE}"program" x\n  command /bin/sh -c id\n`), 11, /quotes or escapes/);
  refusedAt(plan('haproxy', `${HAPROXY_BASE}'global'\n  ssl-provider evil\n`), 11, /quotes or escapes/);
  refusedAt(plan('haproxy', `${HAPROXY_BASE}\\x67lobal\n`), 11, /quotes or escapes/);
  refusedAt(plan('haproxy', `${HAPROXY_BASE}  "ssl-provider" evil\n`), 11, /quotes or escapes/);
});

test('haproxy: conditional blocks are refused (they hide lines from HAProxy, not from a plan)', () => {
  refusedAt(plan('haproxy', `global\n.if 0\nfrontend hidden\n.endif\n  ssl-provider evil\n${HAPROXY_BASE}`), 2, /conditional blocks/);
  refusedAt(plan('haproxy', `${HAPROXY_BASE}  .else\n`), 11, /conditional blocks/);
});

test('haproxy: refused keywords apply in every section', () => {
  refusedAt(plan('haproxy', `${HAPROXY_BASE}  ssl-provider-path /tmp\n`), 11, /ssl-provider-path/);
  refusedAt(plan('haproxy', `${HAPROXY_BASE}  ssl-provider legacy\n`), 11, /ssl-provider/);
});

test('haproxy: a bare CR is a line break in the copy, so HAProxy and the plan read the same lines', () => {
  const r = plan('haproxy', `${HAPROXY_BASE}  http-request return status 200\rprogram x\n`);
  assert.ok(r.refusal, 'the `program` section after the CR is seen and refused');
  assert.match(r.refusal!.message, /program/);
});

test('haproxy: an SPOE engine file with its own log lines is refused', () => {
  const spoe =
    '[e]\nspoe-agent a\n  messages m\n  log 203.0.113.9:514 local0\n  use-backend b\nspoe-message m\n  args x=src\n  event on-frontend-http-request\n';
  refusedAt(
    plan('haproxy', HAPROXY_BASE.replace('  default_backend b', '  filter spoe engine e config spoe.conf\n  default_backend b'), {
      'spoe.conf': spoe,
    }),
    8,
    /SPOE configuration spoe\.conf has `log`/,
  );
});

test('nginx: rtmp exec*, xslt_stylesheet, ModSecurity remote rules and audit logs are refused', () => {
  refusedAt(
    plan('nginx', 'events {}\nrtmp {\n  server {\n    listen 1935;\n    application a { exec_static /bin/sh -c id; }\n  }\n}\n'),
    5,
    /exec_static/,
  );
  refusedAt(plan('nginx', NGINX_BASE.replace('return 200;', 'xslt_stylesheet /tmp/x.xslt;')), 5, /xslt_stylesheet/);
  refusedAt(plan('nginx', NGINX_BASE.replace('return 200;', 'modsecurity_rules_remote key http://203.0.113.1/r;')), 5, /downloads rules/);
  refusedAt(plan('nginx', NGINX_BASE.replace('return 200;', "modsecurity_rules 'SecAuditLog /etc/x.log';")), 5, /SecAuditLog/);
  refusedAt(
    plan('nginx', NGINX_BASE.replace('return 200;', 'modsecurity_rules_file rules.conf;'), {
      'rules.conf': 'SecRuleEngine On\nSecRemoteRules k http://203.0.113.1/r\n',
    }),
    5,
    /modsecurity_rules_file/,
  );
});

test('nginx: a bare CR is a line break in the copy, as the plan and the editor read it', () => {
  const r = plan('nginx', NGINX_BASE.replace('return 200;', 'return 200;\rproxy_pass http://10.0.0.9;'));
  assert.ok(!r.refusal, r.refusal?.message);
  assert.ok(!r.copy!.includes('\r'));
});

test('host-side reads: links to devices, FIFOs and files over the cap are never read (and never block)', () => {
  const d = mkdtempSync(join(os.tmpdir(), 'pt-planner-reads-'));
  try {
    symlinkSync('/dev/zero', join(d, 'zero.conf'));
    symlinkSync('/proc/self/environ', join(d, 'env.conf'));
    assert.equal(spawnSync('mkfifo', [join(d, 'fifo.conf')]).status, 0);
    writeFileSync(join(d, 'big.conf'), Buffer.alloc(9 * 1024 * 1024, 0x20));
    const t0 = Date.now();
    assert.throws(() => readTextSafe(join(d, 'zero.conf')), /\/proc, \/sys and \/dev/);
    assert.throws(() => readTextSafe(join(d, 'env.conf')), /\/proc, \/sys and \/dev/);
    assert.throws(() => readTextSafe(join(d, 'fifo.conf')), /not a regular file/);
    assert.throws(() => readTextSafe(join(d, 'big.conf')), /larger than/);
    assert.ok(Date.now() - t0 < 5000);
    // the same through the planner: an include of each is refused with its line, nothing hangs
    for (const [name, re] of [
      ['zero.conf', /never read/],
      ['env.conf', /never read/],
      ['fifo.conf', /not a regular file/],
    ] as const) {
      const r = plan('nginx', NGINX_BASE.replace('events {}', `events {}\ninclude ${join(d, name)};`));
      refusedAt(r, 2, re);
    }
    // and as the main config
    const sb = plan('haproxy', 'x');
    assert.ok(sb);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test("messages: quoted text that is not the user's own is not shown", () => {
  const own = 'acl bad src -f /etc/blocked.lst\n';
  const out = redactQuoted(
    "[ALERT] parsing [/x/haproxy.cfg:3] : error detected while parsing ACL 'bad' : 's3cr3t-T0ken' is not a valid IPv4 or IPv6 address at line 1 of file '/etc/blocked.lst'.",
    own,
  );
  assert.ok(!out.includes('s3cr3t-T0ken'), out);
  assert.match(out, /'bad'/);
  assert.match(out, /'\/etc\/blocked\.lst'/);
});
