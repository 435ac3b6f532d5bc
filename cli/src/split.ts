// `check` of one big nginx file on two cores: a worker thread parses the file itself and runs the
// tuning and security pass while the main thread parses it and runs the module's validation and the
// navigation diagnostics; the worker posts back only its diagnostics, which take the place the
// single-threaded path gives the pass's own (validateInWorkspaceParts), so the report is the same,
// in the same order. A small file does not pay a worker's start-up: see SPLIT_FROM.
import { readFileSync, statSync } from 'node:fs';
import { Worker, type MessagePort } from 'node:worker_threads';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { tuningPass, validateInWorkspaceParts } from '../../server/src/service/languageService';
import type { LanguageId, ServiceSettings } from '../../server/src/core/types';
import { byPosition, documentOf, workspaceOf, type CheckOptions, type FileResult, type SettingsFor } from './checkCore';
import { trace, traceBegin, traceMarks, type Mark } from './trace';

/**
 * Files from this size (bytes) are split. A worker costs ~0.03-0.1 s of start-up (node's
 * bootstrap and this bundle again) that only a big file's tuning pass pays back; below this the
 * one-thread path is as fast or faster (docs/benchmarks.md). `PROXY_TUNER_SPLIT_FROM` overrides
 * it (tests split small files with 0; a huge value turns splitting off).
 */
const SPLIT_FROM = 256 * 1024;

function splitFrom(): number {
  const env = process.env.PROXY_TUNER_SPLIT_FROM;
  const n = env === undefined || env === '' ? NaN : Number(env);
  return Number.isFinite(n) && n >= 0 ? n : SPLIT_FROM;
}

/** What the worker is started with. */
export interface WorkerStart {
  proxyTunerTuningWorker: true;
  uri: string;
  language: LanguageId;
  text: string;
}

/** From the worker: the pass's diagnostics, or why there are none (the main thread then runs it). */
type FromWorker = ({ diagnostics: Diagnostic[] } | { error: string }) & { marks?: Mark[] };

/** A started split: the worker and the text it was given. */
export interface Split {
  file: string;
  text: string;
  language: LanguageId;
  doc: TextDocument;
  worker: Worker;
  result: Promise<FromWorker>;
  /** The worker's trace (PROXY_TUNER_TRACE). */
  marks?: Mark[];
}

/**
 * Starts the worker for a `check` of exactly one file when it is nginx (by --language, else by
 * the detector) and at least SPLIT_FROM bytes; undefined otherwise (the caller checks as usual).
 * The text is read here once and given to both threads, so they judge the same bytes.
 */
export function startSplit(file: string, opts: CheckOptions, script: string): Split | undefined {
  let text: string;
  try {
    if (statSync(file).size < splitFrom()) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // the usual path reports what cannot be read
  }
  const { doc, language } = documentOf(file, text, opts.language);
  if (language !== 'nginx') return undefined;
  const start: WorkerStart = { proxyTunerTuningWorker: true, uri: doc.uri, language, text };
  const worker = new Worker(script, { workerData: start });
  worker.unref();
  const result = new Promise<FromWorker>((resolve) => {
    worker.once('message', (m: FromWorker) => resolve(m));
    worker.once('error', (err) => resolve({ error: err instanceof Error ? err.message : String(err) }));
    worker.once('exit', (code) => resolve({ error: `the tuning worker stopped (exit code ${code})` }));
  });
  trace('main', 'worker started');
  return { file, text, language, doc, worker, result };
}

/**
 * The settings as plain data for the worker: every resolved value but the local nginx's module
 * list (read lazily by `nginx -V`, for validation's load_module fix, never by the tuning pass).
 */
function plain(settings: ServiceSettings): ServiceSettings {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(settings) as (keyof ServiceSettings)[]) {
    if (key === 'nginxModules') continue;
    const value = settings[key];
    if (value !== undefined) out[key] = value;
  }
  return out as ServiceSettings;
}

/** `check` of the split file: the same FileResult as checkInputs gives for it. */
export async function checkSplit(split: Split, settingsFor: SettingsFor): Promise<FileResult[]> {
  const settings = settingsFor.get(split.file);
  split.worker.postMessage(plain(settings));
  const doc = split.doc;
  const ws = workspaceOf([doc]);
  const parts = validateInWorkspaceParts(doc, split.language, settings, ws, undefined, (s) => trace('main', s));
  const answer = await split.result;
  trace('main', 'worker answered');
  split.marks = answer.marks ?? [];
  void split.worker.terminate();
  let diagnostics: Diagnostic[];
  if ('diagnostics' in answer) diagnostics = parts.finish(answer.diagnostics);
  else {
    trace('main', `worker failed (${answer.error}); tuning here`);
    diagnostics = parts.finish();
  }
  return [{ file: split.file, language: split.language, diagnostics: diagnostics.sort(byPosition) }];
}

/** The worker's side: parse at once, then wait for the settings, run the tuning pass, post its diagnostics. */
export function runTuningWorker(port: MessagePort, start: WorkerStart): void {
  traceBegin('worker');
  let reply: FromWorker;
  let pass: ((settings: ServiceSettings) => Diagnostic[]) | undefined;
  try {
    pass = tuningPass(TextDocument.create(start.uri, start.language, 1, start.text), start.language);
    trace('worker', 'parse');
  } catch (err) {
    reply = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  port.once('message', (settings: ServiceSettings) => {
    if (pass) {
      try {
        reply = { diagnostics: pass(settings) };
        trace('worker', 'tuning');
      } catch (err) {
        reply = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
      }
    }
    reply.marks = traceMarks();
    port.postMessage(reply);
  });
}
