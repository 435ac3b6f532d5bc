// The validation schedule (server/src/lsp/schedule.ts) on a fake clock: debouncing, the earlier
// of two due times, one run at a time with one follow-up, the adaptive delay for slow documents,
// publications never older than the last, closed documents, and the warm-up after open (its
// gap, its budget per language, what stops it). test/lsp/schedule.test.ts holds the same
// behaviour over stdio with real time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DocSchedule,
  MAX_ADAPTIVE_DELAY_MS,
  SLOW_VALIDATION_MS,
  ValidationSchedule,
  WARM_UP_GAP_MS,
  WARM_UP_MAX_MS,
  WARM_UP_RUNS,
  WARM_UP_BUDGET_MS,
  adaptiveDelay,
  type Clock,
  type ValidationJob,
} from '../../server/src/lsp/schedule';

/** Timers that fire only when the test moves the time on. */
class FakeClock implements Clock {
  t = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  private immediates: (() => void)[] = [];

  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  setImmediate(fn: () => void): void {
    this.immediates.push(fn);
  }
  get pendingTimers(): number {
    return this.timers.size;
  }
  /** Moves the time to `t + ms`, firing the timers due on the way in order, each followed by the immediates it queued and the promise jobs they start. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers)
        if (e[1].at <= end && (!next || e[1].at < next[1].at || (e[1].at === next[1].at && e[0] < next[0]))) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
      await this.flushImmediates();
    }
    this.t = Math.max(this.t, end);
    await this.flushImmediates();
  }
  async flushImmediates(): Promise<void> {
    while (this.immediates.length) {
      const now = this.immediates;
      this.immediates = [];
      for (const fn of now) fn();
      await settle();
    }
  }
}

/** Lets promise jobs run (a few turns of the microtask queue). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

interface Doc {
  version: number;
  open: boolean;
  delay: number;
  /** How long a validation takes, on the fake clock. */
  cost: number;
  /** A validation waits for this before computing (the client's settings). */
  gate?: Promise<void>;
  large?: boolean;
  /** The warm-up also builds request tables first (WarmUp.prepare). */
  tables?: boolean;
  /** prepare() throws. */
  tablesFail?: boolean;
  /** How long a warm-up run takes, on the fake clock. */
  warmCost?: number;
}

/** A schedule over fake documents, recording what it computes, publishes and warms up. */
function harness(clock = new FakeClock()) {
  const docs = new Map<string, Doc>();
  const states = new Map<string, DocSchedule>();
  const log: string[] = [];
  const errors: string[] = [];
  const schedule = new ValidationSchedule(
    {
      scheduleOf: (uri) => {
        let s = states.get(uri);
        if (!s) states.set(uri, (s = new DocSchedule()));
        return s;
      },
      isCurrent: (uri, s) => states.get(uri) === s,
      delayFloor: (uri) => docs.get(uri)?.delay ?? 3,
      onError: (where, err) => errors.push(`${where}: ${String(err)}`),
      prepare: async (uri, s): Promise<ValidationJob | undefined> => {
        const doc = docs.get(uri);
        if (!doc?.open) return undefined;
        const version = doc.version;
        if (doc.gate) await doc.gate;
        if (states.get(uri) !== s || !doc.open || doc.version !== version) return undefined;
        return {
          version,
          compute: () => {
            log.push(`compute ${uri}@${version} t=${clock.t}`);
            clock.t += doc.cost;
            return { computed: true };
          },
          publish: () => log.push(`publish ${uri}@${version} t=${clock.t}`),
          warmUp: () =>
            doc.large
              ? undefined
              : {
                  key: uri.split('.').pop()!,
                  resting: () => doc.open && doc.version === version,
                  run: () => {
                    log.push(`warm ${uri}@${version} t=${clock.t}`);
                    clock.t += doc.warmCost ?? 0;
                  },
                  prepare: doc.tables
                    ? () => {
                        log.push(`tables ${uri}@${version} t=${clock.t}`);
                        if (doc.tablesFail) throw new Error('no tables');
                      }
                    : undefined,
                },
        };
      },
    },
    clock,
  );
  const open = (uri: string, d: Partial<Doc> = {}) => {
    docs.set(uri, { version: 1, open: true, delay: 3, cost: 1, ...d });
    schedule.request(uri, 0);
  };
  const edit = (uri: string) => {
    const d = docs.get(uri)!;
    d.version++;
    schedule.request(uri, schedule.editDelay(uri), true);
  };
  const close = (uri: string) => {
    docs.get(uri)!.open = false;
    const s = states.get(uri);
    if (s) schedule.cancel(s);
    states.delete(uri);
  };
  return { clock, docs, states, log, errors, schedule, open, edit, close };
}

const only = (log: string[], what: string) => log.filter((l) => l.startsWith(what));

describe('validation schedule (fake clock)', () => {
  it('validates a burst of edits once, after the last one has rested', async () => {
    const h = harness();
    h.open('a.conf', { cost: 0 });
    await h.clock.advance(0);
    assert.deepEqual(h.log, ['compute a.conf@1 t=0', 'publish a.conf@1 t=0']);
    h.log.length = 0;
    h.edit('a.conf');
    await h.clock.advance(2);
    h.edit('a.conf');
    await h.clock.advance(2);
    h.edit('a.conf');
    assert.deepEqual(only(h.log, 'compute'), [], 'nothing while the burst goes on');
    await h.clock.advance(2);
    assert.deepEqual(only(h.log, 'compute'), []);
    await h.clock.advance(1);
    assert.deepEqual(only(h.log, 'compute'), ['compute a.conf@4 t=7'], 'once, 3 ms after the last edit, of the last version');
  });

  it('a request without debounce keeps an earlier due time and moves a later one forward', async () => {
    const h = harness();
    h.docs.set('a.conf', { version: 1, open: true, delay: 3, cost: 0 });
    h.schedule.request('a.conf', 500, true);
    h.schedule.request('a.conf', 0);
    await h.clock.advance(0);
    assert.deepEqual(only(h.log, 'compute'), ['compute a.conf@1 t=0'], 'the earlier one wins');
    h.log.length = 0;
    h.schedule.request('a.conf', 10);
    h.schedule.request('a.conf', 400);
    await h.clock.advance(10);
    assert.deepEqual(only(h.log, 'compute'), ['compute a.conf@1 t=10'], 'a later request does not postpone a due run');
    await h.clock.advance(1000);
    assert.equal(only(h.log, 'compute').length, 1, 'and adds no second run');
  });

  it('runs one validation at a time: edits while one waits give one follow-up run of the newest version', async () => {
    const h = harness();
    let release!: () => void;
    h.open('a.conf', { gate: new Promise<void>((r) => (release = r)), cost: 0 });
    await h.clock.advance(0);
    assert.deepEqual(h.log, [], 'waiting for its settings');
    h.edit('a.conf');
    h.edit('a.conf');
    h.edit('a.conf');
    await h.clock.advance(100);
    assert.deepEqual(h.log, [], 'no second run starts while one is running');
    h.docs.get('a.conf')!.gate = undefined;
    release();
    await h.clock.advance(0);
    assert.deepEqual(h.log, [], 'the run of version 1 sees the document was edited and gives way');
    await h.clock.advance(3);
    assert.deepEqual(h.log, ['compute a.conf@4 t=103', 'publish a.conf@4 t=103'], 'one follow-up run, of the newest version');
  });

  it('a slow document waits 1 ms per ms beyond 50, up to 250 ms; the first run is not counted', async () => {
    assert.equal(adaptiveDelay(3, []), 3);
    assert.equal(adaptiveDelay(3, [40]), 3);
    assert.equal(adaptiveDelay(3, [120, 90, 200]), 90 - SLOW_VALIDATION_MS);
    assert.equal(adaptiveDelay(3, [1000]), MAX_ADAPTIVE_DELAY_MS);
    assert.equal(adaptiveDelay(500, [1000]), 500, 'a larger setting wins');
    const h = harness();
    h.open('a.conf', { cost: 1000 });
    await h.clock.advance(0);
    assert.equal(h.schedule.editDelay('a.conf'), 3, 'the validation at open pays for warm-up and is not counted');
    h.docs.get('a.conf')!.cost = 120;
    h.edit('a.conf');
    await h.clock.advance(3);
    assert.equal(h.schedule.editDelay('a.conf'), 70);
    h.log.length = 0;
    h.edit('a.conf');
    await h.clock.advance(69);
    assert.deepEqual(only(h.log, 'compute'), [], 'not before 70 ms');
    await h.clock.advance(1);
    assert.equal(only(h.log, 'compute').length, 1);
    // the least of the last three: one fast run brings the delay down at once, and it stays down for three runs
    h.docs.get('a.conf')!.cost = 10;
    h.edit('a.conf');
    await h.clock.advance(70);
    assert.equal(h.schedule.editDelay('a.conf'), 3);
    assert.deepEqual(h.states.get('a.conf')!.costs, [120, 120, 10]);
    h.docs.get('a.conf')!.cost = 300;
    for (let i = 0; i < 3; i++) {
      h.edit('a.conf');
      await h.clock.advance(300);
    }
    assert.deepEqual(h.states.get('a.conf')!.costs, [300, 300, 300], 'three kept');
    assert.equal(h.schedule.editDelay('a.conf'), MAX_ADAPTIVE_DELAY_MS);
  });

  it('never publishes a version older than the last one published', async () => {
    const h = harness();
    h.open('a.conf', { cost: 0 });
    await h.clock.advance(0);
    const s = h.states.get('a.conf')!;
    s.published = 5; // a newer version went out (e.g. before the client sent an undo with a lower number)
    h.log.length = 0;
    h.schedule.request('a.conf', 0);
    await h.clock.advance(0);
    assert.deepEqual(h.log, ['compute a.conf@1 t=0'], 'computed, not published');
  });

  it('a document closed meanwhile gets nothing late', async () => {
    const h = harness();
    h.open('a.conf');
    h.close('a.conf');
    await h.clock.advance(100);
    assert.deepEqual(h.log, []);
    assert.equal(h.clock.pendingTimers, 0, 'its timer was stopped');
    let release!: () => void;
    h.open('b.conf', { gate: new Promise<void>((r) => (release = r)) });
    await h.clock.advance(0);
    h.close('b.conf');
    release();
    await h.clock.advance(100);
    assert.deepEqual(h.log, [], 'a run waiting for settings when the document closed publishes nothing');
  });

  it('warms up while a fresh document rests: one run every 10 ms, thirty per language, stopped by an edit', async () => {
    const h = harness();
    h.open('a.conf', { cost: 5 });
    await h.clock.advance(0);
    await h.clock.advance(WARM_UP_GAP_MS * 3);
    assert.deepEqual(only(h.log, 'warm'), ['warm a.conf@1 t=15', 'warm a.conf@1 t=25', 'warm a.conf@1 t=35']);
    h.edit('a.conf');
    await h.clock.advance(1000);
    assert.equal(only(h.log, 'warm').length, 3, 'an edit stops it (and a later validation does not start it again)');
    // the budget is per language: all but three left for `conf`, all for `cfg`
    h.open('b.conf', { cost: 5 });
    h.open('c.cfg', { cost: 5 });
    await h.clock.advance(1000);
    assert.equal(only(h.log, 'warm b.conf').length, WARM_UP_RUNS - 3);
    assert.equal(only(h.log, 'warm c.cfg').length, WARM_UP_RUNS);
    assert.equal(only(h.log, 'publish').filter((l) => l.includes('@1')).length, 3, 'warm-up publishes nothing');
  });

  it('stops warming up a language once its runs took WARM_UP_BUDGET_MS', async () => {
    const h = harness();
    const per = 150;
    h.open('a.conf', { cost: 5, warmCost: per });
    await h.clock.advance(0);
    await h.clock.advance(5000);
    const runs = Math.ceil(WARM_UP_BUDGET_MS / per);
    assert.ok(runs < WARM_UP_RUNS);
    assert.equal(only(h.log, 'warm a.conf').length, runs, 'runs until their time reaches the budget');
    h.open('b.conf', { cost: 5, warmCost: per });
    await h.clock.advance(5000);
    assert.deepEqual(only(h.log, 'warm b.conf'), [], "the budget is the language's, across documents");
    h.open('c.cfg', { cost: 5, warmCost: per });
    await h.clock.advance(5000);
    assert.equal(only(h.log, 'warm c.cfg').length, runs, 'another language has its own');
  });

  it('does not warm up a document whose first validation was slow, a large one, or while a validation is due', async () => {
    const h = harness();
    h.open('slow.conf', { cost: WARM_UP_MAX_MS + 1 });
    h.open('large.cfg', { cost: 1, large: true });
    await h.clock.advance(1000);
    assert.deepEqual(only(h.log, 'warm'), []);
    h.open('busy.x', { cost: 1 });
    await h.clock.advance(0);
    h.schedule.request('busy.x', 50); // a validation due: warm-up waits for nothing, it skips
    await h.clock.advance(30);
    assert.deepEqual(only(h.log, 'warm'), [], 'no warm-up while a validation is due');
    assert.deepEqual(h.errors, []);
  });

  it('builds the request tables in the first warm-up turn, before the validations, also after a slow first validation', async () => {
    const h = harness();
    h.open('a.conf', { cost: 5, tables: true });
    await h.clock.advance(0);
    await h.clock.advance(WARM_UP_GAP_MS * 3);
    assert.deepEqual(
      h.log.filter((l) => l.startsWith('tables') || l.startsWith('warm')),
      ['tables a.conf@1 t=15', 'warm a.conf@1 t=25', 'warm a.conf@1 t=35'],
      'one piece of work per turn: the tables first',
    );
    await h.clock.advance(1000);
    assert.equal(only(h.log, 'warm').length, WARM_UP_RUNS, 'the tables take none of the validations');
    // too slow to validate again in the background: the tables all the same, then nothing
    h.open('slow.cfg', { cost: WARM_UP_MAX_MS + 1, tables: true });
    await h.clock.advance(2000);
    assert.equal(only(h.log, 'tables slow.cfg').length, 1);
    assert.deepEqual(only(h.log, 'warm slow.cfg'), []);
    // edited before its first turn, large, or failing: no tables, or an error logged and no harm
    h.open('edited.conf', { cost: 1, tables: true });
    await h.clock.advance(0);
    h.edit('edited.conf');
    h.open('large.conf', { cost: 1, tables: true, large: true });
    await h.clock.advance(1000);
    assert.deepEqual(only(h.log, 'tables edited.conf'), []);
    assert.deepEqual(only(h.log, 'tables large.conf'), []);
    assert.deepEqual(h.errors, []);
    h.open('fail.x', { cost: 1, tables: true, tablesFail: true });
    await h.clock.advance(1000);
    assert.equal(only(h.log, 'tables fail.x').length, 1);
    assert.deepEqual(h.errors, ['warm-up tables: Error: no tables']);
    assert.equal(only(h.log, 'warm fail.x').length, WARM_UP_RUNS, 'the validations go on after a failed table build');
  });
});
