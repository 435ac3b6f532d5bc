// The run options' bounds are declared once (protocol/bench.ts RUN_LIMITS): the panel's check
// and the extension's settings offer exactly the range the engine accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_LIMITS } from '../../protocol/bench';
import { LIMITS, runOptionsProblem, DEFAULT_RUN_OPTIONS } from '../../protocol/panel';
import { resolveOptions } from '../../bench/src/index';

type Setting = { minimum?: number; maximum?: number };
const settings = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, Setting> } };
  }
).contributes.configuration.properties;

test('the settings offer the engine’s range', () => {
  const s = (k: string) => settings[`proxyTuner.benchmark.${k}`];
  assert.deepEqual([s('connections').minimum, s('connections').maximum], [...RUN_LIMITS.connections]);
  assert.deepEqual([s('durationSeconds').minimum, s('durationSeconds').maximum], [...LIMITS.durationS]);
  assert.deepEqual([s('warmupSeconds').minimum, s('warmupSeconds').maximum], [...LIMITS.warmupS]);
});

test('what the panel accepts at its bounds the engine accepts, and one beyond neither', () => {
  const top = { ...DEFAULT_RUN_OPTIONS, connections: LIMITS.connections[1], durationS: LIMITS.durationS[1], warmupS: LIMITS.warmupS[1] };
  assert.equal(runOptionsProblem(top), undefined);
  const cfg = { configPath: '/nonexistent/nginx.conf' };
  const r = resolveOptions({ ...cfg, connections: top.connections, durationMs: top.durationS * 1000, warmupMs: top.warmupS * 1000 });
  assert.equal(r.connections, RUN_LIMITS.connections[1]);
  assert.match(runOptionsProblem({ ...top, connections: top.connections + 1 }) ?? '', /connections/);
  assert.throws(() => resolveOptions({ ...cfg, connections: RUN_LIMITS.connections[1] + 1 }), /connections must be between/);
  assert.match(runOptionsProblem({ ...top, warmupS: top.warmupS + 1 }) ?? '', /warmupS/);
  assert.throws(() => resolveOptions({ ...cfg, warmupMs: RUN_LIMITS.warmupMs[1] + 1 }), /warm-up/);
});
