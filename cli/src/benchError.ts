// How `bench` ends on an error, one way for a run, a comparison and a capacity search: the
// message with the file's control characters escaped, and the exit status (130 interrupted,
// 2 bad usage, 1 otherwise).
import { BenchUsageError, ConfigCheckError, SandboxRefusal } from '../../bench/src/index';
import { escapeControls } from '../../server/src/core/text';

export function reportBenchError(e: unknown, tty: boolean): number {
  if (tty) process.stderr.write('\r\x1b[K');
  const err = e as Error;
  if (err.name === 'AbortError') {
    process.stderr.write('bench: interrupted; the proxy and the backend were stopped\n');
    return 130;
  }
  if (err instanceof BenchUsageError) {
    process.stderr.write(`bench: ${escapeControls(err.message)}\n`);
    return 2;
  }
  if (err instanceof SandboxRefusal) {
    process.stderr.write(`bench: refused: ${escapeControls(err.message)}\n`);
    return 1;
  }
  if (err instanceof ConfigCheckError) {
    process.stderr.write(`bench: ${escapeControls(err.message)}\n${escapeControls(err.details)}\n`);
    return 1;
  }
  process.stderr.write(`bench: ${escapeControls(err.message)}\n`);
  return 1;
}
