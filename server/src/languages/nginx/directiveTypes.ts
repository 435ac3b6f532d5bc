// The shape of one directive's definition: the types both the tables (data.ts) and the loadable
// modules' rows (modules.ts) build, in a file of their own so neither imports the other for them.
export type ValueType = 'size' | 'time' | 'number';

export interface ArgType {
  types: ValueType[];
  /** Literal values accepted besides the typed ones (e.g. `auto`, `off`). */
  values: string[];
}

/** One module's definition of a directive (a name can have several: http, stream, mail...). */
export interface DirectiveVariant {
  name: string;
  module: string;
  /** Our context names (see blockContext in ast.ts); `*` is anywhere. */
  contexts: string[];
  block: boolean;
  min: number;
  /** -1: no upper bound. */
  max: number;
  flag?: boolean;
  /** Every argument must be one of these (flag and enum directives). */
  values?: string[];
  /** Per position; null: not checked. */
  argTypes?: (ArgType | null)[];
  default?: string;
  /** Version the directive (or its module) appeared in; undefined: long ago. */
  since?: string;
  /** First version without it. */
  until?: string;
  /** Obsolete from this version on (nginx warns), with the replacement the docs name. */
  deprecated?: { since: string; use?: string };
  /** Only in the commercial subscription. */
  commercial: boolean;
  /** Keyword parameters (`ssl`, `backlog=`) with the version they appeared in ('' = long ago). */
  params?: Record<string, string>;
  /** nginx rejects a second one in the same block ("is duplicate"). */
  duplicate?: boolean;
  /** A binary of this version was seen to accept it despite `since` (a distribution backport). */
  knownIn?: string;
  /** The `.so` (base name) nginx must load for it: a loadable module's directive (see modules.ts). */
  load?: string;
  /** From a third-party module's command table (data/modules.json) rather than nginx's reference. */
  thirdParty?: boolean;

  /** Probed (versions.json): the oldest matrix binary that knows it, when the target's does not. */
  firstSeenIn?: string;
  /** Probed: first-argument values the target version refuses (others accept them). */
  refusedValues?: string[];
  /** Probed: parameters (`resolve`, `weight=`) the target version refuses, with the oldest matrix binary that takes each. */
  refusedParams?: Record<string, string | undefined>;
}
