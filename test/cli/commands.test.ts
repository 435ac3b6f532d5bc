// The command line that CI pipelines and shells expect (issue 18), through the built CLI in a
// subprocess: check's sarif/github output, --language, the fix options, format, the project
// config (.proxy-tuner.json) and context comments, rules/explain, many files on worker threads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from './build';
import { spawnSync } from 'node:child_process';
import { BIN, runCli, SEED002, tree } from './helpers';
import { sarifProblems } from './sarifShape';

const roots: string[] = [];
function mk(files: Record<string, string>): string {
  const r = tree(files);
  roots.push(r);
  return r;
}

// `listen`, `server_tokens` at column 0 and a `server {` block: the shape of gixy's test configs
const SITE = 'server {\nlisten 80;\nserver_tokens on;\n}\n';
const UNFORMATTED_NGINX = 'events {}\nhttp {\nserver {\n  listen   127.0.0.1:8080;\n        location / { return 200; }\n}\n}\n';
const FORMATTED_NGINX_4 =
  'events {}\nhttp {\n    server {\n        listen 127.0.0.1:8080;\n        location / {\n            return 200;\n        }\n    }\n}\n';
const UNFORMATTED_HAPROXY =
  'global\nmaxconn 100\ndefaults\n  mode http\n  timeout connect 5s\n  timeout client 5s\n  timeout server 5s\nfrontend web\n bind 127.0.0.1:8080\n default_backend app\nbackend app\n        server a 127.0.0.1:9000\n';

describe('proxy-tuner CLI conventions (issue 18)', () => {
  before(() => ensureBuilt());
  after(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  describe('check --format sarif', () => {
    it('writes a SARIF 2.1.0 log: the rule table with help URIs, results with regions and fixes', () => {
      const root = mk({
        'seed002.conf': SEED002,
        'web/lb.cfg':
          'defaults\n    mode http\nfrontend web\n    bind 127.0.0.1:8080\n    default_backend app\nbackend app\n    server a 127.0.0.1:9000\n',
      });
      const r = runCli(root, [
        'check',
        '--select',
        'all',
        '--format',
        'sarif',
        '--nginx-version',
        '1.22.1',
        '--haproxy-version',
        '2.6',
        'seed002.conf',
        'web',
      ]);
      assert.equal(r.status, 0, r.stderr);
      const log = JSON.parse(r.stdout);
      assert.deepEqual(sarifProblems(log), []);
      const run = log.runs[0];
      const rules = run.tool.driver.rules as { id: string; helpUri: string }[];
      assert.ok(rules.length > 50, `${rules.length} rules`);
      const keepalive = rules.find((x) => x.id === 'nginx/proxy-pass-no-upstream');
      assert.match(keepalive!.helpUri, /^https:\/\/nginx\.org\/en\/docs\/http\/ngx_http_upstream_module\.html#keepalive$/);
      const results = run.results as any[];
      const hit = results.find((x) => x.ruleId === 'nginx/proxy-pass-no-upstream');
      assert.ok(hit, JSON.stringify(results.map((x) => x.ruleId)));
      assert.equal(rules[hit.ruleIndex].id, hit.ruleId);
      assert.equal(hit.level, 'warning');
      const loc = hit.locations[0].physicalLocation;
      assert.deepEqual(loc.artifactLocation, { uri: 'seed002.conf', uriBaseId: '%SRCROOT%' });
      // `http://127.0.0.1:1980` on line 7, from column 24 (1-based, end exclusive)
      assert.deepEqual(loc.region, { startLine: 7, startColumn: 24, endLine: 7, endColumn: 45 });
      assert.equal(hit.fixes.length, 1);
      const replacements = hit.fixes[0].artifactChanges[0].replacements;
      assert.ok(
        replacements.some((x: any) => /upstream backend_127_0_0_1_1980 \{/.test(x.insertedContent.text)),
        JSON.stringify(replacements),
      );
      assert.ok(
        results.some((x) => x.locations[0].physicalLocation.artifactLocation.uri === 'web/lb.cfg' && x.ruleId.startsWith('haproxy/')),
      );
      assert.equal(run.originalUriBaseIds['%SRCROOT%'].uri, `file://${root}/`);
    });

    it('the structural check rejects what the schema rejects', () => {
      const good = {
        version: '2.1.0',
        runs: [{ tool: { driver: { name: 't', rules: [{ id: 'a' }] } }, results: [{ ruleId: 'a', ruleIndex: 0, message: { text: 'm' } }] }],
      };
      assert.deepEqual(sarifProblems(good), []);
      const bad = (mutate: (l: any) => void) => {
        const l = JSON.parse(JSON.stringify(good));
        mutate(l);
        return sarifProblems(l);
      };
      assert.ok(bad((l) => (l.version = '2.0.0')).length);
      assert.ok(bad((l) => delete l.runs[0].tool.driver.name).length);
      assert.ok(bad((l) => (l.runs[0].results[0].level = 'fatal')).length);
      assert.ok(bad((l) => (l.runs[0].results[0].message = {})).length);
      assert.ok(bad((l) => (l.runs[0].results[0].ruleIndex = 3)).length);
      assert.ok(
        bad((l) => (l.runs[0].results[0].locations = [{ physicalLocation: { artifactLocation: { uri: 'a' }, region: { startLine: 0 } } }]))
          .length,
      );
      assert.ok(bad((l) => (l.runs[0].results[0].fixes = [{ artifactChanges: [] }])).length);
      assert.ok(bad((l) => (l.runs[0].tool.driver.rules[0].helpUri = 'not a uri')).length);
      assert.ok(bad((l) => (l.runs[0].results[0].severity = 'error')).length);
    });
  });

  describe('check --format github', () => {
    it('writes one workflow command per problem, with the position and the rule, escaped', () => {
      const root = mk({ 'bad.conf': 'events {}\nhttp {\n    server {\n        listn 8080;\n    }\n}\n', 'site.conf': SITE });
      const r = runCli(root, ['check', '--select', 'all', '--format', 'github', 'bad.conf', 'site.conf']);
      assert.equal(r.status, 1);
      const lines = r.stdout.trim().split('\n');
      assert.ok(
        lines.every((l) =>
          /^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[a-z]+\/[a-z0-9-]+::.+$/.test(l),
        ),
        r.stdout,
      );
      assert.ok(
        lines.includes(
          '::error file=bad.conf,line=4,col=9,endLine=4,endColumn=14,title=nginx/unknown-directive::unknown directive "listn" (did you mean "listen"?)',
        ) || lines.some((l) => l.startsWith('::error file=bad.conf,line=4,col=9,endLine=4,endColumn=14,title=nginx/unknown-directive::')),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => l.startsWith('::notice file=site.conf,line=3,col=15,') && l.includes('title=nginx/server-tokens-on')),
        r.stdout,
      );
      assert.equal(r.stderr, '', 'no summary line in github mode');
    });
  });

  describe('language', () => {
    it('judges a server block with `listen` at column 0 as nginx, and --language overrides', () => {
      const root = mk({ 'site.conf': SITE, 'lb.conf': 'frontend web\n    bind 127.0.0.1:80\n' });
      const r = runCli(root, ['check', '--select', 'all', '--format', 'json', 'site.conf']);
      const codes = (JSON.parse(r.stdout) as any[]).map((p) => p.code);
      assert.ok(codes.length && codes.every((c) => c.startsWith('nginx/')), codes.join());
      const forced = runCli(root, ['check', '--select', 'all', '--format', 'json', '--language', 'haproxy', 'site.conf']);
      assert.ok(
        (JSON.parse(forced.stdout) as any[]).some((p) => p.code.startsWith('haproxy/')),
        forced.stdout,
      );
      const lb = runCli(root, ['check', '--select', 'all', '--format', 'json', '--language', 'nginx', 'lb.conf']);
      assert.ok(
        (JSON.parse(lb.stdout) as any[]).every((p) => p.code.startsWith('nginx/')),
        lb.stdout,
      );
      assert.equal(runCli(root, ['check', '--language', 'apache', 'site.conf']).status, 2);
    });
  });

  describe('fix options', () => {
    it('--fix --unsafe-fixes gives seed 002 its upstream keep-alive; --fix alone does not', () => {
      const root = mk({ 'nginx.conf': SEED002 });
      const safe = runCli(root, ['check', '--select', 'all', '--nginx-version', '1.22.1', '--fix', 'nginx.conf']);
      assert.equal(safe.status, 0, safe.stderr);
      assert.match(safe.stdout, /^worker_processes auto;$/m);
      assert.match(safe.stdout, /proxy_pass http:\/\/127\.0\.0\.1:1980;/);
      assert.doesNotMatch(safe.stdout, /keepalive/);
      const unsafe = runCli(root, ['check', '--select', 'all', '--nginx-version', '1.22.1', '--fix', '--unsafe-fixes', 'nginx.conf']);
      assert.equal(unsafe.status, 0, unsafe.stderr);
      assert.match(unsafe.stdout, /upstream backend_127_0_0_1_1980 \{\n\s+server 127\.0\.0\.1:1980;\n\s+keepalive 64;\n\s+\}/);
      assert.match(
        unsafe.stdout,
        /proxy_pass http:\/\/backend_127_0_0_1_1980;\n\s+proxy_http_version 1\.1;\n\s+proxy_set_header Connection "";/,
      );
      assert.match(unsafe.stdout, /^worker_processes auto;$/m);
      assert.equal(readFileSync(join(root, 'nginx.conf'), 'utf8'), SEED002, 'printing never writes');
      // the fixed config has none of the keep-alive findings left
      const again = mk({ 'nginx.conf': unsafe.stdout });
      const left = JSON.parse(
        runCli(again, ['check', '--select', 'all', '--format', 'json', '--nginx-version', '1.22.1', 'nginx.conf']).stdout,
      ) as any[];
      assert.deepEqual(
        left.filter((p) => /keepalive|proxy-pass-no-upstream/.test(p.code)),
        [],
      );
      assert.equal(runCli(root, ['check', '--unsafe-fixes', 'nginx.conf']).status, 2);
    });

    it('--fix-rule applies only the named rules (repeatable)', () => {
      const root = mk({ 'nginx.conf': SEED002 });
      const one = runCli(root, [
        'check',
        '--select',
        'all',
        '--nginx-version',
        '1.22.1',
        '--fix-rule',
        'nginx/proxy-pass-no-upstream',
        'nginx.conf',
      ]);
      assert.equal(one.status, 0, one.stderr);
      assert.match(one.stdout, /keepalive 64;/);
      assert.doesNotMatch(one.stdout, /worker_processes/);
      const two = runCli(root, [
        'check',
        '--select',
        'all',
        '--nginx-version',
        '1.22.1',
        '--fix-rule',
        'nginx/proxy-pass-no-upstream',
        '--fix-rule',
        'nginx/worker-processes-not-auto',
        'nginx.conf',
      ]);
      assert.match(two.stdout, /keepalive 64;/);
      assert.match(two.stdout, /^worker_processes auto;$/m);
      assert.doesNotMatch(two.stdout, /worker_rlimit_nofile/);
      const unknown = runCli(root, ['check', '--fix-rule', 'nginx/no-such-rule', 'nginx.conf']);
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /no rule 'nginx\/no-such-rule'/);
    });

    it('--fix --write rewrites every file atomically, keeps its mode, and reports what is left', () => {
      const root = mk({ 'a/nginx.conf': SEED002, 'b/nginx.conf': SEED002, 'c/clean.conf': '# nothing to fix\n' });
      chmodSync(join(root, 'a/nginx.conf'), 0o640);
      symlinkSync(join(root, 'b/nginx.conf'), join(root, 'b/link.conf'));
      const r = runCli(root, [
        'check',
        '--select',
        'all',
        '--nginx-version',
        '1.22.1',
        '--fix',
        '--unsafe-fixes',
        '--write',
        'a',
        'b/link.conf',
        'c',
      ]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /fixed 2 of 3 files/);
      for (const f of ['a/nginx.conf', 'b/nginx.conf']) assert.match(readFileSync(join(root, f), 'utf8'), /keepalive 64;/);
      assert.equal(statSync(join(root, 'a/nginx.conf')).mode & 0o777, 0o640);
      assert.ok(lstatSync(join(root, 'b/link.conf')).isSymbolicLink(), 'the link stays a link');
      // no temporary file left behind
      for (const d of ['a', 'b', 'c'])
        assert.deepEqual(
          readdirSync(join(root, d)).filter((n) => n.includes('proxy-tuner')),
          [],
        );
      assert.equal(runCli(root, ['check', '--fix', '--write', '-'], { input: SEED002 }).status, 2);
      assert.equal(runCli(root, ['check', '--write', 'a']).status, 2);
    });
  });

  describe('format', () => {
    it('prints, checks (exit 1 on a change) and writes, for both languages', () => {
      const root = mk({ 'nginx.conf': UNFORMATTED_NGINX, 'haproxy.cfg': UNFORMATTED_HAPROXY, 'ok.conf': FORMATTED_NGINX_4 });
      const printed = runCli(root, ['format', 'nginx.conf']);
      assert.equal(printed.status, 0, printed.stderr);
      assert.equal(printed.stdout, FORMATTED_NGINX_4);
      const check = runCli(root, ['format', '--check', 'nginx.conf', 'haproxy.cfg', 'ok.conf']);
      assert.equal(check.status, 1);
      assert.match(check.stderr, /^\[warn\] nginx\.conf$/m);
      assert.match(check.stderr, /^\[warn\] haproxy\.cfg$/m);
      assert.doesNotMatch(check.stderr, /ok\.conf/);
      assert.equal(runCli(root, ['format', '--check', 'ok.conf']).status, 0);
      const listed = runCli(root, ['format', '-l', '.']);
      assert.equal(listed.status, 1);
      assert.deepEqual(listed.stdout.trim().split('\n').sort(), ['haproxy.cfg', 'nginx.conf']);
      chmodSync(join(root, 'haproxy.cfg'), 0o600);
      const written = runCli(root, ['format', '--write', 'nginx.conf', 'haproxy.cfg', 'ok.conf']);
      assert.equal(written.status, 0, written.stderr);
      assert.match(written.stdout, /^ok\.conf \(unchanged\)$/m);
      assert.equal(readFileSync(join(root, 'nginx.conf'), 'utf8'), FORMATTED_NGINX_4);
      const hap = readFileSync(join(root, 'haproxy.cfg'), 'utf8');
      assert.match(hap, /^frontend web\n {4}bind 127\.0\.0\.1:8080$/m);
      assert.equal(statSync(join(root, 'haproxy.cfg')).mode & 0o777, 0o600);
      assert.equal(runCli(root, ['format', '--check', 'nginx.conf', 'haproxy.cfg']).status, 0);
      assert.deepEqual(
        readdirSync(root).filter((n) => n.includes('proxy-tuner')),
        [],
      );
    });

    it('reads stdin to stdout, takes indentation from the project config or --indent, leaves a broken file alone (exit 2)', () => {
      const root = mk({
        '.proxy-tuner.json': '{"format": {"indent": 2}}',
        'sub/x.conf': UNFORMATTED_NGINX,
        'broken.conf': 'http {\n  server {\n',
      });
      const stdin = runCli(root, ['format', '-'], { input: UNFORMATTED_NGINX });
      assert.equal(stdin.status, 0, stdin.stderr);
      assert.equal(
        stdin.stdout,
        FORMATTED_NGINX_4.replace(/ {4}/g, '  '),
        'indent 2 from .proxy-tuner.json (stdin is read as in the working folder)',
      );
      const file = runCli(root, ['format', 'sub/x.conf']);
      assert.equal(file.stdout, FORMATTED_NGINX_4.replace(/ {4}/g, '  '));
      const tab = runCli(root, ['format', '--indent', 'tab', 'sub/x.conf']);
      assert.equal(tab.stdout, FORMATTED_NGINX_4.replace(/ {4}/g, '\t'));
      const hap = runCli(root, ['format', '--stdin-filename', 'lb.cfg', '-'], { input: UNFORMATTED_HAPROXY });
      assert.match(hap.stdout, /^backend app\n {2}server a 127\.0\.0\.1:9000$/m);
      const broken = runCli(root, ['format', '--check', 'broken.conf']);
      assert.equal(broken.status, 2);
      assert.match(broken.stderr, /\[error\] broken\.conf:\d+:\d+: not formatted/);
      assert.equal(readFileSync(join(root, 'broken.conf'), 'utf8'), 'http {\n  server {\n');
      assert.equal(runCli(root, ['format', '--check', '--write', 'sub/x.conf']).status, 2);
    });
  });

  describe('project config (.proxy-tuner.json)', () => {
    it('gives target versions and rule severities, found by walking up; flags win', () => {
      const http2 =
        'events {}\nhttp {\n    server {\n        listen 127.0.0.1:8443;\n        http2 on;\n        server_tokens on;\n    }\n}\n';
      const root = mk({
        'proj/.proxy-tuner.json': JSON.stringify({ nginx: { version: '1.22.1' }, rules: { 'nginx/server-tokens-on': 'error' } }),
        'proj/deep/er/site/nginx.conf': http2,
        'other/nginx.conf': http2,
      });
      const inProj = JSON.parse(runCli(root, ['check', '--format', 'json', 'proj/deep/er/site/nginx.conf']).stdout) as any[];
      assert.ok(
        inProj.some((p) => p.code === 'nginx/needs-newer-version'),
        'version 1.22.1 from the config',
      );
      assert.equal(inProj.find((p) => p.code === 'nginx/server-tokens-on')?.severity, 'error');
      const outside = JSON.parse(runCli(root, ['check', '--format', 'json', 'other/nginx.conf']).stdout) as any[];
      assert.ok(!outside.some((p) => p.code === 'nginx/needs-newer-version'));
      // an opt-in rule (hardening) is off by default, and a severity in the project config selects it
      assert.equal(
        outside.find((p) => p.code === 'nginx/server-tokens-on'),
        undefined,
      );
      const flagged = JSON.parse(
        runCli(root, ['check', '--format', 'json', '--nginx-version', '1.26.0', 'proj/deep/er/site/nginx.conf']).stdout,
      ) as any[];
      assert.ok(!flagged.some((p) => p.code === 'nginx/needs-newer-version'), 'the flag wins over the config');
    });

    it('ignores files by glob, named or walked', () => {
      const root = mk({
        '.proxy-tuner.json': '{"ignore": ["vendor/**", "*.bak.conf"]}',
        'vendor/x/bad.conf': 'listn 80;\n',
        'old.bak.conf': 'listn 80;\n',
        'site.conf': SITE,
      });
      const r = runCli(root, ['check', '.', 'old.bak.conf']);
      assert.equal(r.status, 0, r.stdout);
      // the ignored folder is not walked at all; the named (and walked) .bak file counts once
      assert.match(r.stderr, /1 file checked \(1 ignored\)/);
      assert.equal(runCli(root, ['check', 'vendor/x/bad.conf']).status, 0, 'named, an ignored file is still left out');
    });

    it('gives fragments their context by glob; a context comment in the file wins', () => {
      const root = mk({
        '.proxy-tuner.json': JSON.stringify({ contexts: { 'conf.d/*.conf': 'http', 'snippets/*.conf': 'server' } }),
        // alone, `proxy_buffering` fits server or location: read as http here it is fine too;
        // `server_name` is not allowed in http, so the glob's context shows in the findings
        'conf.d/names.conf': 'server_name example.org;\n',
        'snippets/names.conf': 'server_name example.org;\n',
        'snippets/commented.conf': '# proxy-tuner: context http\nserver_name example.org;\n',
      });
      const codes = (f: string) => (JSON.parse(runCli(root, ['check', '--format', 'json', f]).stdout) as any[]).map((p) => p.code);
      assert.ok(codes('conf.d/names.conf').includes('nginx/not-allowed-here'), 'http context from the glob');
      assert.ok(!codes('snippets/names.conf').includes('nginx/not-allowed-here'), 'server context from the glob');
      assert.ok(codes('snippets/commented.conf').includes('nginx/not-allowed-here'), 'the comment says http');
    });

    it('refuses a config that is not JSON (exit 2), warns about unknown entries', () => {
      const root = mk({
        '.proxy-tuner.json': '{ nginx: ',
        'site.conf': SITE,
        'w/.proxy-tuner.json': '{"nginx": {"version": "new"}, "colour": 1}',
        'w/site.conf': SITE,
      });
      const r = runCli(root, ['check', 'site.conf']);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /\.proxy-tuner\.json: not valid JSON/);
      const w = runCli(root, ['check', 'w/site.conf']);
      assert.equal(w.status, 0, w.stderr);
      assert.match(w.stderr, /unknown key "colour"/);
      assert.match(w.stderr, /"nginx\.version" must be a version/);
    });
  });

  describe('rules and explain', () => {
    it('lists every rule with category and default severity, as text and JSON', () => {
      const root = mk({});
      const text = runCli(root, ['rules']);
      assert.equal(text.status, 0);
      assert.match(text.stdout, /^nginx\/proxy-pass-no-upstream\s+performance\s+warning\s+performance-deep\s+/m);
      assert.match(text.stdout, /^haproxy\/stats-socket-exposed\s+security\s+\w+\s+default\s+/m);
      const rows = JSON.parse(runCli(root, ['rules', '--format', 'json']).stdout) as any[];
      assert.ok(rows.length > 50);
      assert.equal(new Set(rows.map((r) => r.id)).size, rows.length);
      for (const r of rows) {
        assert.ok(
          ['nginx', 'haproxy'].includes(r.language) && r.category && r.severity && r.title && /^https?:\/\//.test(r.helpUri),
          JSON.stringify(r),
        );
      }
      assert.equal(rows.find((r) => r.id === 'nginx/host-spoofing').tier, 'hardening');
      const haproxy = JSON.parse(runCli(root, ['rules', '--format', 'json', '--language', 'haproxy']).stdout) as any[];
      assert.ok(haproxy.length > 5 && haproxy.every((r) => r.language === 'haproxy'));
    });

    it('explains a rule: why, versions, fix, link; an unknown one suggests (exit 2)', () => {
      const root = mk({});
      const r = runCli(root, ['explain', 'nginx/proxy-pass-no-upstream']);
      assert.equal(r.status, 0);
      assert.match(r.stdout, /^nginx\/proxy-pass-no-upstream: /);
      assert.match(r.stdout, /Applies to: every nginx version\./);
      assert.match(r.stdout, /Tier: performance-deep \(opt-in: --extend-select performance-deep/);
      assert.match(r.stdout, /Why:\n {2}A `proxy_pass`/);
      assert.match(r.stdout, /Fix:\n {2}Creates an `upstream` block/);
      assert.match(r.stdout, /Documentation: https:\/\/nginx\.org\/en\/docs\/http\/ngx_http_upstream_module\.html#keepalive/);
      const bad = runCli(root, ['explain', 'nginx/proxy-pass-upstream']);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /did you mean .*nginx\/proxy-pass-no-upstream/);
    });
  });

  describe('many files', () => {
    it('checks a folder on worker threads with the same report as one thread, and no progress off a terminal', () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < 70; i++) {
        files[`n${i % 7}/site${i}.conf`] = i % 3 ? SITE : SEED002;
        files[`h${i % 5}/lb${i}.cfg`] = UNFORMATTED_HAPROXY;
      }
      const root = mk(files);
      const one = runCli(root, ['check', '-j', '1', '--nginx-version', '1.22.1', '.']);
      const all = runCli(root, ['check', '-j', '4', '--nginx-version', '1.22.1', '.']);
      assert.equal(all.status, one.status);
      assert.equal(all.stdout, one.stdout);
      assert.equal(all.stderr, one.stderr);
      assert.match(all.stderr, /^140 files checked: /);
      // the summary, and the one note about the target binary (its end of life) said once per run
      assert.deepEqual(
        all.stderr.split('\n').filter((l) => l && !l.startsWith('proxy-tuner check: note: nginx 1.22.1 is end-of-life')).length,
        1,
        'only the summary on stderr',
      );
      assert.equal(runCli(root, ['check', '-j', '0', '.']).status, 2);
      // on a terminal (a pty from util-linux's `script`), a progress line redrawn in place, then cleared
      const script = spawnSync(
        'script',
        ['-qec', `"${process.execPath}" "${BIN}" check -j 2 --nginx-version 1.22.1 . >/dev/null`, '/dev/null'],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 120_000,
          env: { ...process.env, PROXY_TUNER_NO_LOCAL_VERSION: '1' },
        },
      );
      if (script.error) return; // no `script` here: the terminal case is not checked
      assert.match(script.stdout, /\r\x1b\[Kchecked 140\/140 files\r\x1b\[K140 files checked: /, JSON.stringify(script.stdout));
    });
  });
});
