// End-of-life target versions (server/src/core/lifecycle.ts, data/branches.json): a fact of the
// binary, said once (status bar, once per CLI run); on every whole config only when the rule is
// selected in the settings. The distributions that still patch the branch are named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { branchOf, distributionSupport, endOfLife, eolFindings, eolNote, supportedBranches } from '../../server/src/core/lifecycle';
import { expectNone, expectRule } from './helpers';

const NGINX = '<|events|> {}\nhttp {\n    server { listen 80; }\n}\n';
const HAPROXY = '<|global|>\n    maxconn 4096\ndefaults\n    mode http\n';
const ON = { rules: { 'nginx/version-end-of-life': 'information', 'haproxy/version-end-of-life': 'information' } } as const;

describe('end of life: once per binary, not on every file', () => {
  it('is no finding on a file at the default settings', () => {
    expectNone('nginx', NGINX.replace(/<\||\|>/g, ''), 'nginx/version-end-of-life', { nginxVersion: '1.22.1' });
    expectNone('haproxy', HAPROXY.replace(/<\||\|>/g, ''), 'haproxy/version-end-of-life', { haproxyVersion: '2.4.22' });
  });
  it('names the distributions that still patch the branch (Debian 12: 1.22, Ubuntu 24.04: 1.24)', () => {
    assert.equal(
      eolNote('nginx', '1.22.1'),
      'nginx 1.22.1 is end-of-life upstream (branch 1.22 ended 2023-04); Debian 12 still patches it until 2028-06.',
    );
    assert.match(eolNote('nginx', '1.24.0')!, /Ubuntu 24\.04 LTS still patches it until 2029-04/);
    assert.equal(eolNote('nginx', '1.30.6'), undefined);
    assert.equal(eolNote('nginx', '1.20.2'), 'nginx 1.20.2 is end-of-life upstream (branch 1.20 ended 2022-05).');
    assert.deepEqual(distributionSupport('nginx', '1.22.1', '2028-07-01'), []);
  });
});

describe('nginx/version-end-of-life', () => {
  it('flags 1.22.1 (Debian 12) and 1.26.3 (Debian 13) and names the supported branches', () => {
    for (const v of ['1.22.1', '1.26.3', '1.18.0', '1.9.15']) {
      const { found } = expectRule('nginx', NGINX, 'nginx/version-end-of-life', { ...ON, nginxVersion: v });
      assert.equal(found[0].severity, 3);
      assert.match(found[0].message, new RegExp(`nginx ${v.replace(/\./g, '\\.')} is end-of-life`));
      assert.match(found[0].message, /Supported upstream branches as of 2026-12-01: 1\.31 mainline, 1\.30 stable\./);
    }
  });
  it('is quiet for the supported branches, future ones, an unknown target and fragments', () => {
    for (const v of ['1.30.6', '1.31.2', '1.33.0'])
      expectNone('nginx', NGINX.replace(/<\||\|>/g, ''), 'nginx/version-end-of-life', { ...ON, nginxVersion: v });
    expectNone('nginx', NGINX.replace(/<\||\|>/g, ''), 'nginx/version-end-of-life', ON);
    expectNone('nginx', 'location / { return 200; }\n', 'nginx/version-end-of-life', { ...ON, nginxVersion: '1.22.1' });
  });
});

describe('haproxy/version-end-of-life', () => {
  it('flags ended branches (2.4 LTS, 3.1, 2.9, 1.8) and lists the maintained ones', () => {
    for (const v of ['2.4.22', '3.1.5', '2.9', '1.8.30']) {
      const { found } = expectRule('haproxy', HAPROXY, 'haproxy/version-end-of-life', { ...ON, haproxyVersion: v });
      assert.match(
        found[0].message,
        /Supported upstream branches as of 2026-12-01: 3\.4 LTS, 3\.3 stable, 3\.2 LTS, 3\.0 LTS, 2\.8 LTS, 2\.6 LTS\./,
      );
    }
  });
  it('is quiet for 2.6.12, 3.0.11 and 3.2.26 (the matrix) and for 3.5-dev', () => {
    for (const v of ['2.6.12', '3.0.11', '3.2.26', '3.5-dev1'])
      expectNone('haproxy', HAPROXY.replace(/<\||\|>/g, ''), 'haproxy/version-end-of-life', { ...ON, haproxyVersion: v });
  });
});

describe('branch table', () => {
  it('reads branches and end dates against the date it is given', () => {
    assert.equal(branchOf('3.2-dev4'), '3.2');
    assert.equal(endOfLife('haproxy', '2.6.12', '2027-05-01')?.branch, '2.6');
    assert.equal(endOfLife('haproxy', '2.6.12', '2026-12-01'), undefined);
    assert.deepEqual(
      supportedBranches('nginx').map((b) => b.branch),
      ['1.31', '1.30'],
    );
    assert.equal(eolFindings('nginx', 'http {}\n', '1.22.1', '2023-01-01').length, 0, '1.22 was maintained until 2023-04');
  });
});
