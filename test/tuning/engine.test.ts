// The rule engine through the facade: suppression comments (reported once per comment even
// with several registries), severity settings, `source.fixAll`, quick-fix code actions, and
// the host facts that feed host-aware rules.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { codeActions, fixAll, validate } from '../../server/src/service/languageService';
import { finalizeDiagnostics } from '../../server/src/core/rules';
import { parseSomaxconn } from '../../server/src/host/hostFacts';
import { resolveSettings } from '../../server/src/service/settings';
import { nginxTuningRegistry, haproxyTuningRegistry, tuningRuleRows } from '../../server/src/service/tuning';

const doc = (lang: 'nginx' | 'haproxy', text: string) => TextDocument.create(`file:///t.${lang}`, lang, 1, text);
const codes = (ds: Diagnostic[]) => ds.map((d) => String(d.code));

describe('suppression comments', () => {
  const text = `worker_processes auto;
events {
    worker_connections 4096;
}
http {
    # proxy-tuner-disable-next-line nginx/server-tokens-on
    server_tokens on;
    # proxy-tuner-disable-next-line nginx/unknown-directive
    foo_bar 1;
    # proxy-tuner-disable-next-line nginx/keepalive-requests-low -- a test rig reconnects on purpose
    keepalive_requests 10;
}
`;
  it('silence the named rule of either registry and ask once per comment for a reason', () => {
    const ds = validate(doc('nginx', text), 'nginx', { nginxVersion: '1.22.1' });
    assert.ok(!codes(ds).includes('nginx/server-tokens-on'));
    assert.ok(!codes(ds).includes('nginx/unknown-directive'));
    assert.ok(!codes(ds).includes('nginx/keepalive-requests-low'));
    const reasons = ds.filter((d) => d.code === 'nginx/suppression-without-reason');
    assert.deepEqual(
      reasons.map((d) => d.range.start.line),
      [5, 7],
    );
  });
  it('the final pass replaces reports a registry still made by the same comment', () => {
    const d = doc('nginx', '# proxy-tuner-disable-next-line nginx/x\nfoo;\n');
    const dup: Diagnostic = {
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } },
      message: 'old',
      code: 'nginx/suppression-without-reason',
    };
    const out = finalizeDiagnostics(d, 'nginx', [dup, { ...dup }]);
    assert.equal(out.length, 1);
    assert.match(out[0].message, /Say why/);
    assert.equal(finalizeDiagnostics(d, 'nginx', [dup], { rules: { 'nginx/suppression-without-reason': 'off' } }).length, 0);
  });
  it('a reason silences the report', () => {
    const ds = validate(
      doc('haproxy', 'global\n    # proxy-tuner-disable-next-line haproxy/global-maxconn -- set by the container\n    daemon\n'),
      'haproxy',
      {},
    );
    assert.ok(!codes(ds).includes('haproxy/suppression-without-reason'));
  });
});

describe('source.fixAll', () => {
  it('applies every safe fix to a fixed point and keeps comments and indentation', () => {
    const text = `# edge proxy
events {
  use epoll; # old habit
  worker_connections 512;
}
http {
  server_tokens on;
  access_log /var/log/nginx/access.log;
  ssl_protocols TLSv1 TLSv1.2 TLSv1.3;
}
`;
    const fixed = fixAll(doc('nginx', text), 'nginx', { nginxVersion: '1.22.1' });
    assert.equal(
      fixed,
      `# edge proxy
worker_processes auto;
worker_rlimit_nofile 8192;
events {
  # old habit
  worker_connections 4096;
}
http {
  server_tokens off;
  access_log /var/log/nginx/access.log buffer=32k flush=5s;
  ssl_protocols TLSv1.2 TLSv1.3;
}
`,
    );
  });
  it('leaves unsafe fixes (new upstream blocks) to the user', () => {
    const text =
      'worker_processes auto;\nevents {\n    worker_connections 4096;\n}\nhttp {\n    server {\n        location / {\n            proxy_pass http://127.0.0.1:8081;\n        }\n    }\n}\n';
    const fixed = fixAll(doc('nginx', text), 'nginx', { nginxVersion: '1.22.1' });
    assert.ok(fixed.includes('proxy_pass http://127.0.0.1:8081;'));
    assert.ok(!fixed.includes('upstream'));
  });
});

describe('quick-fix code actions', () => {
  it('offer the rule fix first (preferred when safe) and a disable-with-reason action', () => {
    const d = doc('haproxy', 'backend b\n    server a 127.0.0.1:1\n    server b 127.0.0.1:2 check\n');
    const ds = validate(d, 'haproxy', {}).filter((x) => x.code === 'haproxy/server-no-check');
    assert.equal(ds.length, 1);
    const actions = codeActions(d, 'haproxy', ds[0].range, ds, {});
    assert.equal(actions[0].title, 'Add check');
    assert.equal(actions[0].isPreferred, true);
    assert.ok(actions.some((a) => a.title === 'Disable haproxy/server-no-check for this line'));
  });
});

describe('rule rows', () => {
  it('every row has an id of its language, a why, an official doc link (but the engine row) and registered ids', () => {
    for (const r of tuningRuleRows()) {
      assert.match(r.id, new RegExp(`^${r.language}/[a-z0-9-]+$`));
      assert.ok(r.why.length > 60, r.id);
      if (!r.id.endsWith('/suppression-without-reason')) assert.match(r.docUrl, /^https:\/\/(nginx\.org|docs\.haproxy\.org)\//, r.id);
    }
    assert.ok(nginxTuningRegistry.get('nginx/upstream-keepalive')?.until === '1.29.7');
    assert.ok(haproxyTuningRegistry.get('haproxy/nbproc')?.until === '2.5');
  });
});

describe('host facts', () => {
  it('parses somaxconn and is only filled for the local-version probe', () => {
    assert.equal(parseSomaxconn('4096\n'), 4096);
    assert.equal(parseSomaxconn('junk'), undefined);
    assert.equal(resolveSettings({}, () => undefined).host, undefined);
    assert.deepEqual(
      resolveSettings(
        {},
        () => undefined,
        () => ({ cpuCount: 2, somaxconn: 128 }),
      ).host,
      { cpuCount: 2, somaxconn: 128 },
    );
  });
});

describe('diagnostics without fixes (fixData: false, what `check` asks for)', () => {
  // rules that give their fixes as a function (upstream keep-alive, gzip_min_length) and ones
  // that give them as a list, in one config
  const text = `events {}
http {
    gzip on;
    upstream app { server 127.0.0.1:9000; keepalive 16; }
    server {
        listen 127.0.0.1:8080;
        keepalive_requests 10;
        location / { proxy_pass http://app; }
    }
}
`;
  it('are the same diagnostics with no fix data, for rules giving fixes as a list or as a function', () => {
    const settings = { nginxVersion: '1.22.1' };
    const withFixes = validate(doc('nginx', text), 'nginx', settings);
    const without = validate(doc('nginx', text), 'nginx', { ...settings, fixData: false });
    const fixed = withFixes.filter((d) => (d.data as { fixes?: unknown[] } | undefined)?.fixes?.length);
    for (const id of [
      'nginx/upstream-keepalive-headers',
      'nginx/upstream-keepalive-small',
      'nginx/gzip-min-length',
      'nginx/keepalive-requests-low',
    ]) {
      assert.ok(
        fixed.some((d) => d.code === id),
        `${id} should fire with a fix here: ${codes(withFixes).join(', ')}`,
      );
    }
    assert.deepEqual(
      without,
      withFixes.map(({ data: _data, ...d }) => d),
    );
  });
});
