// Every rule of the product in one list: the registry of each language (languages/<lang>/rules.ts:
// validation, tuning and safety, the workspace's names across files, the local binaries' facts,
// the engine's own). What `proxy-tuner rules`, `proxy-tuner explain` and the SARIF rule table
// read; pure data.
import type { RuleMeta } from '../core/rules';
import { nginxRegistry } from '../languages/nginx/rules';
import { haproxyRegistry } from '../languages/haproxy/rules';

/** Every rule row (the two languages' registries), each id once, nginx's first. */
export function allRules(): RuleMeta[] {
  return [...nginxRegistry.all(), ...haproxyRegistry.all()];
}

/** One rule by id (`nginx/proxy-pass-no-upstream`); undefined when there is none. */
export function findRule(id: string): RuleMeta | undefined {
  return nginxRegistry.get(id) ?? haproxyRegistry.get(id);
}

/** The versions a rule applies to, in words. */
export function ruleVersions(r: RuleMeta): string {
  const name = r.language === 'nginx' ? 'nginx' : 'HAProxy';
  if (r.since && r.until) return `${name} ${r.since} up to (not including) ${r.until}`;
  if (r.since) return `${name} ${r.since} and later`;
  if (r.until) return `${name} before ${r.until}`;
  return `every ${name} version`;
}
