// `check` on many files: worker threads, one per core, each checking batches of files (a folder's
// files together, so they share one workspace index) while the main thread hands out the next
// batch, keeps the results in input order and draws progress on a terminal.
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { checkInputs, SettingsFor, type CheckOptions, type FileResult, type Input } from './checkCore';

/** A batch: at most this many files of one folder (a big folder is split, so every core gets work). */
const BATCH = 32;

export function defaultJobs(): number {
  return Math.max(1, typeof availableParallelism === 'function' ? availableParallelism() : 1);
}

/** Batches of input indexes: runs of one folder, at most BATCH long. */
function batchesOf(inputs: Input[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let dir: string | undefined;
  inputs.forEach((input, i) => {
    const d = dirname(resolve(input.file));
    if (current.length && (d !== dir || current.length >= BATCH)) {
      out.push(current);
      current = [];
    }
    dir = d;
    current.push(i);
  });
  if (current.length) out.push(current);
  return out;
}

export interface Progress {
  update(done: number, total: number): void;
  end(): void;
}

/** Progress on stderr when it is a terminal (a line redrawn at most 10 times a second); nothing otherwise. */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr, label = 'checked'): Progress | undefined {
  if (!stream.isTTY) return undefined;
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - last < 100) return;
      last = now;
      drawn = true;
      stream.write(`\r\x1b[K${label} ${done}/${total} files`);
    },
    end() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}

/** The message a worker gets: the options, then batches of inputs. */
export type ToWorker = { type: 'batch'; id: number; inputs: Input[] };
export type FromWorker = { type: 'done'; id: number; results: FileResult[] } | { type: 'failed'; id: number; error: string };

/**
 * Checks the inputs on `jobs` worker threads running `script` (the CLI bundle itself). Results
 * come back in input order.
 */
export async function checkInParallel(
  inputs: Input[],
  opts: CheckOptions,
  jobs: number,
  script: string,
  progress?: Progress,
): Promise<FileResult[]> {
  const batches = batchesOf(inputs);
  const results: FileResult[] = new Array(inputs.length);
  let next = 0;
  let done = 0;
  const workers: Worker[] = [];
  const n = Math.max(1, Math.min(jobs, batches.length));
  try {
    await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<void>((resolveWorker, reject) => {
            const w = new Worker(script, { workerData: { proxyTunerCheckWorker: true, opts } });
            workers.push(w);
            let finished = false;
            const send = () => {
              if (next >= batches.length) {
                finished = true;
                void w.terminate();
                resolveWorker();
                return;
              }
              const id = next++;
              const message: ToWorker = { type: 'batch', id, inputs: batches[id].map((i) => inputs[i]) };
              w.postMessage(message);
            };
            w.on('message', (m: FromWorker) => {
              if (m.type === 'failed') {
                reject(new Error(m.error));
                return;
              }
              batches[m.id].forEach((inputIndex, k) => (results[inputIndex] = m.results[k]));
              done += m.results.length;
              progress?.update(done, inputs.length);
              send();
            });
            w.on('error', reject);
            w.on('exit', (code) => {
              if (!finished) reject(new Error(`a check worker stopped (exit code ${code}) before its work was done`));
            });
            send();
          }),
      ),
    );
  } finally {
    for (const w of workers) void w.terminate();
    progress?.end();
  }
  return results;
}

/** The worker's side: checks each batch it is sent and posts the results back. */
export function runCheckWorker(port: import('node:worker_threads').MessagePort, opts: CheckOptions): void {
  const settings = new SettingsFor(opts);
  port.on('message', (m: ToWorker) => {
    try {
      const results = checkInputs(m.inputs, opts, settings);
      const reply: FromWorker = { type: 'done', id: m.id, results };
      port.postMessage(reply);
    } catch (err) {
      const reply: FromWorker = { type: 'failed', id: m.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
      port.postMessage(reply);
    }
  });
}
