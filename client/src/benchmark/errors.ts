// Turns an engine failure into what the panel and the Problems view show: a message and, when
// the engine or the binary named one, the line of the user's config. The engine maps its sandbox
// copies back to the path it was given; when the panel handed it a temporary copy of an unsaved
// editor, that copy's path is mapped back here. No vscode import (unit-tested).

export interface MappedError {
  message: string;
  /** 0-based line in the user's config, when known. */
  line: number | null;
  /** Whether it was a cancel (not an error to show). */
  aborted: boolean;
  /** A short kind for the diagnostic code. */
  kind: 'usage' | 'refused' | 'config-check' | 'binary' | 'aborted' | 'other';
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * @param err what runBenchmark rejected with
 * @param paths the config paths that mean "the user's file": the real path and, for an unsaved
 *   editor, the temporary copy the engine read
 */
export function mapBenchError(err: unknown, paths: readonly string[]): MappedError {
  const e = err as { name?: string; message?: string; file?: string; line?: number; details?: string } | undefined;
  const name = e?.name ?? '';
  let message = typeof e?.message === 'string' ? e.message : String(err);
  if (name === 'AbortError') return { message: 'Benchmark stopped.', line: null, aborted: true, kind: 'aborted' };
  const kind: MappedError['kind'] =
    name === 'SandboxRefusal'
      ? 'refused'
      : name === 'ConfigCheckError'
        ? 'config-check'
        : name === 'BenchUsageError'
          ? 'usage'
          : /\b(not found on PATH|not an executable|install)\b/i.test(message)
            ? 'binary'
            : 'other';
  let line: number | null = null;
  if (typeof e?.line === 'number' && e.line > 0 && (!e.file || paths.includes(e.file))) line = e.line - 1;
  const texts = [message, typeof e?.details === 'string' ? e.details : ''];
  for (const p of paths) {
    if (line !== null) break;
    // nginx: "in /path/nginx.conf:12"; HAProxy: "[/path/haproxy.cfg:12]"; the engine: "/path:12:".
    const re = new RegExp(`${escapeRe(p)}:(\\d+)`);
    for (const t of texts) {
      const m = re.exec(t);
      if (m && Number(m[1]) > 0) {
        line = Number(m[1]) - 1;
        break;
      }
    }
  }
  // Show the user's file name, not the temporary copy's path.
  if (paths.length > 1) message = message.split(paths[1]).join(paths[0]);
  return { message, line, aborted: false, kind };
}
