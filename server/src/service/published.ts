// The service's published surface for the editor client (client/src): what the extension host
// may use of the server's code in-process, without starting the language server. Light on
// purpose: the language detector, the tuning rows' ids and categories, and the two parsers'
// syntax trees (for the benchmark CodeLenses' routes), not the validation tables, so the
// extension bundle stays small. Everything else reaches the client over LSP.
import type { RuleMeta } from '../core/rules';
import { HAPROXY_TUNING_RULES } from '../languages/haproxy/tuning/rules';
import { NGINX_TUNING_RULES } from '../languages/nginx/tuning/rules';

export { detectLanguage, languageCorrection } from '../languages/detect';
export type { LanguageId } from '../core/types';
export { parseNginx } from '../languages/nginx/parser';
export { walk, type Directive } from '../languages/nginx/ast';
export { parseHaproxy } from '../languages/haproxy/parser';
export { keywordName } from '../languages/haproxy/ast';

/** The tuning rules' rows of both languages (id, category, severity, title...). */
export function tuningRuleRows(): readonly RuleMeta[] {
  return [...NGINX_TUNING_RULES, ...HAPROXY_TUNING_RULES];
}
