// The nginx corpus: real-world configs judged by nginx 1.22.1 (see the corpus README).
// Every file parses without throwing; files nginx accepts (final_class ok) get no
// error-severity diagnostic, judged at 1.22.1 (or the newest version for `newer-version`
// rows) in the context the fragment was judged in; the share of genuine errors caught at the
// binary's line must not fall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { nginxModule, validateInContext } from '../../server/src/languages/nginx/index';
import { corpusDir, corpusSkip, readVerdicts, type VerdictRow } from './verdicts';

const { dir, available } = corpusDir('nginx');
const rows = (): VerdictRow[] => readVerdicts(dir);

/** Genuine errors caught at the binary's line (or, for line-less verdicts, with the binary's message), reached by this version of the checks. */
const MIN_GENUINE_CAUGHT = 15;

function check(row: VerdictRow): { text: string; diags: Diagnostic[] } {
  const text = readFileSync(join(dir, row.file), 'utf8');
  const doc = TextDocument.create(`file:///corpus/${row.file}`, 'nginx', 1, text);
  const diags = validateInContext(doc, nginxModule.parse(text), { nginxVersion: row.newer ? undefined : '1.22.1' }, row.context);
  return { text, diags };
}

test('nginx corpus: every file parses without throwing', { skip: corpusSkip(available) }, () => {
  const all = rows();
  assert.ok(all.length > 300);
  let throws = 0;
  for (const r of all) {
    const text = readFileSync(join(dir, r.file), 'utf8');
    try {
      const ast = nginxModule.parse(text);
      assert.ok(Array.isArray(ast.directives));
    } catch {
      throws++;
    }
  }
  assert.equal(throws, 0);
});

test('nginx corpus: no error on files nginx accepts', { skip: corpusSkip(available) }, () => {
  const bad: string[] = [];
  let n = 0;
  for (const r of rows().filter((x) => x.finalClass === 'ok')) {
    n++;
    const { diags } = check(r);
    for (const d of diags.filter((x) => x.severity === 1)) bad.push(`${r.file}:${d.range.start.line + 1}: ${d.code} ${d.message}`);
  }
  assert.ok(n >= 270);
  assert.deepEqual(bad, []);
});

test("nginx corpus: genuine errors caught at the binary's line", { skip: corpusSkip(available) }, () => {
  const genuine = rows().filter((x) => x.finalClass === 'genuine');
  let caught = 0;
  const missed: string[] = [];
  for (const r of genuine) {
    const { diags } = check(r);
    const errors = diags.filter((x) => x.severity === 1);
    // nginx names no line for some errors (unknown variables, missing events): then the message must match
    const quoted = /"([^"]+)"/.exec(r.finalMessage)?.[1];
    const hit = r.finalLine
      ? errors.some((d) => d.range.start.line + 1 === r.finalLine)
      : errors.some(
          (d) => quoted !== undefined && d.message.includes(`"${quoted}"`) && r.finalMessage.split(' ')[0] === d.message.split(' ')[0],
        );
    if (hit) caught++;
    else missed.push(`${r.file} (${r.finalMessage})`);
  }
  console.log(`nginx corpus: genuine errors caught ${caught}/${genuine.length}; missed: ${missed.join('; ') || 'none'}`);
  assert.ok(genuine.length > 0);
  assert.ok(caught >= MIN_GENUINE_CAUGHT, `caught ${caught}, expected at least ${MIN_GENUINE_CAUGHT}`);
});
