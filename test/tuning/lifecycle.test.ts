// End-of-life target versions (server/src/core/lifecycle.ts, data/branches.json): an
// information diagnostic naming the supported branches, on whole configs only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { branchOf, endOfLife, eolFindings, supportedBranches } from '../../server/src/core/lifecycle';
import { expectNone, expectRule } from './helpers';

const NGINX = '<|events|> {}\nhttp {\n    server { listen 80; }\n}\n';
const HAPROXY = '<|global|>\n    maxconn 4096\ndefaults\n    mode http\n';

describe('nginx/version-end-of-life', () => {
  it('flags 1.22.1 (Debian 12) and 1.26.3 (Debian 13) and names the supported branches', () => {
    for (const v of ['1.22.1', '1.26.3', '1.18.0', '1.9.15']) {
      const { found } = expectRule('nginx', NGINX, 'nginx/version-end-of-life', { nginxVersion: v });
      assert.equal(found[0].severity, 3);
      assert.match(found[0].message, new RegExp(`nginx ${v.replace(/\./g, '\\.')} is end-of-life`));
      assert.match(found[0].message, /Supported branches as of 2026-12-01: 1\.31 mainline, 1\.30 stable\./);
    }
  });
  it('is quiet for the supported branches, future ones, an unknown target and fragments', () => {
    for (const v of ['1.30.6', '1.31.2', '1.33.0'])
      expectNone('nginx', NGINX.replace(/<\||\|>/g, ''), 'nginx/version-end-of-life', { nginxVersion: v });
    expectNone('nginx', NGINX.replace(/<\||\|>/g, ''), 'nginx/version-end-of-life', {});
    expectNone('nginx', 'location / { return 200; }\n', 'nginx/version-end-of-life', { nginxVersion: '1.22.1' });
  });
});

describe('haproxy/version-end-of-life', () => {
  it('flags ended branches (2.4 LTS, 3.1, 2.9, 1.8) and lists the maintained ones', () => {
    for (const v of ['2.4.22', '3.1.5', '2.9', '1.8.30']) {
      const { found } = expectRule('haproxy', HAPROXY, 'haproxy/version-end-of-life', { haproxyVersion: v });
      assert.match(
        found[0].message,
        /Supported branches as of 2026-12-01: 3\.4 LTS, 3\.3 stable, 3\.2 LTS, 3\.0 LTS, 2\.8 LTS, 2\.6 LTS\./,
      );
    }
  });
  it('is quiet for 2.6.12, 3.0.11 and 3.2.26 (the matrix) and for 3.5-dev', () => {
    for (const v of ['2.6.12', '3.0.11', '3.2.26', '3.5-dev1'])
      expectNone('haproxy', HAPROXY.replace(/<\||\|>/g, ''), 'haproxy/version-end-of-life', { haproxyVersion: v });
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
