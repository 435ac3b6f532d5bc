// Dotted version numbers ("1.22.1", "2.6", "3.2-dev") compared numerically.

export function parseVersion(v: string | undefined): number[] | undefined {
  if (!v) return undefined;
  const m = /^\s*v?(\d+(?:\.\d+)*)/.exec(v);
  return m ? m[1].split('.').map((n) => Number(n)) : undefined;
}

/** Negative when a < b, 0 when equal (missing parts count as 0), positive when a > b. */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a) ?? [];
  const pb = parseVersion(b) ?? [];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A target version is within [since, until) when both bounds that are given hold. */
export function versionInRange(target: string | undefined, since?: string, until?: string): boolean {
  if (!target) return until === undefined; // unknown target: judge as the newest
  if (since && compareVersions(target, since) < 0) return false;
  if (until && compareVersions(target, until) >= 0) return false;
  return true;
}
