// The HAProxy corpus: real-world configs judged by haproxy 2.6.12 (see the corpus README).
// The parser never throws; files HAProxy accepts (final_class ok) get no error-severity
// diagnostic; the share of genuine errors caught at the binary's line must not fall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import { corpusDir, corpusSkip, readVerdicts, type VerdictRow } from './verdicts';

const { dir, available } = corpusDir('haproxy');
const rows = (): VerdictRow[] => readVerdicts(dir);

/** Genuine errors caught at the binary's line, reached by this version of the checks. */
const MIN_GENUINE_CAUGHT = 19;

/** Statements of newer versions (rows of kind newer-version) reported at 2.6 on the binary's line. */
const MIN_NEWER_CAUGHT = 41;

function check(file: string, version: string | undefined) {
  const text = readFileSync(join(dir, file), 'utf8');
  const doc = TextDocument.create(`file:///corpus/${file}`, 'haproxy', 1, text);
  return haproxyModule.validate(doc, haproxyModule.parse(text), { haproxyVersion: version });
}

test('HAProxy corpus: the parser never throws', { skip: corpusSkip(available) }, () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cfg'));
  assert.ok(files.length > 200);
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    assert.doesNotThrow(() => haproxyModule.parse(text), f);
    assert.doesNotThrow(() => check(f, '2.6'), f);
  }
});

test('HAProxy corpus: no error on files HAProxy accepts; genuine errors caught', { skip: corpusSkip(available) }, () => {
  const falseErrors: string[] = [];
  let genuine = 0;
  let caught = 0;
  let ok = 0;
  for (const r of rows()) {
    // judged at the binary's version, except files that needed newer statements blanked
    const diags = check(r.file, r.newer ? undefined : '2.6');
    const errors = diags.filter((d) => d.severity === 1);
    if (r.finalClass === 'ok') {
      ok++;
      for (const e of errors) falseErrors.push(`${r.file}:${e.range.start.line + 1} ${e.code} ${e.message}`);
    } else if (r.finalClass === 'genuine') {
      genuine++;
      if (errors.some((e) => e.range.start.line + 1 === r.finalLine)) caught++;
    }
  }
  console.log(
    `haproxy corpus: ${ok} final-ok files, ${falseErrors.length} false errors; genuine caught at the binary's line: ${caught}/${genuine} (${((100 * caught) / genuine).toFixed(1)}%)`,
  );
  assert.deepEqual(falseErrors, []);
  assert.ok(caught >= MIN_GENUINE_CAUGHT, `genuine caught fell to ${caught}/${genuine}`);
});

test('HAProxy corpus: missing-timeout warnings match the ones HAProxy 2.6 printed', { skip: corpusSkip(available) }, () => {
  const mismatches: string[] = [];
  let agreed = 0;
  for (const r of rows()) {
    if (r.verdict !== 'ok') continue;
    const ours = check(r.file, '2.6').some((d) => d.code === 'haproxy/missing-timeout');
    const theirs = /missing timeouts for/.test(r.warnings);
    if (ours !== theirs) mismatches.push(`${r.file}: ours ${ours}, haproxy ${theirs}`);
    else if (ours) agreed++;
  }
  assert.deepEqual(mismatches, []);
  assert.ok(agreed >= 15, `only ${agreed} files with the warning on both sides`);
});

test('HAProxy corpus: statements of newer versions are reported when judging for 2.6', { skip: corpusSkip(available) }, () => {
  let rowsNewer = 0;
  let caught = 0;
  for (const r of rows()) {
    if (r.kind !== 'newer-version') continue;
    rowsNewer++;
    if (check(r.file, '2.6').some((d) => d.severity === 1 && d.range.start.line + 1 === r.line)) caught++;
  }
  console.log(`haproxy corpus: newer-version statements reported at 2.6 on the binary's line: ${caught}/${rowsNewer}`);
  assert.ok(caught >= MIN_NEWER_CAUGHT, `fell to ${caught}/${rowsNewer}`);
});

test('HAProxy corpus: completion and hover answer anywhere without throwing', { skip: corpusSkip(available) }, () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cfg'))
    .slice(0, 60);
  let asked = 0;
  const missingHover: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const doc = TextDocument.create(`file:///corpus/${f}`, 'haproxy', 1, text);
    const ast = haproxyModule.parse(text);
    for (let off = 0; off <= text.length; off += 37) {
      const pos = doc.positionAt(off);
      const list = haproxyModule.complete(doc, ast, pos, { haproxyVersion: '2.6' });
      assert.ok(Array.isArray(list.items));
      const h = haproxyModule.hover(doc, ast, pos, {});
      if (h) assert.equal(typeof (h.contents as { value: string }).value, 'string');
      asked++;
    }
    // every statement whose keyword validation accepted has a hover on its keyword
    const flagged = new Set(haproxyModule.validate(doc, ast, {}).map((d) => d.range.start.line));
    for (const sec of ast.sections) {
      if (!['global', 'defaults', 'frontend', 'backend', 'listen'].includes(sec.keyword)) continue;
      for (const st of sec.statements) {
        if (!st.keyword || st.keyword.value.startsWith('.') || st.prefix || flagged.has(st.line)) continue;
        const h = haproxyModule.hover(doc, ast, doc.positionAt(st.keyword.start + 1), {});
        if (!h) missingHover.push(`${f}:${st.line + 1} ${st.keyword.value}`);
      }
    }
  }
  assert.ok(asked > 1000);
  assert.deepEqual(missingHover, []);
});
