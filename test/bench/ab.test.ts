// `proxy-tuner bench FILE --binary A --binary B`: the same config on two installed binaries,
// compared A/B ("what upgrading buys"), as the command line prints it; with the version matrix's
// nginx 1.22.1 and 1.30.6 on seed 002's config and on the same server behind an upstream block.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../cli/src/args';
import { benchOptionsFromArgs, splitBinaries } from '../../cli/src/bench';
import { findMatrixBinary, loadMatrix } from '../../server/src/runner/matrix';
import { ensureBuilt, REPO } from '../cli/build';
import { tempConfig } from './helpers';

describe('bench --binary, repeated', () => {
  it('collects every --binary in order and leaves the rest to the parser', () => {
    assert.deepEqual(splitBinaries(['x.conf', '--binary', '/a', '-c', '5', '--binary=/b', '--', '--binary', 'c']), {
      binaries: ['/a', '/b'],
      rest: ['x.conf', '-c', '5', '--', '--binary', 'c'],
    });
    const one = benchOptionsFromArgs(['x.conf', '--binary', '/a']);
    assert.equal(one.options.binary, '/a');
    const two = benchOptionsFromArgs(['x.conf', '--binary', '/a', '--binary', '/b', '--rounds', '3']);
    assert.deepEqual([two.binaries, two.rounds, two.options.binary], [['/a', '/b'], 3, undefined]);
    assert.throws(() => benchOptionsFromArgs(['x.conf', '--binary', '/a', '--rounds', '2']), /at least two --binary/);
    assert.throws(() => benchOptionsFromArgs(['x.conf', '--binary', '/a', '--binary', '/b', '--rounds', '11']), UsageError);
    assert.throws(() => benchOptionsFromArgs(['--target', '127.0.0.1:1', '--binary', '/a', '--binary', '/b']), /need a FILE/);
  });

  const matrix = loadMatrix();
  const old = findMatrixBinary('nginx', '1.22', matrix);
  const next = findMatrixBinary('nginx', '1.30', matrix);
  it(
    'runs seed 002 on nginx 1.22.1 and 1.30.6 and compares them; an upstream block is what 1.30.6 adds',
    { skip: (!old || !next) && !process.env.CI && 'no version matrix' },
    () => {
      ensureBuilt();
      const seed =
        'events {}\nhttp {\n    access_log off;\n    server {\n        listen 1990;\n        location / {\n            proxy_pass http://127.0.0.1:1980;\n        }\n    }\n}\n';
      const withUpstream = seed
        .replace('    server {', '    upstream app { server 127.0.0.1:1980; }\n    server {')
        .replace('http://127.0.0.1:1980', 'http://app');
      const ab = (text: string) => {
        const t = tempConfig('nginx.conf', text);
        try {
          const r = spawnSync(
            process.execPath,
            [
              join(REPO, 'bin', 'proxy-tuner.js'),
              'bench',
              t.file,
              '--binary',
              old!.path,
              '--binary',
              next!.path,
              '-c',
              '5',
              '--duration',
              '1s',
              '--warmup',
              '300ms',
              '--json',
            ],
            { encoding: 'utf8', timeout: 90_000 },
          );
          assert.equal(r.status, 0, r.stderr);
          return JSON.parse(r.stdout) as {
            ab: { version: string; rps: number; connectionsPerRequest: number; runs: unknown[] }[];
            rounds: number;
          };
        } finally {
          t.cleanup();
        }
      };
      const a = ab(seed);
      assert.deepEqual(
        a.ab.map((s) => s.version),
        ['1.22.1', '1.30.6'],
      );
      assert.equal(a.rounds, 1);
      for (const s of a.ab) {
        assert.equal(s.runs.length, 1);
        assert.ok(s.rps > 0);
        assert.ok(
          s.connectionsPerRequest > 0.9,
          `seed 002 on ${s.version}: ${s.connectionsPerRequest} connections per request (upgrading alone buys nothing here)`,
        );
      }
      const u = ab(withUpstream);
      assert.ok(u.ab[0].connectionsPerRequest > 0.9, `upstream block on 1.22.1: ${u.ab[0].connectionsPerRequest}`);
      assert.ok(u.ab[1].connectionsPerRequest < 0.1, `upstream block on 1.30.6: ${u.ab[1].connectionsPerRequest}`);
    },
  );
});
