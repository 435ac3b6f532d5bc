// The validation schedule and the warm-up state machine of the language server, without the
// protocol: the clock and the timers are injected (a fake clock in test/lsp/scheduleClock.test.ts),
// and what a validation does (read the document, wait for its settings, compute, publish) comes
// from the server (server.ts) as a `ValidationJob`. Per open document:
// - after an edit, validate once the document has rested for a short delay (the edits of a
//   burst already sent are applied first: the timer restarts with each one);
// - a document whose validations are slow (the least of its last three) waits longer: 1 ms per
//   ms beyond 50, up to 250 ms, so that it is validated once per pause in typing instead of
//   after every key;
// - one validation of a document at a time: edits that arrive while one runs (it may wait for
//   the client's settings) make one follow-up run of the newest version when it ends;
// - a publication is never older than the one before it, and nothing is published for a
//   document closed meanwhile (its state is dropped on close; a run holding it stops).

/** Time and timers, as the schedule uses them (`systemClock`: performance.now, setTimeout, setImmediate). */
export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Runs `fn` after the I/O already read is handled (one more turn of the event loop). */
  setImmediate(fn: () => void): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  setImmediate: (fn) => {
    setImmediate(fn);
  },
};

/**
 * Validations up to this long run as soon as the document rests: well under a gap between
 * keystrokes, one per key costs little. Each ms a document's validation takes beyond this adds
 * one ms of waiting, up to MAX_ADAPTIVE_DELAY_MS: a slow document waits for a pause in typing
 * (gaps between keys are ~100-250 ms) rather than blocking the server after every key, and one
 * only a little over the line is not made to wait as long again as it computes.
 */
export const SLOW_VALIDATION_MS = 50;
export const MAX_ADAPTIVE_DELAY_MS = 250;
/**
 * Warm-up after open. The first validations of a session run code V8 has not compiled yet and
 * take several times longer than later ones (a 5,000-line file: ~70 ms at open, then 10-25 ms for
 * the first keystrokes' validations and ~4 ms once compiled), so the first keystrokes after
 * opening a file would wait for that. While a freshly opened document rests after its first
 * publication, the server validates a copy of it in the background, the copy whole once and
 * then a statement typed into it one character per run (server.ts warmUpRuns), up to
 * WARM_UP_RUNS runs and WARM_UP_BUDGET_MS of their time per language per server, one every
 * WARM_UP_GAP_MS; nothing is published. Any edit, and any validation due, stops it. A document
 * whose first validation took longer than WARM_UP_MAX_MS is not validated again in the background
 * (too long to repeat). Before the validations, the first turn builds the language's request
 * tables (WarmUp.prepare).
 */
export const WARM_UP_RUNS = 30;
export const WARM_UP_GAP_MS = 10;
export const WARM_UP_MAX_MS = 400;
// the runs are the bound; the time caps them on a slow machine, with room for a machine half as
// fast as the one this was set on to finish them (with 400 ms it stopped after 8-16 runs and the
// first keystrokes met cold code; docs/benchmarks.md, "warm-up")
export const WARM_UP_BUDGET_MS = 1200;
/** Other open documents, which an edit may affect through includes, are revalidated after this. */
export const OTHERS_DELAY_MS = 500;
/**
 * A document's validation time is the least of its last three: a collection or a busy machine
 * makes one run slow now and then, and the first validation of a document (at open) pays for
 * compiling the code and building tables once, so it is not counted.
 */
export const COSTS_KEPT = 3;

/** The schedule of one open document (held in the server's per-document state). */
export class DocSchedule {
  timer: unknown = undefined;
  /** When the timer fires (clock.now()). */
  due = 0;
  running = false;
  /** Something asked for a validation while one ran. */
  rerun = false;
  /** The version last published. */
  published = -Infinity;
  /** Validations computed so far. */
  runs = 0;
  /** The last few validation times of this document, ms (not the first: one-time warm-up). */
  costs: number[] = [];
}

/** The rest after an edit: `floor` (the setting), or more for a document whose validations are slow. */
export function adaptiveDelay(floor: number, costs: readonly number[]): number {
  if (!costs.length) return floor;
  const typical = Math.min(...costs);
  return Math.max(floor, Math.min(typical - SLOW_VALIDATION_MS, MAX_ADAPTIVE_DELAY_MS));
}

/** A background validation of a copy of a freshly opened document. */
export interface WarmUp {
  /** Runs are counted per key (the language). */
  key: string;
  /** The document is still the version validated (open, not edited). */
  resting(): boolean;
  run(): void;
  /**
   * Optional: builds the tables the language's requests read (completion's lists), which the
   * first request would otherwise build. Run in the first warm-up turn, before any validation,
   * also after a first validation too slow to repeat (the tables cost the same for any document).
   */
  prepare?(): void;
}

/** One validation, once the document and its settings are known. */
export interface ValidationJob {
  /** The version validated. */
  version: number;
  /** Computes the diagnostics (or takes the last ones, when nothing changed). */
  compute(): { computed: boolean };
  /** Sends what compute() found. */
  publish(): void;
  /** How to warm up after this document's first validation (asked only then, however long it took); none for a document too large to analyse. */
  warmUp?(): WarmUp | undefined;
}

export interface ScheduleHooks {
  /** The schedule of an open document (created on first use, dropped on close). */
  scheduleOf(uri: string): DocSchedule;
  /** `s` is still the schedule of `uri` (not closed, not reopened). */
  isCurrent(uri: string, s: DocSchedule): boolean;
  /** The least rest after an edit (`proxyTuner.diagnostics.delay`). */
  delayFloor(uri: string): number;
  /** The document and its settings (which may have to be asked of the client); undefined: nothing to do (closed, or edited meanwhile: the follow-up run takes it). */
  prepare(uri: string, s: DocSchedule): Promise<ValidationJob | undefined>;
  onError(where: string, err: unknown): void;
}

export class ValidationSchedule {
  /** Warm-up runs so far, per language. */
  private readonly warmUpsDone = new Map<string, number>();
  /** The time those runs took, per language (ms). */
  private readonly warmUpSpent = new Map<string, number>();

  constructor(
    private readonly hooks: ScheduleHooks,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The rest after an edit of `uri`. */
  editDelay(uri: string): number {
    return adaptiveDelay(this.hooks.delayFloor(uri), this.hooks.scheduleOf(uri).costs);
  }

  /**
   * Asks for a validation of `uri`. `debounce` (edits): the timer restarts, `delay` from now.
   * Otherwise the run happens `delay` from now or earlier if one is already due sooner.
   */
  request(uri: string, delay: number, debounce = false): void {
    const s = this.hooks.scheduleOf(uri);
    if (s.running) {
      s.rerun = true;
      return;
    }
    const due = this.clock.now() + delay;
    if (s.timer !== undefined) {
      if (!debounce && s.due <= due) return;
      this.clock.clearTimeout(s.timer);
    }
    s.due = due;
    s.timer = this.clock.setTimeout(() => {
      s.timer = undefined;
      // One more turn of the event loop first: the JSON-RPC reader hands over the messages it has
      // read one per turn, so when the timer fires late (the process was descheduled, or a
      // collection ran) the rest of a burst may be read but not yet applied. An edit among them
      // sets a new timer, and this run gives way to it rather than validate a version half-typed.
      this.clock.setImmediate(() => {
        if (s.timer === undefined && !s.running && this.hooks.isCurrent(uri, s)) void this.run(uri, s);
      });
    }, delay);
  }

  /** A document closed: its timer stops (its state is dropped by the caller). */
  cancel(s: DocSchedule): void {
    if (s.timer !== undefined) this.clock.clearTimeout(s.timer);
    s.timer = undefined;
  }

  private async run(uri: string, s: DocSchedule): Promise<void> {
    s.running = true;
    try {
      const job = await this.hooks.prepare(uri, s);
      if (!job) return;
      const started = this.clock.now();
      const { computed } = job.compute();
      if (computed && s.runs++ > 0) {
        s.costs.push(this.clock.now() - started);
        if (s.costs.length > COSTS_KEPT) s.costs.shift();
      }
      if (job.version < s.published) return;
      s.published = job.version;
      job.publish();
      if (computed && s.runs === 1) {
        // the tables whatever the document took; validations again only for one quick enough
        const w = job.warmUp?.();
        if (w) this.warmUp(uri, s, w, w.prepare, this.clock.now() - started <= WARM_UP_MAX_MS);
      }
    } catch (err) {
      this.hooks.onError('validation', err);
    } finally {
      s.running = false;
      if (s.rerun && this.hooks.isCurrent(uri, s)) {
        s.rerun = false;
        this.request(uri, this.editDelay(uri), true);
      }
    }
  }

  /** Whether a language has warm-up runs left (WARM_UP_RUNS, WARM_UP_BUDGET_MS). */
  private warmUpLeft(key: string): boolean {
    return (this.warmUpsDone.get(key) ?? 0) < WARM_UP_RUNS && (this.warmUpSpent.get(key) ?? 0) < WARM_UP_BUDGET_MS;
  }

  /**
   * Background work for a freshly opened document: `prepare` (the request tables) in the first
   * turn, then validations of a copy (see WARM_UP_RUNS) when `validations`. One piece per turn.
   */
  private warmUp(uri: string, s: DocSchedule, w: WarmUp, prepare: (() => void) | undefined, validations: boolean): void {
    if (!prepare && (!validations || !this.warmUpLeft(w.key))) return;
    this.clock.setTimeout(() => {
      // only while the document rests: no edit, no validation running or due, still open
      if (!this.hooks.isCurrent(uri, s) || s.running || s.timer !== undefined || !w.resting()) return;
      if (prepare) {
        try {
          prepare();
        } catch (err) {
          this.hooks.onError('warm-up tables', err);
        }
      } else {
        if (!this.warmUpLeft(w.key)) return;
        this.warmUpsDone.set(w.key, (this.warmUpsDone.get(w.key) ?? 0) + 1);
        const started = this.clock.now();
        try {
          w.run();
        } catch (err) {
          this.hooks.onError('warm-up validation', err);
        }
        this.warmUpSpent.set(w.key, (this.warmUpSpent.get(w.key) ?? 0) + this.clock.now() - started);
      }
      this.warmUp(uri, s, w, undefined, validations);
    }, WARM_UP_GAP_MS);
  }
}
