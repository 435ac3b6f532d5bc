// The language server driven by a second real client: Neovim's built-in LSP client, headless.
// `nvim/lsp-client.lua` starts `node dist/server.js --stdio`, attaches the buffer, waits for the
// diagnostics, asks completion, hover and code actions, edits a line (incremental sync), stops
// the server and writes what it saw as JSON; this file asserts on that JSON.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, ensureBuilt } from '../cli/build';
import { FIXTURES, type EditorFixture } from './fixtures';
import { completionLabels, hoverText } from './rpcClient';

const NVIM = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
const haveNvim = NVIM.status === 0;

interface NvimRun {
  status: number | null;
  stderr: string;
  result: any;
}

// Skipped only on a developer machine without Neovim; in CI (CI=true) a missing nvim fails.
const skip = haveNvim || process.env.CI ? false : 'nvim is not installed';

describe('Neovim LSP client against dist/server.js', { skip }, () => {
  let dir: string;

  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-nvim-'));
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function runNvim(f: EditorFixture, fileName: string, filetype: string | undefined): NvimRun {
    const caseDir = mkdtempSync(join(dir, `${f.language}-`));
    const file = join(caseDir, fileName);
    const out = join(caseDir, 'result.json');
    writeFileSync(file, f.text);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PT_OUT: out,
      PT_SERVER: join(REPO, 'dist', 'server.js'),
      PT_NODE: process.execPath,
      PT_TIMEOUT_MS: '15000',
      PT_COMPLETION_LINE: String(f.completion.position.line),
      PT_COMPLETION_CHAR: String(f.completion.position.character),
      PT_HOVER_LINE: String(f.hover.position.line),
      PT_HOVER_CHAR: String(f.hover.position.character),
      PT_EDIT_LINE: String(f.fix.line),
      // signature help: on the hovered nginx directive's first argument, at HAProxy's completion point (`balance `)
      PT_SIG_LINE: String(f.language === 'nginx' ? f.hover.position.line : f.completion.position.line),
      PT_SIG_CHAR: String(f.language === 'nginx' ? f.hover.position.character + 'proxy_pass '.length : f.completion.position.character),
      PT_ACTION_CODE: f.diagnostic.code,
      PT_EDIT_TEXT: f.fix.text,
      // Neovim must not read the user's config, shada or swap files.
      XDG_CONFIG_HOME: join(caseDir, 'config'),
      XDG_DATA_HOME: join(caseDir, 'data'),
      XDG_STATE_HOME: join(caseDir, 'state'),
    };
    if (filetype !== undefined) env.PT_FILETYPE = filetype;
    else delete env.PT_FILETYPE;
    const r = spawnSync(
      'nvim',
      [
        '--headless',
        '--clean',
        '-u',
        'NONE',
        '-n',
        '-i',
        'NONE',
        '-c',
        `luafile ${join(REPO, 'test', 'lsp', 'nvim', 'lsp-client.lua')}`,
        file,
      ],
      { cwd: caseDir, env, encoding: 'utf8', timeout: 90_000, killSignal: 'SIGKILL' },
    );
    let result: any;
    try {
      result = JSON.parse(readFileSync(out, 'utf8'));
    } catch (err) {
      assert.fail(`nvim wrote no result (status ${r.status}, signal ${r.signal}): ${r.stderr}\n${String(err)}`);
    }
    return { status: r.status, stderr: r.stderr, result };
  }

  // nginx with the filetype Neovim users often end up with (`conf`), HAProxy with whatever
  // Neovim's own detection picks for `lb.cfg` (`cfg`): neither is one of our language ids, so
  // the server must tell the language from the file itself.
  const cases: [EditorFixture, string, string | undefined][] = [
    [FIXTURES[0], 'site.conf', 'conf'],
    [FIXTURES[1], 'lb.cfg', undefined],
  ];

  for (const [f, fileName, filetype] of cases) {
    describe(`${f.language} (${fileName}, filetype ${filetype ?? 'from Neovim'})`, () => {
      let run: NvimRun;
      before(() => {
        run = runNvim(f, fileName, filetype);
      });

      it('runs the script to the end and stops the server', () => {
        assert.equal(run.result.error, undefined, `lua error: ${run.result.error}\n${run.result.log?.join('\n')}`);
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.result.initialized, true);
        assert.equal(run.result.stopped, true);
        if (filetype !== undefined) assert.equal(run.result.filetype, filetype);
        assert.ok(!['nginx', 'haproxy'].includes(run.result.filetype), run.result.filetype);
      });

      it('receives the diagnostic at the right place, and Neovim stores it there', () => {
        const d = (run.result.published as any[]).find((x) => x.code === f.diagnostic.code);
        assert.ok(d, `no ${f.diagnostic.code} in ${JSON.stringify(run.result.published)}`);
        assert.deepEqual(d.range, f.diagnostic.range);
        assert.equal(d.severity, f.diagnostic.severity);
        assert.equal(d.source, 'proxy-tuner');
        const stored = (run.result.stored as any[]).find((x) => x.lnum === f.diagnostic.range.start.line);
        assert.ok(stored, `Neovim stored no diagnostic on line ${f.diagnostic.range.start.line}: ${JSON.stringify(run.result.stored)}`);
        assert.equal(stored.col, f.diagnostic.range.start.character);
        assert.equal(stored.message, d.message);
      });

      it('gets completion items that must be there', () => {
        assert.equal(run.result.completion.error, undefined, run.result.completion.error);
        const labels = completionLabels(run.result.completion.result);
        for (const label of f.completion.mustInclude)
          assert.ok(labels.includes(label), `${label} missing from ${labels.slice(0, 40).join(', ')}`);
      });

      it('gets hover text', () => {
        assert.equal(run.result.hover.error, undefined, run.result.hover.error);
        assert.match(hoverText(run.result.hover.result), f.hover.mustMatch);
      });

      it('gets signature help with the active parameter, and inlay hints', () => {
        assert.equal(run.result.signature.error, undefined, run.result.signature.error);
        const r = run.result.signature.result;
        const sig = r.signatures[r.activeSignature ?? 0];
        const [a, b] = sig.parameters[r.activeParameter ?? 0].label;
        assert.equal(sig.label.slice(a, b), f.language === 'nginx' ? 'URL' : '<algorithm>');
        assert.equal(run.result.inlay_hints.error, undefined, run.result.inlay_hints.error);
        assert.ok(Array.isArray(run.result.inlay_hints.result));
      });

      it('gets code actions for the diagnostic', () => {
        const actions = run.result.code_actions.result as any[];
        assert.ok(Array.isArray(actions) && actions.length > 0, JSON.stringify(run.result.code_actions));
        const titles = actions.map((a) => a.title);
        assert.ok(titles.includes(`Disable ${f.diagnostic.code} for this line`), JSON.stringify(titles));
        // The module's suggestion ("did you mean") travels in the diagnostic's data through Neovim.
        const suggestion = actions.find((a) => a.kind === 'quickfix' && a.edit?.changes && f.fix.suggestion.test(a.title));
        assert.ok(suggestion, JSON.stringify(titles));
      });

      it('re-validates after an incremental edit that removes the problem', () => {
        assert.ok(Array.isArray(run.result.after_edit), `no diagnostics after the edit: ${JSON.stringify(run.result.after_edit)}`);
        assert.match(run.result.buffer_after_edit, new RegExp(f.fix.text.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        const still = (run.result.after_edit as any[]).filter((x) => x.code === f.diagnostic.code && x.range.start.line === f.fix.line);
        assert.deepEqual(still, []);
      });
    });
  }
});
