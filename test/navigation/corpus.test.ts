// The navigation features over the real-world corpus: nothing throws, outline ranges are
// well-formed (a selection range inside its symbol's range, parents containing children), and
// no error-level navigation diagnostic on a file the binary accepts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentSymbol, Range, SelectionRange } from 'vscode-languageserver-types';
import { createWorkspaceIndex, folding, selectionRanges, symbols } from '../../server/src/service/languageService';
import { navDiagnostics } from '../../server/src/service/workspaceIndex';
import { corpusRoot, corpusSkip } from '../corpusRoot';
import { nodeFileSystem } from '../../server/src/host/nodeHost';

function contains(outer: Range, inner: Range): boolean {
  const le = (a: Range['start'], b: Range['start']) => a.line < b.line || (a.line === b.line && a.character <= b.character);
  return le(outer.start, inner.start) && le(inner.end, outer.end);
}

for (const lang of ['nginx', 'haproxy'] as const) {
  const dir = resolve(corpusRoot, lang);
  const available = existsSync(resolve(dir, 'verdicts.tsv'));
  describe(`${lang} corpus navigation`, { skip: corpusSkip(available) }, () => {
    const rows = available
      ? readFileSync(resolve(dir, 'verdicts.tsv'), 'utf8')
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split('\t'))
      : [];
    const ws = createWorkspaceIndex({ fs: nodeFileSystem });

    it('outline and names never throw and give well-formed ranges', () => {
      let symbolCount = 0;
      for (const [file] of rows) {
        const f = ws.get(pathToFileURL(resolve(dir, file)).href);
        assert.ok(f, file);
        assert.equal(f.lang, lang, file);
        const check = (list: DocumentSymbol[], parent?: Range) => {
          for (const s of list) {
            symbolCount++;
            assert.ok(contains(s.range, s.selectionRange), `${file}: ${s.name} selection outside its range`);
            if (parent) assert.ok(contains(parent, s.range), `${file}: ${s.name} outside its parent`);
            check(s.children ?? [], s.range);
          }
        };
        check(symbols(f.doc, lang));
        for (const r of folding(f.doc, lang)) assert.ok(r.startLine < r.endLine, `${file}: fold ${r.startLine}-${r.endLine}`);
        const lines = f.doc.lineCount;
        const positions = [0, Math.floor(lines / 3), Math.floor(lines / 2), lines - 1].map((line) => ({ line, character: 6 }));
        for (const sr of selectionRanges(f.doc, lang, positions)) {
          for (let x: SelectionRange | undefined = sr; x?.parent; x = x.parent)
            assert.ok(contains(x.parent.range, x.range), `${file}: selection parent`);
        }
        for (const e of ws.entities(f))
          assert.ok(0 <= e.start && e.start <= e.end && e.end <= f.doc.getText().length, `${file}: entity ${e.kind} ${e.name}`);
      }
      assert.ok(symbolCount > rows.length, `only ${symbolCount} symbols`);
    });

    it('no error-level undefined/unused/include diagnostic on a file the binary accepts', () => {
      const wrong: string[] = [];
      let judged = 0;
      for (const r of rows) {
        const [file, , , , kind, , , finalClass, finalKind] = r;
        if (finalClass !== 'ok' || kind === 'newer-version' || finalKind === 'newer-version') continue;
        judged++;
        const errors = navDiagnostics(ws, pathToFileURL(resolve(dir, file)).href, {}).filter((d) => d.severity === 1);
        if (errors.length) wrong.push(`${file}: ${errors.map((d) => d.message).join('; ')}`);
      }
      assert.ok(judged > 200, `only ${judged} files judged`);
      assert.deepEqual(wrong, []);
    });

    it("a one-shot index (the command line's: incremental false) finds what the editor's does", () => {
      let entities = 0;
      for (const [file] of rows) {
        const uri = pathToFileURL(resolve(dir, file)).href;
        const doc = TextDocument.create(uri, lang, 1, readFileSync(resolve(dir, file), 'utf8'));
        const open = { get: (u: string) => (u === uri ? doc : undefined), all: () => [doc] };
        const editor = createWorkspaceIndex({ fs: nodeFileSystem, open });
        const oneShot = createWorkspaceIndex({ fs: nodeFileSystem, open, incremental: false });
        const expected = editor.entities(editor.get(uri)!);
        entities += expected.length;
        assert.deepEqual(oneShot.entities(oneShot.get(uri)!), expected, file);
        assert.deepEqual(navDiagnostics(oneShot, uri, {}), navDiagnostics(editor, uri, {}), file);
      }
      assert.ok(entities > rows.length, `only ${entities} entities`);
    });
  });
}
