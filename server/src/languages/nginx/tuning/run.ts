// The tuning pass of one file: every check of checks.ts (CHECK_OF, one per tuning row) and then the
// security checks (security.ts), in that order. Here rather than in checks.ts so that neither of
// the two imports the other's runner (security.ts uses checks.ts's context and helpers).
//
// With a memo (the open document's, kept by the caller from one version to the next) the pass is
// proportional to the edit: the checks that judge each node of their lists on its own
// (PER_PART_CHECKS, security's per-sink ones) run part by part, a part being an http-level server
// or the stretch of the file between two of them, and an unchanged server's findings are taken
// over from the previous run (moved with the server). The other checks, which weigh the whole file
// (upstream users, default servers, the TLS servers' shared settings...), run over the whole file
// as before. A server's findings are kept only when the edit lies inside one other server and
// leaves everything outside that server, its listen lines and any `map` in it as they were: what a
// per-part check reads of the file beyond a node's own blocks (the http and main levels, the
// default servers, `map` variables) is then what it was.
import { shiftFinding } from '../../../core/rules';
import type { ServiceSettings } from '../../../core/types';
import {
  CHECK_OF,
  PER_PART_CHECKS,
  PER_PART_GROUPS,
  unitOf,
  type BlockLevel,
  type Node,
  type NginxCheck,
  type NginxCheckContext,
} from './checks';
import { PER_SINK_NAMES, runSecurityChecks, SECURITY_RUN, type NginxSecurityRuleId, type SecurityCheck } from './security';
import { computeFlow, type NginxFlow, type Sink } from '../flow';
import type { NginxTuningRuleId } from './rules';
import type { NginxFinding as Finding } from '../rules';

/** The rows whose check is in CHECK_OF: every tuning row but the version's end of life (the service's) and the security ones. */
type CheckedRow = Exclude<NginxTuningRuleId, 'nginx/version-end-of-life' | NginxSecurityRuleId>;
// a tuning row without its check, or a check under a row that is not one of CheckedRow, does not compile
const complete: Record<CheckedRow, NginxCheck> = CHECK_OF;
const exact: Record<keyof typeof CHECK_OF, true> = {} as Record<CheckedRow, true>;
void complete;
void exact;

/** The checks in run order; the security checks last. */
const CHECKS: readonly NginxCheck[] = [...new Set<NginxCheck>(Object.values(CHECK_OF)), runSecurityChecks];

/** The same run order, the security checks one by one; `perPart`: the check may run part by part. */
type Step = { checks: NginxCheck; perPart: boolean } | { security: SecurityCheck; perPart: boolean };
const STEPS: readonly Step[] = [
  ...[...new Set<NginxCheck>(Object.values(CHECK_OF))].map((c): Step => ({ checks: c, perPart: PER_PART_CHECKS.has(c) })),
  ...SECURITY_RUN.map((s): Step => ({ security: s.check, perPart: s.perPart })),
];
const PART_STEPS = STEPS.filter((s) => s.perPart).length;

/** One http-level server of the previous run of the same document (no node, no slice of the text). */
interface ServerEntry {
  start: number;
  end: number;
  /** The text of its own listen lines (the flow's default servers are worked out from every server's). */
  listens: string;
  /** Whether a `map` lies inside it (a map's variable is the whole file's). */
  map: boolean;
  /** The indentation step its fixes used, when they used one. */
  unit: string | undefined;
  /** Its findings per part-wise step, in run order; undefined when they cannot be kept (one lies outside it, or names a line). */
  out: Finding[][] | undefined;
}

/** Per open document: the http-level servers of the last tuning run; replaced at every run. */
export interface NginxTuningMemo {
  text: string;
  settings: ServiceSettings | undefined;
  context: string;
  servers: ServerEntry[];
  /** Counts of the last run (tests and benchmarks read them): servers whose findings were taken over, servers judged. */
  reused: number;
  walked: number;
}

export function createNginxTuningMemo(): NginxTuningMemo {
  return { text: '', settings: undefined, context: '', servers: [], reused: 0, walked: 0 };
}

export function runNginxChecks(ctx: NginxCheckContext, memo?: NginxTuningMemo): Finding[] {
  if (!memo) {
    for (let i = 0; i < CHECKS.length; i++) CHECKS[i](ctx);
    return ctx.out;
  }
  return runWithMemo(ctx, memo);
}

const EMPTY: never[] = [];
const CHUNK = 2048;

/** The lists a part-wise check reads, restricted to one part (made on first use; EMPTY when a part has none). */
interface PartLists {
  groups: Node[][];
  /** Left empty: no part-wise check reads `ctx.servers`. */
  servers: BlockLevel[];
  headerBlocks: BlockLevel[];
  locationIfs: BlockLevel[];
  sinks: Map<string, Sink[]> | undefined;
  empty: boolean;
}

function newPart(groupCount: number): PartLists {
  const groups: Node[][] = new Array(groupCount);
  for (let g = 0; g < groupCount; g++) groups[g] = EMPTY;
  return { groups, servers: EMPTY, headerBlocks: EMPTY, locationIfs: EMPTY, sinks: undefined, empty: true };
}

/** The start of the line before the one holding `offset` (a comment there is read by proxy_buffering's check). */
function lineBeforeStart(text: string, offset: number): number {
  const ls = text.lastIndexOf('\n', offset - 1) + 1;
  return ls > 0 ? text.lastIndexOf('\n', ls - 2) + 1 : 0;
}

function lineEndAt(text: string, offset: number): number {
  const e = text.indexOf('\n', offset);
  return e < 0 ? text.length : e;
}

function listensOf(text: string, b: BlockLevel): string {
  let out = '';
  const list = b.children;
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    if (d.name === 'listen' && !d.entry) out += `${text.slice(d.start, d.end)}\n`;
  }
  return out;
}

function within(list: readonly Finding[], from: number, to: number): boolean {
  for (let i = 0; i < list.length; i++) {
    const f = list[i];
    if (f.start < from || f.end > to) return false;
    if (f.fixes) for (const fx of f.fixes) for (const e of fx.edits) if (e.start < from || e.end > to) return false;
  }
  return true;
}

/**
 * Which servers' findings the previous run hands over: entry i for server i, when the edit lies
 * inside one other server (see the file's comment). Empty when none can be.
 */
function reusable(
  ctx: NginxCheckContext,
  memo: NginxTuningMemo,
  servers: readonly BlockLevel[],
  flow: NginxFlow,
): (ServerEntry | undefined)[] {
  const prev = memo.servers;
  const none: (ServerEntry | undefined)[] = [];
  if (memo.settings !== ctx.settings || memo.context !== ctx.top.inner || prev.length !== servers.length || !prev.length) return none;
  const a = memo.text;
  const b = ctx.text;
  const max = Math.min(a.length, b.length);
  // the common head and tail of the two texts, a chunk at a time first (string equality is a memory compare)
  let p = 0;
  while (p + CHUNK <= max && a.substring(p, p + CHUNK) === b.substring(p, p + CHUNK)) p += CHUNK;
  while (p < max && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  let s = 0;
  while (s + CHUNK <= max - p && a.substring(a.length - s - CHUNK, a.length - s) === b.substring(b.length - s - CHUNK, b.length - s))
    s += CHUNK;
  while (s < max - p && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  const delta = b.length - a.length;
  const winEnd = b.length - s;
  // the edited server: it holds the whole change, in the old text and in the new
  let x = -1;
  if (!(delta === 0 && p === max)) {
    for (let i = 0; i < servers.length; i++) {
      const d = servers[i].d;
      if (d.start <= p && winEnd <= d.end) {
        x = i;
        break;
      }
    }
    if (x < 0) return none;
    const d = servers[x].d;
    const old = prev[x];
    if (old.start !== d.start || a.length - old.end !== b.length - d.end || old.map || old.listens !== listensOf(b, servers[x]))
      return none;
    for (const m of flow.maps.values()) if (m.d.start >= d.start && m.d.start < d.end) return none;
  }
  const out: (ServerEntry | undefined)[] = new Array(servers.length);
  for (let i = 0; i < servers.length; i++) {
    if (i === x) continue;
    const d = servers[i].d;
    const old = prev[i];
    const moved = i > x && x >= 0 ? delta : 0;
    if (!old.out || old.start + moved !== d.start || old.end - old.start !== d.end - d.start) continue;
    // what the server's findings read of the text around it (its first line's and the line before, its last line) lies outside the change
    const from = lineBeforeStart(b, d.start);
    const to = lineEndAt(b, d.end);
    if (x >= 0 && !(to <= p || from >= winEnd)) continue;
    if (old.unit !== undefined && old.unit !== unitOf(ctx)) continue;
    out[i] = old;
  }
  return out;
}

function runWithMemo(ctx: NginxCheckContext, memo: NginxTuningMemo): Finding[] {
  const http = ctx.http;
  const servers: BlockLevel[] = [];
  if (http) for (const b of ctx.servers) if (b.up === http) servers.push(b);
  const flow = computeFlow(ctx.file, ctx.top.inner);
  const reuse = servers.length ? reusable(ctx, memo, servers, flow) : [];
  const text = ctx.text;
  // the parts run afresh, with their own lists
  const partCount = 2 * servers.length + 1;
  const parts: (PartLists | undefined)[] = new Array(partCount);
  const groupCount = ctx.groups.length;
  const bounds = new Int32Array(partCount + 1);
  /** `bounds`: where each part's nodes begin in `list` (text order), part q holding [bounds[q], bounds[q + 1]). */
  const cut = (list: readonly { d: { start: number } }[]): void => {
    let j = 0;
    const n = list.length;
    for (let i = 0; i < servers.length; i++) {
      const d = servers[i].d;
      while (j < n && list[j].d.start < d.start) j++;
      bounds[2 * i + 1] = j;
      while (j < n && list[j].d.start < d.end) j++;
      bounds[2 * i + 2] = j;
    }
    bounds[0] = 0;
    bounds[partCount] = n;
  };
  /** The part's lists when it runs afresh and has nodes in [from, to) of a list; else undefined. */
  const partFor = (q: number, from: number, to: number): PartLists | undefined => {
    if (from === to || (q & 1 && reuse[(q - 1) >> 1] !== undefined)) return undefined;
    let part = parts[q];
    if (part === undefined) parts[q] = part = newPart(groupCount);
    part.empty = false;
    return part;
  };
  for (const g of PER_PART_GROUPS) {
    const list = ctx.groups[g];
    if (!list.length) continue;
    cut(list);
    for (let q = 0; q < partCount; q++) {
      const part = partFor(q, bounds[q], bounds[q + 1]);
      if (part) part.groups[g] = list.slice(bounds[q], bounds[q + 1]);
    }
  }
  if (ctx.headerBlocks.length) {
    cut(ctx.headerBlocks);
    for (let q = 0; q < partCount; q++) {
      const part = partFor(q, bounds[q], bounds[q + 1]);
      if (part) part.headerBlocks = ctx.headerBlocks.slice(bounds[q], bounds[q + 1]);
    }
  }
  if (ctx.locationIfs.length) {
    cut(ctx.locationIfs);
    for (let q = 0; q < partCount; q++) {
      const part = partFor(q, bounds[q], bounds[q + 1]);
      if (part) part.locationIfs = ctx.locationIfs.slice(bounds[q], bounds[q + 1]);
    }
  }
  for (const name of PER_SINK_NAMES) {
    const list = flow.sinks.get(name);
    if (!list || !list.length) continue;
    cut(list);
    for (let q = 0; q < partCount; q++) {
      const part = partFor(q, bounds[q], bounds[q + 1]);
      if (part) (part.sinks ??= new Map()).set(name, list.slice(bounds[q], bounds[q + 1]));
    }
  }
  // each server's findings per part-wise step, and whether they can be kept
  const found: Finding[][][] = new Array(servers.length);
  const keep: boolean[] = new Array(servers.length);
  const unitUsed: boolean[] = new Array(servers.length);
  for (let i = 0; i < servers.length; i++) {
    if (reuse[i] !== undefined) continue;
    found[i] = [];
    keep[i] = true;
    unitUsed[i] = false;
  }
  const moved: Finding[][][] = new Array(servers.length);
  const full = { groups: ctx.groups, servers: ctx.servers, headerBlocks: ctx.headerBlocks, locationIfs: ctx.locationIfs };
  const fileSinks = flow.sinks;
  const noSinks = new Map<string, Sink[]>();
  let p = 0;
  for (const step of STEPS) {
    if (!step.perPart) {
      if ('checks' in step) step.checks(ctx);
      else step.security(ctx, flow);
      continue;
    }
    for (let q = 0; q < partCount; q++) {
      const i = (q - 1) >> 1;
      if (q & 1) {
        const old = reuse[i];
        if (old !== undefined) {
          const delta = servers[i].d.start - old.start;
          const list = old.out![p];
          let now = list;
          if (delta !== 0 && list.length) {
            now = new Array(list.length);
            for (let k = 0; k < list.length; k++) now[k] = shiftFinding(list[k], delta);
          }
          for (let k = 0; k < now.length; k++) ctx.out.push(now[k]);
          (moved[i] ??= new Array(PART_STEPS))[p] = now;
          continue;
        }
      }
      const part = parts[q];
      if (part === undefined || part.empty) {
        if (q & 1) found[i].push(EMPTY);
        continue;
      }
      ctx.groups = part.groups;
      ctx.servers = part.servers;
      ctx.headerBlocks = part.headerBlocks;
      ctx.locationIfs = part.locationIfs;
      ctx.readUnit = false;
      ctx.readLines = false;
      const k = ctx.out.length;
      if ('checks' in step) step.checks(ctx);
      else {
        // the flow's answers are the whole file's; only the sinks a check walks are the part's
        flow.sinks = part.sinks ?? noSinks;
        step.security(ctx, flow);
        flow.sinks = fileSinks;
      }
      if (q & 1) {
        const mine = ctx.out.length > k ? ctx.out.slice(k) : EMPTY;
        found[i].push(mine);
        if (ctx.readLines || (mine.length && !within(mine, servers[i].d.start, servers[i].d.end))) keep[i] = false;
        if (ctx.readUnit) unitUsed[i] = true;
      }
    }
    p++;
    ctx.groups = full.groups;
    ctx.servers = full.servers;
    ctx.headerBlocks = full.headerBlocks;
    ctx.locationIfs = full.locationIfs;
  }
  // this run's servers, for the next
  const entries: ServerEntry[] = new Array(servers.length);
  let reused = 0;
  for (let i = 0; i < servers.length; i++) {
    const d = servers[i].d;
    const old = reuse[i];
    if (old !== undefined) {
      reused++;
      entries[i] = d.start === old.start ? old : { ...old, start: d.start, end: d.end, out: moved[i] };
      continue;
    }
    let map = false;
    for (const m of flow.maps.values()) if (m.d.start >= d.start && m.d.start < d.end) map = true;
    entries[i] = {
      start: d.start,
      end: d.end,
      listens: listensOf(text, servers[i]),
      map,
      unit: unitUsed[i] ? unitOf(ctx) : undefined,
      out: keep[i] ? found[i] : undefined,
    };
  }
  memo.text = text;
  memo.settings = ctx.settings;
  memo.context = ctx.top.inner;
  memo.servers = entries;
  memo.reused = reused;
  memo.walked = servers.length - reused;
  return ctx.out;
}
