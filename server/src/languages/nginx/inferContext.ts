// The context an nginx file is included in (`main`, `http`, `server`...), from a context comment,
// the project config or the file's shape: validation, tuning, completion, hover, signature help
// and inlay hints judge a fragment in this context.
import type { Directive, NginxFile } from './ast';
import { childContext } from './ast';
import { DIRECTIVES, MAIN_MARKERS, NGINX_CONTEXTS, type DirectiveVariant } from './data';

export function allowedVariant(v: DirectiveVariant, ctx: string): boolean {
  return v.contexts.includes(ctx) || v.contexts.includes('*');
}

/**
 * A function of two strings, remembered by (outer, inner) key; the outer level is emptied when it
 * passes `maxOuter` keys, so a long session with many versions or contexts stays bounded. Results
 * for which `keep` says no are computed every time.
 */
export function memo2(
  maxOuter: number,
  compute: (outer: string, inner: string) => boolean,
  keep: (outer: string, inner: string) => boolean = () => true,
): (outer: string, inner: string) => boolean {
  const cache = new Map<string, Map<string, boolean>>();
  return (outer, inner) => {
    let m = cache.get(outer);
    if (!m) {
      if (cache.size >= maxOuter) cache.clear();
      cache.set(outer, (m = new Map()));
    }
    let r = m.get(inner);
    if (r === undefined) {
      r = compute(outer, inner);
      if (keep(outer, inner)) m.set(inner, r);
    }
    return r;
  };
}

/** Whether some variant of a known directive is allowed in `ctx`, by context; unknown names are not kept (the user's text names them). */
const knownAndMisplaced = memo2(
  64,
  (ctx, name) => {
    const v = DIRECTIVES.get(name);
    return v !== undefined && !v.some((x) => allowedVariant(x, ctx));
  },
  (_ctx, name) => DIRECTIVES.has(name),
);

/** Directives of the tree that would not be allowed if the file were included in `ctx`. */
function misplacedCount(list: Directive[], ctx: string, limit: number): number {
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    if (d.entry) continue;
    if (knownAndMisplaced(ctx, d.name)) n++;
    if (n > limit) return n;
    if (d.block && !d.rawBody && d.block.children.length) {
      const inner = childContext(ctx, d.name);
      if (!inner.startsWith('block:')) n += misplacedCount(d.block.children, inner, limit - n);
    }
  }
  return n;
}

const CONTEXT_COMMENT = /^\s*context:\s*([a-z/ ]+?)\s*$/i;
/** `# proxy-tuner: context server`: the product's own spelling, anywhere in the file. */
const TOOL_CONTEXT_COMMENT = /^\s*proxy-tuner:\s*context[:\s]\s*([a-z/]+(?: [a-z/]+)*)\s*$/i;

/**
 * The context a file is included in: a `# context: server` comment before the first
 * directive says it; else `main` when it holds main-level directives; else the candidate
 * context where the fewest directives would be misplaced (a `sites-enabled` file with
 * `server {}` blocks is `http`, a `stream.d` file whose servers use `proxy_timeout` is `stream`).
 */
export function inferContext(file: NginxFile, configured?: string): string {
  // a function of the parse alone (parses are never changed): validation, tuning, completion and
  // hover all ask for it, once per parse is enough
  let ctx = inferredContexts.get(file);
  if (ctx === undefined) inferredContexts.set(file, (ctx = inferContextOnce(file)));
  // a context comment in the file wins over the project config's `contexts` (`configured`),
  // which wins over the guess from the file's shape
  if (configured && !ctx.comment) return configured;
  return ctx.context;
}

const inferredContexts = new WeakMap<NginxFile, { context: string; comment: boolean }>();

function inferContextOnce(file: NginxFile): { context: string; comment: boolean } {
  const first = file.directives[0]?.start ?? Infinity;
  for (const c of file.comments) {
    const tool = TOOL_CONTEXT_COMMENT.exec(c.text);
    if (tool) return { context: tool[1].toLowerCase(), comment: true };
    if (c.start > first) continue;
    const m = CONTEXT_COMMENT.exec(c.text);
    if (m) return { context: m[1].toLowerCase(), comment: true };
  }
  return { context: inferFromShape(file), comment: false };
}

function inferFromShape(file: NginxFile): string {
  const top = file.directives.filter((d) => !d.entry);
  if (top.length === 0 || top.some((d) => MAIN_MARKERS.has(d.name))) return 'main';
  let best = 'main';
  let bestN = Infinity;
  for (const ctx of NGINX_CONTEXTS) {
    const n = misplacedCount(top, ctx, bestN);
    if (n < bestN) {
      best = ctx;
      bestN = n;
      if (n === 0) break;
    }
  }
  return best;
}
