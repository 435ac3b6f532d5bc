// Finished runs, kept per config file in the workspace state (survives reloads, stays with the
// workspace), plus the last result per route for the CodeLens. Bounded: the oldest runs of a
// config are dropped beyond `keep`.
import { isRunRecord, type RunRecord } from '../../../protocol/panel';

/** The part of vscode.Memento this store needs. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

const RUNS = 'proxyTuner.bench.runs:';
const COMPARE = 'proxyTuner.bench.compare:';

export class RunStore {
  private readonly listeners = new Set<(configUri: string) => void>();

  constructor(
    private readonly state: StateStore,
    private readonly keep: () => number,
  ) {}

  onDidChange(fn: (configUri: string) => void): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  private fire(uri: string): void {
    for (const fn of this.listeners) fn(uri);
  }

  /** Runs of a config, oldest first; records that no longer match the current shape are skipped. */
  runs(configUri: string): RunRecord[] {
    const raw = this.state.get<unknown[]>(RUNS + configUri);
    return Array.isArray(raw) ? raw.filter(isRunRecord) : [];
  }

  get(configUri: string, id: string): RunRecord | undefined {
    return this.runs(configUri).find((r) => r.id === id);
  }

  async add(run: RunRecord): Promise<void> {
    const all = this.runs(run.configUri).filter((r) => r.id !== run.id);
    all.push(run);
    const keep = Math.max(2, this.keep());
    await this.state.update(RUNS + run.configUri, all.slice(-keep));
    this.fire(run.configUri);
  }

  async delete(configUri: string, id: string): Promise<void> {
    await this.state.update(
      RUNS + configUri,
      this.runs(configUri).filter((r) => r.id !== id),
    );
    const c = this.compare(configUri);
    if (c.a === id || c.b === id) await this.setCompare(configUri, c.a === id ? null : c.a, c.b === id ? null : c.b);
    this.fire(configUri);
  }

  /** The newest run of a config for a route key (`config` = the whole file), if any. */
  lastFor(configUri: string, route: string): RunRecord | undefined {
    const runs = this.runs(configUri);
    for (let i = runs.length - 1; i >= 0; i--) if ((runs[i].route ?? 'config') === route) return runs[i];
    return undefined;
  }

  last(configUri: string): RunRecord | undefined {
    const runs = this.runs(configUri);
    return runs[runs.length - 1];
  }

  compare(configUri: string): { a: string | null; b: string | null } {
    const c = this.state.get<{ a: string | null; b: string | null }>(COMPARE + configUri);
    return { a: typeof c?.a === 'string' ? c.a : null, b: typeof c?.b === 'string' ? c.b : null };
  }

  async setCompare(configUri: string, a: string | null, b: string | null): Promise<void> {
    await this.state.update(COMPARE + configUri, { a, b });
  }

  /** Next run number of a config, for labels (#1, #2, ...). */
  nextNumber(configUri: string): number {
    const nums = this.runs(configUri).map((r) => Number(/^#(\d+)/.exec(r.label)?.[1] ?? 0));
    return Math.max(0, ...nums) + 1;
  }
}
