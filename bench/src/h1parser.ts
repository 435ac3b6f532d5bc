// A lean HTTP/1.x response parser for the load generator. One response at a time per connection
// (no pipelining). The fast path finds the end of the head with Buffer.indexOf and the length with
// a case-sensitive search for the usual header spelling; anything unusual takes a slower path.
// Every loop is bounded by the bytes it was given.

const CRLF2 = Buffer.from('\r\n\r\n');
const CL_LOWER_TEXT = Buffer.from('content-length:');
const CONN_CLOSE_TEXT = Buffer.from('connection: close');

/** Whether b[at...] equals `lower` ignoring ASCII case (letters only are folded). */
function matchLower(b: Buffer, at: number, lower: Buffer): boolean {
  if (at + lower.length > b.length) return false;
  for (let i = 0; i < lower.length; i++) {
    const c = b[at + i];
    const l = lower[i];
    if (c !== l && (c | 0x20) !== l) return false;
  }
  return true;
}
const MAX_HEAD = 64 * 1024;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkCrlf,
  Trailers,
  UntilClose,
}

export const enum Feed {
  /** More bytes are needed. */
  More = 0,
  /** The response is complete. */
  Done = 1,
  /** The bytes are not a valid HTTP/1 response. */
  Error = 2,
}

export class H1ResponseParser {
  status = 0;
  /** The server will close the connection after this response. */
  close = false;
  bodyBytes = 0;
  private state = State.Head;
  private left = 0;
  private partial: Buffer | null = null;
  private line = '';
  /** Whether the request was HEAD (no body whatever the headers say). */
  headRequest = false;

  reset(): void {
    this.status = 0;
    this.close = false;
    this.bodyBytes = 0;
    this.state = State.Head;
    this.left = 0;
    this.partial = null;
    this.line = '';
  }

  /** True while waiting for the end of a body delimited by the connection closing. */
  get untilClose(): boolean {
    return this.state === State.UntilClose;
  }

  /** Feeds buf[start, end). */
  feed(buf: Buffer, start: number, end: number): Feed {
    if (this.state === State.Head) {
      let b = buf;
      let s = start;
      let e = end;
      if (this.partial !== null) {
        b = Buffer.concat([this.partial, buf.subarray(start, end)]);
        s = 0;
        e = b.length;
      }
      // The read buffer is reused: bytes after e are stale, so a match there does not count.
      // (A miss scans to the buffer's end, but only for a head split across reads.)
      let idx = b.indexOf(CRLF2, s);
      if (idx + 4 > e) idx = -1;
      if (idx === -1) {
        if (e - s > MAX_HEAD) return Feed.Error;
        this.partial = Buffer.from(b.subarray(s, e));
        return Feed.More;
      }
      this.partial = null;
      const r = this.parseHead(b, s, idx);
      if (r === Feed.Error) return r;
      return this.afterHead(b, idx + 4, e);
    }
    return this.body(buf, start, end);
  }

  private parseHead(b: Buffer, s: number, idx: number): Feed {
    // "HTTP/1.1 200 ..."
    if (idx - s < 12 || b[s] !== 0x48 || b[s + 4] !== 0x2f) return Feed.Error;
    const d0 = b[s + 9] - 48;
    const d1 = b[s + 10] - 48;
    const d2 = b[s + 11] - 48;
    if (d0 < 1 || d0 > 5 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return Feed.Error;
    this.status = d0 * 100 + d1 * 10 + d2;
    const http10 = b[s + 7] === 0x30;
    let cl = -1;
    // One pass over the head's line starts: Content-Length and Connection in their usual spelling.
    // (No Buffer.indexOf here: it would scan the stale bytes after the head when a header is absent.)
    let found = false;
    let connClose = false;
    for (let j = s; j < idx; j++) {
      if (b[j] !== 10) continue;
      const c0 = b[j + 1] | 0x20;
      if (c0 === 0x63 /* c */) {
        const c8 = b[j + 8] | 0x20;
        if (c8 === 0x2d /* - in "Content-" */ && matchLower(b, j + 1, CL_LOWER_TEXT)) {
          let k = j + 1 + CL_LOWER_TEXT.length;
          while (k < idx && b[k] === 0x20) k++;
          let n = 0;
          let digits = 0;
          while (k < idx && b[k] >= 48 && b[k] <= 57 && digits < 16) {
            n = n * 10 + (b[k] - 48);
            k++;
            digits++;
          }
          if (digits > 0) {
            cl = n;
            found = true;
          }
        } else if (matchLower(b, j + 1, CONN_CLOSE_TEXT)) {
          connClose = true;
        }
      }
    }
    if (found) {
      this.close = http10 || connClose;
      if (http10) {
        const lower = b.toString('latin1', s, idx).toLowerCase();
        if (lower.includes('\r\nconnection: keep-alive')) this.close = false;
      }
    } else {
      // Slow path: no Content-Length in the usual spelling.
      const lower = b.toString('latin1', s, idx).toLowerCase();
      const m = /\r\ncontent-length:\s*(\d+)/.exec(lower);
      if (m) cl = Number(m[1]);
      const chunked = /\r\ntransfer-encoding:[^\r]*chunked/.test(lower);
      const connClose = /\r\nconnection:[^\r]*close/.test(lower);
      const keepAlive = /\r\nconnection:[^\r]*keep-alive/.test(lower);
      this.close = connClose || (http10 && !keepAlive);
      if (chunked) cl = -2;
    }
    const noBody = this.headRequest || this.status === 204 || this.status === 304 || this.status < 200;
    if (noBody) {
      this.state = State.Length;
      this.left = 0;
    } else if (cl >= 0) {
      this.state = State.Length;
      this.left = cl;
    } else if (cl === -2) {
      this.state = State.ChunkSize;
      this.line = '';
    } else {
      this.state = State.UntilClose;
      this.close = true;
    }
    return Feed.More;
  }

  private afterHead(b: Buffer, s: number, e: number): Feed {
    if (this.state === State.Length && this.left === 0) return Feed.Done;
    return this.body(b, s, e);
  }

  private body(b: Buffer, s: number, e: number): Feed {
    let i = s;
    // Bounded: each iteration consumes at least one byte or returns.
    for (let guard = 0; guard <= e - s + 8; guard++) {
      switch (this.state) {
        case State.Length: {
          const n = Math.min(this.left, e - i);
          this.left -= n;
          this.bodyBytes += n;
          return this.left === 0 ? Feed.Done : Feed.More;
        }
        case State.UntilClose:
          this.bodyBytes += e - i;
          return Feed.More;
        case State.ChunkSize:
        case State.Trailers: {
          if (i >= e) return Feed.More;
          const relNl = b.subarray(i, e).indexOf(10);
          const nl = relNl === -1 ? -1 : i + relNl;
          if (nl === -1) {
            this.line += b.toString('latin1', i, e);
            if (this.line.length > 4096) return Feed.Error;
            return Feed.More;
          }
          const line = (this.line + b.toString('latin1', i, nl)).replace(/\r$/, '');
          this.line = '';
          i = nl + 1;
          if (this.state === State.Trailers) {
            if (line === '') return Feed.Done;
            continue;
          }
          const size = parseInt(line, 16);
          if (!Number.isFinite(size) || size < 0) return Feed.Error;
          if (size === 0) {
            this.state = State.Trailers;
          } else {
            this.left = size;
            this.state = State.ChunkData;
          }
          continue;
        }
        case State.ChunkData: {
          const n = Math.min(this.left, e - i);
          this.left -= n;
          this.bodyBytes += n;
          i += n;
          if (this.left === 0) {
            this.state = State.ChunkCrlf;
            this.left = 2;
          }
          if (i >= e) return Feed.More;
          continue;
        }
        case State.ChunkCrlf: {
          const n = Math.min(this.left, e - i);
          this.left -= n;
          i += n;
          if (this.left === 0) this.state = State.ChunkSize;
          if (i >= e) return Feed.More;
          continue;
        }
        default:
          return Feed.Error;
      }
    }
    return Feed.Error;
  }
}
