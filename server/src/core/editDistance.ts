// The one edit distance of the product, for "did you mean" suggestions in both languages.

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);

/**
 * Levenshtein distance (insertions, deletions, substitutions of UTF-16 units), bounded: any
 * answer above `limit` is `limit + 1`, returned as soon as a row proves it. Two rows are kept
 * between calls, so a scan of thousands of candidates allocates nothing.
 */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (rowA.length <= b.length) {
    rowA = new Int32Array(b.length + 1);
    rowB = new Int32Array(b.length + 1);
  }
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca === b.charCodeAt(j - 1) ? 0 : 1));
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[b.length];
}
