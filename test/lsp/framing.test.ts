// The stdio frame filter (server/src/lsp/framing.ts): well-formed frames pass whole whatever the
// chunking; a malformed header is dropped and reading resumes at the next Content-Length.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { contentLength, FrameFilter } from '../../server/src/lsp/framing';

const frame = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** What the filter passes on for `input` cut into chunks of `size` bytes, and what it reported. */
function run(input: string, size: number): { out: string; problems: string[] } {
  const problems: string[] = [];
  const f = new FrameFilter((m) => problems.push(m));
  const chunks: Buffer[] = [];
  f.on('data', (c: Buffer) => chunks.push(c));
  const bytes = Buffer.from(input);
  for (let i = 0; i < bytes.length; i += size) f.write(bytes.subarray(i, i + size));
  f.end();
  return { out: Buffer.concat(chunks).toString(), problems };
}

describe('FrameFilter', () => {
  const a = frame('{"jsonrpc":"2.0","id":1,"method":"a","params":"ü€"}');
  const b = frame('{"jsonrpc":"2.0","id":2,"method":"b"}');

  it('passes well-formed frames unchanged, in chunks of any size', () => {
    for (const size of [1, 2, 7, 64, 100_000]) {
      assert.deepEqual(run(a + b, size), { out: a + b, problems: [] }, `chunks of ${size}`);
    }
    const typed = `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n${b}`;
    assert.equal(run(typed, 5).out, b);
  });

  it('drops a malformed header and reads on from the next Content-Length', () => {
    for (const junk of [
      'X-Foo: 1\r\n\r\n{"id":99}',
      'Content-Length: abc\r\n\r\n{}',
      'Content-Length: -5\r\n\r\n{}',
      'no colon here\r\n\r\n{}',
      'Content-Length: 99999999999999\r\n\r\n{}',
      'Content-Length 5\n'.repeat(2000),
    ]) {
      for (const size of [1, 3, 4096]) {
        const r = run(a + junk + b, size);
        assert.equal(r.out, a + b, `${JSON.stringify(junk.slice(0, 30))} in chunks of ${size}`);
        assert.ok(r.problems.length >= 1);
      }
    }
  });

  it('reads a Content-Length only from a header of Name: value lines with a decimal length', () => {
    assert.equal(contentLength('Content-Length: 12'), 12);
    assert.equal(contentLength('content-length:3\r\nContent-Type: x'), 3);
    assert.equal(contentLength('Content-Type: x'), undefined);
    assert.equal(contentLength('Content-Length: 1e3'), undefined);
    assert.equal(contentLength('Content-Length: 5\r\nbroken'), undefined);
  });
});
