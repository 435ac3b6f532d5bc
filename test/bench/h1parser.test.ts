import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Feed, H1ResponseParser } from '../../bench/src/h1parser';

const feedAll = (p: H1ResponseParser, chunks: string[]) => {
  let r: Feed = Feed.More;
  for (const c of chunks) {
    const b = Buffer.from(c, 'latin1');
    r = p.feed(b, 0, b.length);
  }
  return r;
};

test('content-length response in one chunk', () => {
  const p = new H1ResponseParser();
  assert.equal(feedAll(p, ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello']), Feed.Done);
  assert.equal(p.status, 200);
  assert.equal(p.close, false);
  assert.equal(p.bodyBytes, 5);
});

test('head split across chunks and body in pieces', () => {
  const p = new H1ResponseParser();
  assert.equal(feedAll(p, ['HTTP/1.1 404 Not', ' Found\r\ncontent-length: 10\r', '\n\r\n12345']), Feed.More);
  assert.equal(feedAll(p, ['678']), Feed.More);
  assert.equal(feedAll(p, ['90']), Feed.Done);
  assert.equal(p.status, 404);
  assert.equal(p.bodyBytes, 10);
});

test('only the given range of a reused buffer is read', () => {
  const p = new H1ResponseParser();
  const buf = Buffer.alloc(256, 0x20);
  const head = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  head.copy(buf, 0);
  Buffer.from('\r\n\r\n').copy(buf, 200); // stale bytes after the range
  assert.equal(p.feed(buf, 0, 20), Feed.More);
});

test('chunked body with trailers', () => {
  const p = new H1ResponseParser();
  const r = feedAll(p, ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nab', 'cd\r\n3;x=y\r\nefg\r\n0\r\nX-T: 1\r\n\r\n']);
  assert.equal(r, Feed.Done);
  assert.equal(p.bodyBytes, 7);
});

test('Connection: close and HTTP/1.0 mark the connection for closing', () => {
  const a = new H1ResponseParser();
  assert.equal(feedAll(a, ['HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n']), Feed.Done);
  assert.equal(a.close, true);
  const b = new H1ResponseParser();
  assert.equal(feedAll(b, ['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n']), Feed.Done);
  assert.equal(b.close, true);
});

test('no length: body runs until the connection closes', () => {
  const p = new H1ResponseParser();
  assert.equal(feedAll(p, ['HTTP/1.1 200 OK\r\nServer: x\r\n\r\nabc']), Feed.More);
  assert.equal(p.untilClose, true);
  assert.equal(p.close, true);
});

test('204 has no body whatever the headers say', () => {
  const p = new H1ResponseParser();
  assert.equal(feedAll(p, ['HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n']), Feed.Done);
});

test('garbage is an error, not an exception', () => {
  const p = new H1ResponseParser();
  assert.equal(feedAll(p, ['SSH-2.0-OpenSSH_9.2\r\n\r\n']), Feed.Error);
});
