// Without namespaces (rewrite-only) the proxy runs as the user with the user's files and network,
// so native code a config loads would run uncontained: such a config is refused with a message
// naming the opt-in, and runs only when the user opts in (the bench option, the CLI flag or the
// environment variable) (issue 33). Forced here with PROXY_TUNER_CONTAINMENT=off, on the real nginx.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { ProxySandbox, SandboxRefusal } from '../../server/src/runner/sandbox';
import { checkWithBinary } from '../../server/src/host/binaryCheck';
import { tempConfig } from '../bench/helpers';

const MODULES = '/usr/lib/nginx/modules';
const module = existsSync(MODULES)
  ? readdirSync(MODULES).find((f) => f.endsWith('.so') && /echo|headers_more|fancyindex/.test(f))
  : undefined;
const skip = !existsSync('/usr/sbin/nginx') ? 'host nginx missing' : !module ? `no module in ${MODULES}` : false;

function withEnv<T>(vars: Record<string, string | undefined>, f: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  return f().finally(() => {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });
}

test('rewrite-only: a config that loads a module is refused unless the user opts in', { skip, timeout: 60_000 }, async () => {
  const cfg = tempConfig(
    'nginx.conf',
    `load_module ${MODULES}/${module};\nevents {}\nhttp {\n  server {\n    listen 8080;\n    location / { return 200 "ok\\n"; }\n  }\n}\n`,
  );
  try {
    await withEnv({ PROXY_TUNER_CONTAINMENT: 'off', PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE: undefined }, async () => {
      // refused, with the line and the ways to opt in
      const sb = ProxySandbox.create({ configPath: cfg.file, kind: 'nginx' });
      try {
        const c = await sb.contain();
        assert.equal(c.mode, 'rewrite-only');
        assert.throws(
          () => sb.plan({ http: 1, https: 2, tcp: 3 }),
          (e: Error) =>
            e instanceof SandboxRefusal &&
            e.line === 1 &&
            /loads native code, and this run is not contained/.test(e.message) &&
            /--allow-uncontained-native-code/.test(e.message) &&
            /PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE=1/.test(e.message),
        );
      } finally {
        await sb.dispose();
      }
      // the editor's Validate refuses the same (nginx -t would load the module)
      const v = await checkWithBinary({ configPath: cfg.file, kind: 'nginx' });
      assert.equal(v.status, 'refused', v.output);
      assert.match(v.output, /--allow-uncontained-native-code/);
      // opted in by the option: it runs and serves
      const ok = ProxySandbox.create({ configPath: cfg.file, kind: 'nginx', allowUncontainedNativeCode: true });
      try {
        await ok.contain();
        ok.plan({ http: 1, https: 2, tcp: 3 });
        await ok.start();
        const r = await fetch(`http://127.0.0.1:${ok.listeners[0].port}/`);
        assert.equal(await r.text(), 'ok\n');
      } finally {
        await ok.dispose();
      }
    });
    // opted in by the environment
    await withEnv({ PROXY_TUNER_CONTAINMENT: 'off', PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE: '1' }, async () => {
      const sb = ProxySandbox.create({ configPath: cfg.file, kind: 'nginx' });
      try {
        await sb.contain();
        sb.plan({ http: 1, https: 2, tcp: 3 });
      } finally {
        await sb.dispose();
      }
    });
    // contained, the module runs inside the namespaces without any opt-in
    await withEnv({ PROXY_TUNER_CONTAINMENT: undefined, PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE: undefined }, async () => {
      const sb = ProxySandbox.create({ configPath: cfg.file, kind: 'nginx' });
      try {
        const c = await sb.contain();
        if (c.contained) sb.plan({ http: 1, https: 2, tcp: 3 });
      } finally {
        await sb.dispose();
      }
    });
  } finally {
    cfg.cleanup();
  }
});
