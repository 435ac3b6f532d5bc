// The local nginx's build facts: reads `nginx -V` (run once per process, localVersions.ts), lists its modules folder and
// reads Debian's modules-enabled snippets (plain Node, like localVersions.ts). What the facts
// mean for a config is pure and lives with the language (languages/nginx/buildFacts.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadedModules, parseNginxV, type NginxBuildFacts } from '../languages/nginx/buildFacts';
import { localNginxV } from './localVersions';

export * from '../languages/nginx/buildFacts';

let cached: NginxBuildFacts | undefined | null = null;
let cachedKey = '';

/**
 * The local nginx's build facts (`nginx -V`, its modules folder, Debian's enabled modules), or
 * undefined without a binary. Never throws; asked once per binary. `PROXY_TUNER_NO_LOCAL_VERSION=1`
 * turns the probe off, as for the version.
 */
export function localNginxBuild(explicitPath?: string, timeoutMs = 2000): NginxBuildFacts | undefined {
  if (process.env.PROXY_TUNER_NO_LOCAL_VERSION === '1') return undefined;
  const key = explicitPath ?? '';
  if (cached !== null && cachedKey === key) return cached;
  cachedKey = key;
  cached = undefined;
  try {
    const out = localNginxV(explicitPath, timeoutMs);
    if (out === undefined) return undefined;
    const facts = parseNginxV(out);
    if (!facts.version) return undefined;
    if (facts.modulesPath) {
      facts.installed = [];
      if (existsSync(facts.modulesPath)) {
        for (const f of readdirSync(facts.modulesPath)) {
          const m = /^(ngx_\w+)\.so$/.exec(f);
          if (m) facts.installed.push(m[1]);
        }
      }
    }
    const enabledDir = '/etc/nginx/modules-enabled';
    if (existsSync(enabledDir)) {
      for (const f of readdirSync(enabledDir)) {
        try {
          facts.enabled.push(...loadedModules(readFileSync(join(enabledDir, f), 'utf8')));
        } catch {
          // a dangling link: that module is not enabled
        }
      }
    }
    cached = facts;
  } catch {
    cached = undefined;
  }
  return cached;
}
