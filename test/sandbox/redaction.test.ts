// A file the config reads (`acl -f`, `geo { include }`, a plain include) whose text is one
// lowercase word: the binaries quote it in their messages, and the engine shows a quoted word only
// when it is the user's (a word of their config), the product's (a directive or keyword), a path
// of their files or a number (issue 33). Run on the real binaries through both paths that show
// messages: the benchmark's config test (ProxySandbox.start) and the editor's Validate
// (checkWithBinary).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { ProxySandbox } from '../../server/src/runner/sandbox';
import { redactQuoted } from '../../server/src/runner/sandbox/common';
import { checkWithBinary } from '../../server/src/host/binaryCheck';

const WORD = 'zebrafooquux';
const skip = !existsSync('/usr/sbin/nginx') || !existsSync('/usr/sbin/haproxy') ? 'host nginx/haproxy missing' : false;

function cases(dir: string): { kind: 'nginx' | 'haproxy'; label: string; config: string }[] {
  const geo = join(dir, 'geo.lst');
  const inc = join(dir, 'inc.conf');
  const acl = join(dir, 'acl.lst');
  writeFileSync(geo, `${WORD} yak;\n`); // nginx: invalid network "WORD"
  writeFileSync(inc, `${WORD};\n`); // nginx: unknown directive "WORD"
  writeFileSync(acl, `${WORD}\n`); // HAProxy: 'WORD' is not a valid IPv4 or IPv6 address
  const w = (name: string, text: string) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  return [
    {
      kind: 'nginx',
      label: 'geo { include FILE; }',
      config: w('geo.conf', `events {}\nhttp {\n  geo $g {\n    include ${geo};\n  }\n  server { listen 8080; }\n}\n`),
    },
    {
      kind: 'nginx',
      label: 'include FILE',
      config: w('inc.conf.main', `events {}\nhttp {\n  include ${inc};\n  server { listen 8080; }\n}\n`),
    },
    {
      kind: 'haproxy',
      label: 'acl ... -f FILE',
      config: w(
        'acl.cfg',
        `defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\nfrontend f\n  bind :8080\n  acl bad src -f ${acl}\n  http-request deny if bad\n`,
      ),
    },
  ];
}

test(
  'a one-word secret read through acl -f, geo include or include is not shown; the user words are',
  { skip, timeout: 90_000 },
  async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'pt-redact-'));
    chmodSync(dir, 0o755);
    try {
      for (const c of cases(dir)) {
        // the benchmark's config test
        const sb = ProxySandbox.create({ configPath: c.config, kind: c.kind });
        let message = '';
        try {
          await sb.contain();
          sb.plan({ http: 1, https: 2, tcp: 3 });
          await assert.rejects(
            () => sb.start(),
            (e: Error) => {
              message = `${e.message}\n${(e as { details?: string }).details ?? ''}`;
              return true;
            },
          );
        } finally {
          await sb.dispose();
        }
        console.log(`# ${c.kind} ${c.label}: ${message.split('\n')[0]}`);
        assert.match(message, /\(not shown\)|its content is not shown/, `${c.label}: ${message}`);
        assert.ok(!message.includes(WORD), `${c.label}: the secret word is shown: ${message}`);
        // the user's own words and paths stay: the file named, and for HAProxy the ACL's name
        assert.ok(c.kind === 'haproxy' ? /'bad'/.test(message) : message.includes(`${dir}/`), `${c.label}: ${message}`);
        // the editor's Validate
        const r = await checkWithBinary({ configPath: c.config, kind: c.kind });
        assert.equal(r.status, 'error', r.output);
        const all = `${r.output}\n${r.messages.map((m) => m.message).join('\n')}`;
        assert.ok(!all.includes(WORD), `${c.label} (validate): the secret word is shown: ${all}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('quoted words: the config words, the product keywords, the user paths and numbers are shown; others are not', () => {
  const own = 'frontend web\n  bind :80\n  acl bad src -f /srv/lists/bad.lst\n';
  const msg = [
    "'web'", // the user's word
    "'http-request'", // a keyword of HAProxy
    "'bad'",
    "'/srv/lists/bad.lst'", // the user's file
    "'/srv/lists/bad.lst/x'", // under it
    "'10.0.0.1:80'", // a number
    `'${WORD}'`, // a foreign word
    "'we'", // a piece of a user word is not a user word
    "'/etc/shadow-like'", // a path the user did not name
  ].join(' ');
  const out = redactQuoted(msg, own, { kind: 'haproxy', files: ['/x/haproxy.cfg'] });
  assert.equal(
    out,
    "'web' 'http-request' 'bad' '/srv/lists/bad.lst' '/srv/lists/bad.lst/x' '10.0.0.1:80' '(not shown)' '(not shown)' '(not shown)'",
  );
  // a misspelt directive (an included file's typo) is shown; nginx directives are not HAProxy's
  assert.equal(redactQuoted('"proxy_bufers" "gzip_typs"', '', { kind: 'nginx' }), '"proxy_bufers" "gzip_typs"');
  assert.equal(redactQuoted('"proxy_buffering" "frontend"', '', { kind: 'nginx' }), '"proxy_buffering" "(not shown)"');
});
