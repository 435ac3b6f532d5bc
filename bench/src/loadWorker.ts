// Entry of the benchmark's helper threads and processes (bundled to dist/loadWorker.js):
// - as a worker thread it runs the load generator (generator.ts): it reports 'ready' once loaded,
//   then starts on a 'start' message carrying the shared schedule, and ends on 'stop' or by itself;
// - as a child process started with --proxy-tuner-backend it runs the built-in backend.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Generator, type WorkerConfig, type WorkerMessage } from './generator';
import { BACKEND_FLAG, runBackendChild } from './backend';
import { pinThisThread } from './placement';

type Control = { type: 'start'; startAt: number; measureAt: number; endAt: number } | { type: 'stop' };

if (!isMainThread && parentPort) {
  const port = parentPort;
  const cfg = workerData as WorkerConfig;
  let gen: Generator | null = null;
  const post = (m: WorkerMessage, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
  port.on('message', (m: Control) => {
    try {
      if (m.type === 'start' && !gen) {
        gen = new Generator({ ...cfg, startAt: m.startAt, measureAt: m.measureAt, endAt: m.endAt }, post);
        gen.run();
      } else if (m.type === 'stop') {
        gen?.stop();
      }
    } catch (e) {
      post({ type: 'fatal', worker: cfg.id, message: (e as Error).message });
    }
  });
  // Placement: only this thread moves (in the editor the rest of the process is the extension host).
  const pinError = cfg.cpus && cfg.cpus.length > 0 ? pinThisThread(cfg.cpus) : null;
  post(pinError ? { type: 'ready', worker: cfg.id, pinError } : { type: 'ready', worker: cfg.id });
} else if (process.argv.includes(BACKEND_FLAG)) {
  runBackendChild();
}
