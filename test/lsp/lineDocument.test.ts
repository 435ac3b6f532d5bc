// The server's open documents (server/src/core/lineDocument.ts) against vscode-languageserver-textdocument:
// the same incremental edits must give the same text, lines, offsets and positions; and the rule
// engine's positions (server/src/core/positions.ts) those of the library.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument, type TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { LineDocument, splitLines } from '../../server/src/core/lineDocument';
import { positionsOf } from '../../server/src/core/rules';

function random(seed: number): () => number {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const PIECES = ['a', 'server {', ' ', ';', '\n', '\r\n', '\r', '}', 'listen 80;', '\n\n', 'é', '😀', ''];

function randomText(rnd: () => number, parts: number): string {
  let s = '';
  for (let i = 0; i < parts; i++) s += PIECES[Math.floor(rnd() * PIECES.length)];
  return s;
}

/** Any position, including lines and characters out of range. */
function randomPosition(rnd: () => number, doc: TextDocument): { line: number; character: number } {
  return { line: Math.floor(rnd() * (doc.lineCount + 3)) - 1, character: Math.floor(rnd() * 14) - 2 };
}

/**
 * A position for an edit: characters out of range, lines not past the end (the library's own
 * line table goes wrong on an edit naming a line past the end; clients do not send them).
 */
function editPosition(rnd: () => number, doc: TextDocument): { line: number; character: number } {
  return { line: Math.floor(rnd() * (doc.lineCount + 1)) - 1, character: Math.floor(rnd() * 14) - 2 };
}

function assertSame(ours: LineDocument, theirs: TextDocument, rnd: () => number, step: string): void {
  assert.equal(ours.getText(), theirs.getText(), `${step}: text`);
  assert.equal(ours.lineCount, theirs.lineCount, `${step}: line count`);
  assert.equal(ours.version, theirs.version, `${step}: version`);
  const length = theirs.getText().length;
  for (let k = 0; k < 12; k++) {
    const pos = randomPosition(rnd, theirs);
    assert.equal(ours.offsetAt(pos), theirs.offsetAt(pos), `${step}: offsetAt ${JSON.stringify(pos)}`);
    const offset = Math.floor(rnd() * (length + 4)) - 2;
    assert.deepEqual(ours.positionAt(offset), theirs.positionAt(offset), `${step}: positionAt ${offset}`);
    const range = { start: randomPosition(rnd, theirs), end: randomPosition(rnd, theirs) };
    assert.equal(ours.getText(range), theirs.getText(range), `${step}: getText ${JSON.stringify(range)}`);
  }
}

describe('line documents (incremental sync)', () => {
  it('splits lines at \\n, \\r\\n and \\r, keeping each break with its line', () => {
    assert.deepEqual(splitLines('a\nb\r\nc\rd'), ['a\n', 'b\r\n', 'c\r', 'd']);
    assert.deepEqual(splitLines('x\n'), ['x\n', '']);
    assert.deepEqual(splitLines(''), ['']);
  });

  it('gives the library text document’s text, offsets and positions after random edits', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = random(seed);
      const initial = randomText(rnd, 30);
      const ours = new LineDocument('file:///a.conf', 'nginx', 1, initial);
      let theirs = TextDocument.create('file:///a.conf', 'nginx', 1, initial);
      assertSame(ours, theirs, rnd, `seed ${seed} open`);
      for (let step = 0; step < 60; step++) {
        // one to three changes in a notification, each naming positions of the text before it
        const changes: TextDocumentContentChangeEvent[] = [];
        const n = 1 + Math.floor(rnd() * 3);
        let scratch = TextDocument.create('file:///s.conf', 'nginx', 1, theirs.getText());
        for (let c = 0; c < n; c++) {
          const change =
            rnd() < 0.03
              ? { text: randomText(rnd, 10) }
              : {
                  range: { start: editPosition(rnd, scratch), end: editPosition(rnd, scratch) },
                  text: randomText(rnd, Math.floor(rnd() * 4)),
                };
          changes.push(change);
          scratch = TextDocument.update(scratch, [change], 1);
        }
        ours.update(changes, step + 2);
        theirs = TextDocument.update(theirs, changes, step + 2);
        assertSame(ours, theirs, rnd, `seed ${seed} step ${step} ${JSON.stringify(changes)}`);
      }
    }
  });

  it('types and erases a directive in a large file, keeping the rest of the text intact', () => {
    const body = Array.from({ length: 3000 }, (_, i) => `    server_name s${i}.example;\n`).join('');
    const text = `http {\n${body}}\n`;
    const ours = new LineDocument('file:///big.conf', 'nginx', 1, text);
    const word = 'proxy_read_timeout 30s;';
    let version = 1;
    for (let i = 0; i < word.length; i++)
      ours.update([{ range: { start: { line: 1500, character: i }, end: { line: 1500, character: i } }, text: word[i] }], ++version);
    assert.equal(
      ours.getText({ start: { line: 1500, character: 0 }, end: { line: 1500, character: 100 } }),
      `${word}    server_name s1499.example;`,
    );
    for (let i = word.length; i > 0; i--)
      ours.update([{ range: { start: { line: 1500, character: i - 1 }, end: { line: 1500, character: i } }, text: '' }], ++version);
    assert.equal(ours.getText(), text);
    assert.equal(ours.version, 1 + 2 * word.length);
  });
});

describe('positionsOf (the rule engine: a library document with a line table of its own)', () => {
  it("gives the library's position for every offset, including past either end and inside line breaks", () => {
    const rnd = random(77);
    const texts = ['', '\n', '\r\n', '\r', 'a', 'a\n', 'a\r\nb\rc\n\nd', '\r\r\n\n\r', 'listen 80;\r\n}\r'];
    for (let k = 0; k < 200; k++) texts.push(randomText(rnd, 1 + Math.floor(rnd() * 30)));
    for (const text of texts) {
      const doc = TextDocument.create('file:///p.conf', 'nginx', 1, text);
      const at = positionsOf(doc);
      for (let o = -2; o <= text.length + 2; o++) assert.deepEqual(at(o), doc.positionAt(o), `${JSON.stringify(text)} at ${o}`);
    }
  });
});
