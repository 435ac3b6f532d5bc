// Tuning and safety diagnostics for nginx and HAProxy: the rule registries and one entry per
// language. The facade (service/languageService.ts) adds these to the language module's own
// diagnostics; suppression comments and the user's severity settings apply to both alike.
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { RuleRegistry, engineRules } from '../service/rules';
import type { RuleMeta } from '../service/rules';
import type { ServiceSettings } from '../service/types';
import type { NginxFile } from '../nginx/ast';
import type { HaproxyFile } from '../haproxy/ast';
import { parseNginx } from '../nginx/parser';
import { parseHaproxy } from '../haproxy/parser';
import { NGINX_TUNING_RULES } from './nginx/rules';
import { HAPROXY_TUNING_RULES } from './haproxy/rules';
import { buildContext, runNginxChecks } from './nginx/checks';
import { buildHaproxyContext, createHaproxyTuningMemo, rememberHaproxyIndexes, runHaproxyChecks, type HaproxyTuningMemo } from './haproxy/checks';
import { eolFindings } from './lifecycle';

export { NGINX_TUNING_RULES, HAPROXY_TUNING_RULES };

export const nginxTuningRegistry = new RuleRegistry(NGINX_TUNING_RULES);
export const haproxyTuningRegistry = new RuleRegistry(HAPROXY_TUNING_RULES);

/** Every rule row this area owns (tuning rules plus the engine's own), for docs and tests. */
export function tuningRuleRows(): RuleMeta[] {
  return [...NGINX_TUNING_RULES, ...engineRules('nginx'), ...HAPROXY_TUNING_RULES, ...engineRules('haproxy')];
}

function asNginx(doc: TextDocument, ast: unknown): NginxFile {
  const a = ast as Partial<NginxFile> | undefined;
  if (a && typeof a === 'object' && Array.isArray(a.directives) && Array.isArray(a.comments) && a.text === doc.getText()) return a as NginxFile;
  return parseNginx(doc.getText());
}

function asHaproxy(doc: TextDocument, ast: unknown): HaproxyFile {
  const a = ast as Partial<HaproxyFile> | undefined;
  if (a && typeof a === 'object' && Array.isArray(a.sections) && a.text === doc.getText()) return a as HaproxyFile;
  return parseHaproxy(doc.getText());
}

/** nginx tuning and safety diagnostics. `ast` is the module's parse (re-parsed when it is not an nginx AST). */
export function nginxTuning(doc: TextDocument, ast: unknown, settings: ServiceSettings): Diagnostic[] {
  try {
    const file = asNginx(doc, ast);
    const findings = runNginxChecks(buildContext(file, settings));
    findings.push(...eolFindings('nginx', file.text, settings.nginxVersion));
    return nginxTuningRegistry.toDiagnostics(doc, findings, settings, 'nginx');
  } catch {
    return []; // a rule bug must never take the other diagnostics down
  }
}

/**
 * Per document, what the previous HAProxy tuning run built (section indexes), for the next
 * version's run: the editor validates the same document object at every version.
 */
const haproxyTuningMemos = new WeakMap<TextDocument, HaproxyTuningMemo>();

/** HAProxy tuning and safety diagnostics. */
export function haproxyTuning(doc: TextDocument, ast: unknown, settings: ServiceSettings): Diagnostic[] {
  let memo = haproxyTuningMemos.get(doc);
  try {
    const file = asHaproxy(doc, ast);
    if (!memo) haproxyTuningMemos.set(doc, (memo = createHaproxyTuningMemo()));
    const ctx = buildHaproxyContext(file, settings, memo);
    const findings = runHaproxyChecks(ctx);
    rememberHaproxyIndexes(ctx, memo);
    findings.push(...eolFindings('haproxy', file.text, settings.haproxyVersion));
    return haproxyTuningRegistry.toDiagnostics(doc, findings, settings, 'haproxy');
  } catch {
    if (memo) memo.file = undefined;
    return [];
  }
}
