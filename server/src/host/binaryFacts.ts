// The local nginx's build facts: runs `nginx -V` once per process, lists its modules folder and
// reads Debian's modules-enabled snippets (plain Node, like localVersions.ts). What the facts
// mean for a config is pure and lives with the language (languages/nginx/buildFacts.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadedModules, parseNginxV, type NginxBuildFacts } from '../languages/nginx/buildFacts';
import { findBinary, recordBuild, recordedBuild } from './localVersions';

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
    const bin = findBinary('nginx', explicitPath);
    if (!bin) return undefined;
    // a binary that is the same file as when it was last asked answers from the record
    let printed = recordedBuild(bin);
    if (printed === undefined) {
      const r = spawnSync(bin, ['-V'], { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
      printed = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
      if (parseNginxV(printed).version) recordBuild(bin, printed);
    }
    const facts = parseNginxV(printed);
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
