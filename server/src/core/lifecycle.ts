// End-of-life target versions: the release branches of nginx and HAProxy and when each stops
// getting fixes (data/branches.json, as of its `asOf` date: no clock here), the rule rows of the
// information diagnostic an end-of-life target gets, and the check that produces it.
import branchesJson from './data/branches.json';
import type { RuleMeta, Finding } from './rules';
import type { LanguageId } from './types';
import { compareVersions } from './version';

export interface Branch {
  branch: string;
  /** `stable`, `mainline`, `LTS`; absent for a short-lived branch. */
  kind?: string;
  /** Year and month the branch stops getting fixes; absent while no end is announced. */
  eol?: string;
}

export const BRANCHES_AS_OF: string = branchesJson.asOf;

/** The known branches of a product, oldest first. */
export function branches(product: LanguageId): Branch[] {
  const list = (branchesJson as unknown as Record<string, Branch[]>)[product] ?? [];
  return [...list].sort((a, b) => compareVersions(a.branch, b.branch));
}

/** The branch of a version (`1.22.1` -> `1.22`, `3.2-dev4` -> `3.2`). */
export function branchOf(version: string): string | undefined {
  const m = /^\s*v?(\d+)\.(\d+)/.exec(version);
  return m ? `${m[1]}.${m[2]}` : undefined;
}

const ended = (b: Branch, asOf: string) => b.eol !== undefined && b.eol <= asOf.slice(0, 7);

/** The branches still maintained at `asOf`, newest first. */
export function supportedBranches(product: LanguageId, asOf: string = BRANCHES_AS_OF): Branch[] {
  return branches(product)
    .filter((b) => !ended(b, asOf))
    .reverse();
}

/**
 * Whether a target version is end-of-life at `asOf`: its branch is listed as ended, or it is
 * older than every listed branch. A branch newer than the table (a future release) is not.
 */
export function endOfLife(
  product: LanguageId,
  version: string,
  asOf: string = BRANCHES_AS_OF,
): { branch: string; eol?: string } | undefined {
  const branch = branchOf(version);
  if (!branch) return undefined;
  const all = branches(product);
  const hit = all.find((b) => b.branch === branch);
  if (hit) return ended(hit, asOf) ? { branch, eol: hit.eol } : undefined;
  if (all.length && compareVersions(branch, all[0].branch) < 0) return { branch };
  return undefined;
}

/** Distribution releases that still patch the branch of `version` at `asOf` (Debian 12's nginx 1.22, Ubuntu 24.04's 1.24). */
export function distributionSupport(
  product: LanguageId,
  version: string,
  asOf: string = BRANCHES_AS_OF,
): { distribution: string; until: string }[] {
  const branch = branchOf(version);
  const list =
    (branchesJson as unknown as { distributions: Record<string, { branch: string; distribution: string; until: string }[]> }).distributions[
      product
    ] ?? [];
  return list
    .filter((d) => d.branch === branch && d.until > asOf.slice(0, 7))
    .map((d) => ({ distribution: d.distribution, until: d.until }));
}

/**
 * One line about the binary a run judges for, said once (the status bar, once per CLI run), not
 * on every file: end of life upstream, and the distributions that still patch the branch.
 */
export function eolNote(product: LanguageId, version: string | undefined, asOf: string = BRANCHES_AS_OF): string | undefined {
  if (!version) return undefined;
  const eol = endOfLife(product, version, asOf);
  if (!eol) return undefined;
  const patched = distributionSupport(product, version, asOf);
  return `${NAME[product]} ${version} is end-of-life upstream${eol.eol ? ` (branch ${eol.branch} ended ${eol.eol})` : ` (branch ${eol.branch})`}${
    patched.length ? `; ${patched.map((d) => `${d.distribution} still patches it until ${d.until}`).join(', ')}` : ''
  }.`;
}

export function eolRuleId<L extends LanguageId>(product: L): `${L}/version-end-of-life` {
  return `${product}/version-end-of-life`;
}

const NAME: Record<LanguageId, string> = { nginx: 'nginx', haproxy: 'HAProxy' };

export function eolRuleRow<L extends LanguageId>(product: L): RuleMeta<`${L}/version-end-of-life`> {
  return {
    id: eolRuleId(product),
    language: product,
    category: 'compatibility',
    severity: 'information',
    title: `The target ${NAME[product]} version is end-of-life`,
    why:
      product === 'nginx'
        ? 'nginx fixes bugs and security issues only in its current stable and mainline branches. A config judged for an older branch runs on a binary that upstream no longer fixes; a distribution may still backport security fixes to its own package, so check its support too. Newer branches also change defaults the rules depend on (upstream keep-alive since 1.29.7, TLS protocols since 1.23.4).'
        : 'HAProxy maintains each long-term-support branch for about five years and the others for about a year. A config judged for an ended branch runs on a binary that upstream no longer fixes; a distribution may still backport security fixes to its own package, so check its support too.',
    docUrl: product === 'nginx' ? 'https://nginx.org/en/download.html' : 'https://docs.haproxy.org/',
    fix:
      'None: upgrade the binary, or set `proxyTuner.' +
      product +
      '.version` to the version you will run (the Proxy Tuner: Pick Target Version command).',
  };
}

/** True for a file that is a whole config rather than an included fragment. */
function isMainFile(product: LanguageId, text: string): boolean {
  return product === 'nginx' ? /^\s*(events|http|stream|mail)\s*\{/m.test(text) : /^\s*(global|defaults)\b/m.test(text);
}

/** The end-of-life finding for a whole config judged at `version` (none for fragments or unknown targets). */
export function eolFindings<L extends LanguageId>(
  product: L,
  text: string,
  version: string | undefined,
  asOf: string = BRANCHES_AS_OF,
): Finding<`${L}/version-end-of-life`>[] {
  if (!version || !isMainFile(product, text)) return [];
  const eol = endOfLife(product, version, asOf);
  if (!eol) return [];
  const supported = supportedBranches(product, asOf)
    .map((b) => `${b.branch}${b.kind ? ` ${b.kind}` : ''}`)
    .join(', ');
  const m = product === 'nginx' ? /^\s*(events|http|stream|mail)\b/m.exec(text) : /^\s*(global|defaults)\b/m.exec(text);
  const start = m ? m.index + m[0].length - m[1].length : 0;
  const end = m ? start + m[1].length : 0;
  return [
    {
      ruleId: eolRuleId(product),
      start,
      end,
      message: `${eolNote(product, version, asOf)!.replace(/\.$/, '')}. Supported upstream branches as of ${asOf}: ${supported}.`,
    },
  ];
}
