// Every rule of the product in one list: the language modules' own rules (syntax, validation),
// the tuning and safety rules, the engine's and the workspace's (names across files). What
// `proxy-tuner rules`, `proxy-tuner explain` and the SARIF rule table read; pure data.
import type { RuleMeta } from './rules';
import { NGINX_RULES } from '../nginx/validation';
import { haproxyRuleRows } from '../haproxy';
import { tuningRuleRows } from '../tuning/index';
import { NAVIGATION_RULES } from './workspaceIndex';

/** Every rule row, each id once (the first row of an id wins), nginx's first. */
export function allRules(): RuleMeta[] {
  const seen = new Set<string>();
  const out: RuleMeta[] = [];
  // HAProxy's rows load its validation module (and keyword tables): only when every rule is asked for
  for (const r of [...NGINX_RULES, ...haproxyRuleRows(), ...tuningRuleRows(), ...NAVIGATION_RULES]) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return out.sort((a, b) => (a.language === b.language ? 0 : a.language === 'nginx' ? -1 : 1));
}

/** One rule by id (`nginx/proxy-pass-no-upstream`); undefined when there is none. */
export function findRule(id: string): RuleMeta | undefined {
  return allRules().find((r) => r.id === id);
}

/** The versions a rule applies to, in words. */
export function ruleVersions(r: RuleMeta): string {
  const name = r.language === 'nginx' ? 'nginx' : 'HAProxy';
  if (r.since && r.until) return `${name} ${r.since} up to (not including) ${r.until}`;
  if (r.since) return `${name} ${r.since} and later`;
  if (r.until) return `${name} before ${r.until}`;
  return `every ${name} version`;
}
