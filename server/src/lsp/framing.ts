// The stdio transport's frames, checked before the JSON-RPC reader sees them. The reader of
// vscode-jsonrpc trusts every header: after one without a valid Content-Length it takes the next
// message's body for a header, that message's header for the body after it, and so on, so the
// server never answers again. This stream passes well-formed frames through (a body is streamed,
// never copied whole) and drops a malformed one: it skips to the next `Content-Length:` and reads
// on from there.
import { Transform, type TransformCallback } from 'node:stream';

/** A header block (all its lines) longer than this is no header: dropped. */
const MAX_HEADER_BYTES = 8 * 1024;
/** The largest message accepted (a 64 MB document sent whole, JSON-escaped, fits); a larger length is a malformed header. */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

const HEADER_END = Buffer.from('\r\n\r\n');
const EMPTY: Buffer = Buffer.alloc(0);
const CONTENT_LENGTH = /^content-length$/i;

/** What the framing dropped, for the log. */
export type FrameProblem = (message: string) => void;

export class FrameFilter extends Transform {
  /** Bytes of the header being read (nothing of it passed on yet). */
  private pending: Buffer = EMPTY;
  /** Body bytes still to pass through before the next header. */
  private bodyLeft = 0;
  /** Skipping to the next `Content-Length:` after a malformed header. */
  private resync = false;

  constructor(private readonly onProblem: FrameProblem = () => undefined) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.consume(chunk);
    } catch (err) {
      // never break the pipe: a bug here would end the server's input
      this.onProblem(`frame filter: ${(err as Error).message}`);
      this.pending = EMPTY;
      this.bodyLeft = 0;
      this.resync = true;
    }
    done();
  }

  private consume(chunk: Buffer): void {
    let rest: Buffer = chunk;
    while (rest.length) {
      if (this.bodyLeft > 0) {
        const n = Math.min(this.bodyLeft, rest.length);
        this.push(rest.subarray(0, n));
        this.bodyLeft -= n;
        rest = rest.subarray(n);
        continue;
      }
      // a header: gathered until its blank line
      this.pending = this.pending.length ? Buffer.concat([this.pending, rest]) : rest;
      rest = this.readHeaders();
    }
  }

  /** Reads the headers gathered; returns the bytes after the first good one (its body on), or nothing when it needs more. */
  private readHeaders(): Buffer {
    for (;;) {
      if (this.resync) {
        const next = this.pending.toString('latin1').search(/content-length:/i);
        if (next < 0) {
          // a tail is kept in case the name is split across chunks
          this.pending = Buffer.from(this.pending.subarray(Math.max(0, this.pending.length - 32)));
          return EMPTY;
        }
        this.pending = this.pending.subarray(next);
        this.resync = false;
      }
      const end = this.pending.indexOf(HEADER_END);
      if (end < 0) {
        if (this.pending.length <= MAX_HEADER_BYTES) return EMPTY;
        this.onProblem('a header without an end (no blank line): skipped to the next message');
        this.pending = this.pending.subarray(1);
        this.resync = true;
        continue;
      }
      const length = contentLength(this.pending.subarray(0, end).toString('latin1'));
      if (length === undefined || length > MAX_MESSAGE_BYTES) {
        // the next message may start inside this block (a header line lost its end): looked for from the next byte
        this.onProblem(
          length === undefined
            ? 'a header without a valid Content-Length: skipped to the next message'
            : `a Content-Length of ${length} bytes, over the ${MAX_MESSAGE_BYTES}-byte bound: skipped to the next message`,
        );
        this.pending = this.pending.subarray(1);
        this.resync = true;
        continue;
      }
      const after = this.pending.subarray(end + HEADER_END.length);
      this.pending = EMPTY;
      this.push(Buffer.from(`Content-Length: ${length}\r\n\r\n`, 'latin1'));
      this.bodyLeft = length;
      return after;
    }
  }
}

/** The Content-Length of a header block, when every line is `Name: value` and the length a decimal integer. */
export function contentLength(header: string): number | undefined {
  let length: number | undefined;
  for (const line of header.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).trim();
    if (!CONTENT_LENGTH.test(name)) continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d{1,15}$/.test(value)) return undefined;
    length = Number(value);
  }
  return length;
}
