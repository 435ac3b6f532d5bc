// The language server driven by Emacs' eglot in batch mode, configured by the very block of
// docs/editors.md a user pastes into init.el: that block picks the major mode (HAProxy by content
// for a `.cfg`), eglot starts `proxy-tuner-language-server --stdio` from PATH (this checkout's
// bin/), and `emacs-client.el` records what eglot and Flymake saw as JSON.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO, ensureBuilt } from '../cli/build';
import { FIXTURES, type EditorFixture } from '../lsp/fixtures';
import { emacsSetupFromDocs } from './docsSetup';

const EMACS = spawnSync('emacs', ['--batch', '--eval', "(progn (require 'eglot) (princ emacs-version))"], { encoding: 'utf8' });
const haveEglot = EMACS.status === 0;
// Skipped only on a developer machine without Emacs and eglot (scripts/install-system-packages.sh installs them)
const skip = haveEglot || process.env.CI ? false : 'emacs with eglot is not installed';

describe('Emacs eglot (batch) with the setup of docs/editors.md', { skip, timeout: 240_000 }, () => {
  let dir: string;
  let setup: string;
  let bin: string;

  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-emacs-'));
    setup = join(dir, 'setup.el');
    writeFileSync(setup, emacsSetupFromDocs());
    bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(join(REPO, 'bin', 'proxy-tuner-language-server.js'), join(bin, 'proxy-tuner-language-server'));
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function runEmacs(file: string, text: string, env: Record<string, string>): any {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    const out = join(dirname(file), 'result.json');
    const r = spawnSync('emacs', ['--batch', '-l', setup, '-l', join(REPO, 'test', 'editors', 'emacs-client.el')], {
      cwd: dirname(file),
      env: {
        ...process.env,
        HOME: join(dirname(file), 'home'),
        // the server's launcher runs on this node
        PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        PROXY_TUNER_NO_LOCAL_VERSION: '1',
        PT_OUT: out,
        PT_FILE: file,
        PT_TIMEOUT_MS: '20000',
        ...env,
      },
      encoding: 'utf8',
      timeout: 90_000,
      killSignal: 'SIGKILL',
    });
    try {
      return { ...JSON.parse(readFileSync(out, 'utf8')), status: r.status, stderr: r.stderr };
    } catch (err) {
      assert.fail(`emacs wrote no result (status ${r.status}, signal ${r.signal}): ${r.stderr}\n${String(err)}`);
    }
  }

  it('leaves a .cfg that is not HAProxy to its usual mode', () => {
    const r = runEmacs(join(dir, 'plain', 'setup.cfg'), '[metadata]\nname = demo\n', { PT_MODE_ONLY: '1' });
    assert.equal(r.error, undefined);
    assert.notEqual(r.major_mode, 'haproxy-mode');
    assert.notEqual(r.major_mode, 'nginx-mode');
  });

  // nginx by its folder, HAProxy by content (a .cfg with neither name nor folder)
  const cases: [EditorFixture, string, string][] = [
    [FIXTURES[0], join('etc', 'nginx', 'sites', 'site.conf'), 'nginx-mode'],
    [FIXTURES[1], join('lb', 'edge.cfg'), 'haproxy-mode'],
  ];
  for (const [f, rel, mode] of cases) {
    describe(`${f.language} (${rel})`, () => {
      let run: any;
      before(() => {
        run = runEmacs(join(dir, f.language, rel), f.text, {
          PT_COMPLETION_LINE: String(f.completion.position.line),
          PT_COMPLETION_CHAR: String(f.completion.position.character),
          PT_HOVER_LINE: String(f.hover.position.line),
          PT_HOVER_CHAR: String(f.hover.position.character),
        });
      });

      it('opens the file in its mode, starts the server with its language id, stops it', () => {
        assert.equal(run.error, undefined, run.error);
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.major_mode, mode);
        assert.equal(run.language_id, f.language);
        assert.equal(run.stopped, true);
        assert.equal(typeof run.first_diagnostics_ms, 'number');
      });

      it('receives the diagnostic, and Flymake stores it at its place', () => {
        const d = (run.published as any[]).find((x) => x.code === f.diagnostic.code);
        assert.ok(d, JSON.stringify(run.published));
        assert.deepEqual(d.range, f.diagnostic.range);
        const stored = (run.stored as any[]).find((x) => x.line === f.diagnostic.range.start.line);
        assert.ok(stored, JSON.stringify(run.stored));
        assert.equal(stored.col, f.diagnostic.range.start.character);
        assert.ok(stored.text.includes(d.message), stored.text);
      });

      it('completes through completion-at-point', () => {
        for (const label of f.completion.mustInclude)
          assert.ok(run.completion.includes(label), `${label} missing from ${run.completion.slice(0, 40).join(', ')}`);
      });

      it('hovers', () => {
        assert.match(run.hover, f.hover.mustMatch);
      });

      it('offers the quick fix for the diagnostic', () => {
        assert.ok(
          (run.code_actions as string[]).some((t) => f.fix.suggestion.test(t) && !t.startsWith('Disable')),
          JSON.stringify(run.code_actions),
        );
      });
    });
  }
});
