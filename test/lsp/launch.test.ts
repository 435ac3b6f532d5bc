// The server started the way the VS Code client starts it (client/src/serverLaunch.ts): node
// must accept the options (a flag it does not know would stop the server before it says a word)
// and the server must work under them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ensureBuilt } from '../cli/build';
import { SERVER_EXEC_ARGV, serverEnv } from '../../client/src/serverLaunch';
import { LspClient } from './rpcClient';

describe("the client's launch options", () => {
  it('add MALLOC_ARENA_MAX=2 to the environment unless the user set it', () => {
    assert.equal(serverEnv({ PATH: '/bin' }).MALLOC_ARENA_MAX, '2');
    assert.equal(serverEnv({ PATH: '/bin' }).PATH, '/bin');
    assert.equal(serverEnv({ MALLOC_ARENA_MAX: '8' }).MALLOC_ARENA_MAX, '8');
  });

  it('start a server that validates, with the options and the environment in place', async () => {
    ensureBuilt();
    const server = new LspClient(['--stdio'], serverEnv(), [...SERVER_EXEC_ARGV]);
    try {
      await server.initialize();
      const uri = 'file:///launch-test/nginx.conf';
      server.notify('textDocument/didOpen', {
        textDocument: { uri, languageId: 'nginx', version: 1, text: 'http {\n    bogus_directive on;\n}\n' },
      });
      const diagnostics = await server.diagnosticsFor(uri, 1);
      assert.ok(
        diagnostics.some((d) => d.code === 'nginx/unknown-directive'),
        JSON.stringify(diagnostics),
      );
      if (process.platform === 'linux') {
        const cmdline = readFileSync(`/proc/${server.proc.pid}/cmdline`, 'utf8').split('\0');
        for (const flag of SERVER_EXEC_ARGV) assert.ok(cmdline.includes(flag), `${flag} not in ${cmdline.join(' ')}`);
        assert.ok(
          readFileSync(`/proc/${server.proc.pid}/environ`, 'utf8').split('\0').includes(`MALLOC_ARENA_MAX=${serverEnv().MALLOC_ARENA_MAX}`),
        );
      }
      assert.doesNotMatch(server.stderr, /bad option|unrecognized flag/);
    } finally {
      await server.stop();
    }
  });
});
