// Tuning and safety diagnostics for nginx and HAProxy: the rule registries and one entry per
// language. The facade (service/languageService.ts) adds these to the language module's own
// diagnostics; suppression comments and the user's severity settings apply to both alike.
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { engineRules } from '../core/rules';
import type { RuleMeta } from '../core/rules';
import type { HostFacts, ServiceSettings } from '../core/types';
import type { NginxFile } from '../languages/nginx/ast';
import type { HaproxyFile } from '../languages/haproxy/ast';
import { parseNginx } from '../languages/nginx/parser';
import { haproxyModule } from '../languages/haproxy';
import { NGINX_TUNING_RULES } from '../languages/nginx/tuning/rules';
import { HAPROXY_TUNING_RULES } from '../languages/haproxy/tuning/rules';
import { buildContext } from '../languages/nginx/tuning/checks';
import { createNginxTuningMemo, runNginxChecks, type NginxTuningMemo } from '../languages/nginx/tuning/run';
import {
  buildHaproxyContext,
  createHaproxyTuningMemo,
  rememberHaproxyIndexes,
  type HaproxyTuningMemo,
} from '../languages/haproxy/tuning/checks';
import { runHaproxyChecks } from '../languages/haproxy/tuning/run';
import { eolFindings, eolRuleId } from '../core/lifecycle';
import type { LanguageId } from '../core/types';

/**
 * The end of life of the target binary is a fact of the binary, said once (status bar, once per
 * CLI run): on each file only when the user selected the rule in the settings.
 */
function eolSelected(lang: LanguageId, settings: ServiceSettings): boolean {
  const s = settings.rules?.[eolRuleId(lang)];
  return s !== undefined && s !== 'off';
}

export { NGINX_TUNING_RULES, HAPROXY_TUNING_RULES };

// one registry per language (languages/<lang>/rules.ts) holds these rows with every other code
export { nginxRegistry as nginxTuningRegistry } from '../languages/nginx/rules';
export { haproxyRegistry as haproxyTuningRegistry } from '../languages/haproxy/rules';
import { nginxRegistry } from '../languages/nginx/rules';
import { haproxyRegistry } from '../languages/haproxy/rules';

/** Every rule row this area owns (tuning rules plus the engine's own), for docs and tests. */
export function tuningRuleRows(): RuleMeta[] {
  return [...NGINX_TUNING_RULES, ...engineRules('nginx'), ...HAPROXY_TUNING_RULES, ...engineRules('haproxy')];
}

/** Where nginx and HAProxy packages (Debian, Red Hat, Alpine, FreeBSD, Homebrew, source builds) load their configs from. */
const LOCAL_CONFIG = /^\/(?:usr\/local\/|opt\/homebrew\/)?etc\/(?:nginx|haproxy)\/|^\/usr\/local\/nginx\/conf\//;

/**
 * The facts of the machine `uri` runs on: given by a setting (`target`), or probed on this machine
 * when the file is one the local binary loads. A config linted elsewhere (a repository, a role, a
 * chart) runs on another machine, whose cores and limits are not these.
 */
export function hostFactsFor(uri: string, settings: ServiceSettings): HostFacts | undefined {
  const host = settings.host;
  if (!host || host.target) return host;
  let path: string;
  try {
    path = uri.startsWith('file://') ? decodeURIComponent(new URL(uri).pathname) : uri;
  } catch {
    return undefined;
  }
  return LOCAL_CONFIG.test(path) ? host : undefined;
}

function asNginx(doc: TextDocument, ast: unknown): NginxFile {
  const a = ast as Partial<NginxFile> | undefined;
  if (a && typeof a === 'object' && Array.isArray(a.directives) && Array.isArray(a.comments) && a.text === doc.getText())
    return a as NginxFile;
  return parseNginx(doc.getText());
}

function asHaproxy(doc: TextDocument, ast: unknown): HaproxyFile {
  const a = ast as Partial<HaproxyFile> | undefined;
  if (a && typeof a === 'object' && Array.isArray(a.sections) && a.text === doc.getText()) return a as HaproxyFile;
  return haproxyModule.parse(doc.getText()) as HaproxyFile; // its parser is loaded with HAProxy's first file
}

/**
 * nginx tuning and safety diagnostics. `ast` is the module's parse (re-parsed when it is not an nginx AST).
 * `bag`: the caller's memo of this document (ParseCache.memoOf), where the previous run's findings of
 * each http-level server are kept for the next version's run (`bag.nginxTuning`, tuning/run.ts).
 */
export function nginxTuning(doc: TextDocument, ast: unknown, settings: ServiceSettings, bag?: Record<string, unknown>): Diagnostic[] {
  let memo = bag?.nginxTuning as NginxTuningMemo | undefined;
  try {
    const file = asNginx(doc, ast);
    if (bag && !memo) bag.nginxTuning = memo = createNginxTuningMemo();
    const ctx = buildContext(file, settings);
    ctx.host = hostFactsFor(doc.uri, settings);
    const findings = runNginxChecks(ctx, memo);
    if (eolSelected('nginx', settings)) findings.push(...eolFindings('nginx', file.text, settings.nginxVersion));
    return nginxRegistry.toDiagnostics(doc, findings, settings, 'nginx');
  } catch {
    if (bag && memo) bag.nginxTuning = undefined; // a half-done run is no base for the next
    return []; // a rule bug must never take the other diagnostics down
  }
}

/** HAProxy tuning and safety diagnostics. */
/**
 * HAProxy tuning and safety diagnostics. `bag`: the caller's memo of this document (ParseCache.memoOf),
 * where the previous run's section indexes are kept for the next version's run (`bag.haproxyTuning`).
 */
export function haproxyTuning(doc: TextDocument, ast: unknown, settings: ServiceSettings, bag?: Record<string, unknown>): Diagnostic[] {
  let memo = bag?.haproxyTuning as HaproxyTuningMemo | undefined;
  try {
    const file = asHaproxy(doc, ast);
    if (!memo) memo = createHaproxyTuningMemo();
    if (bag) bag.haproxyTuning = memo;
    const ctx = buildHaproxyContext(file, settings, memo);
    ctx.host = hostFactsFor(doc.uri, settings);
    const findings = runHaproxyChecks(ctx);
    rememberHaproxyIndexes(ctx, memo);
    if (eolSelected('haproxy', settings)) findings.push(...eolFindings('haproxy', file.text, settings.haproxyVersion));
    return haproxyRegistry.toDiagnostics(doc, findings, settings, 'haproxy');
  } catch {
    if (memo) memo.file = undefined;
    return [];
  }
}
