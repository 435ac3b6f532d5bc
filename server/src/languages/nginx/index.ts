// The nginx language module: parser, validation, completion, hover (see types.ts).
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageModule, ServiceSettings, UnitFacts } from '../../core/types';
import type { NginxFile } from './ast';
import { parseNginx, reparseNginx } from './parser';
import { createValidationMemo, validateFile, type ValidationMemo } from './validation';
import { inferContext } from './inferContext';
import { nginxRegistry as nginxRules } from './rules';
import { doComplete, prepareCompletion } from './completion';
import { doHover } from './hover';
import { createNavMemo, nginxNavEntities, type NavMemo } from './navigation';
import { definitionsInFile } from '../../core/navigation';
import { nginxFolding, nginxSelectionRanges, nginxSymbols } from './symbols';
import { formatNginx } from './format';
import { nginxSignatureHelp } from './signature';
import { nginxInlayHints } from './inlayHints';
import { contextFixes } from './contextFix';

export type { NginxFile } from './ast';
export { parseNginx, reparseNginx } from './parser';
export { validateFile } from './validation';
export { inferContext } from './inferContext';
export { NGINX_RULES, nginxRegistry as nginxRules } from './rules';

/**
 * Validates a file as if included in `context` (`main`, `http`, `server`, `location`,
 * `stream`, `stream/server`...); without one, the context is inferred from the top-level
 * directives (a `sites-enabled` file holding `server {}` blocks is judged as `http`).
 */
export function validateInContext(
  doc: TextDocument,
  ast: NginxFile,
  settings: ServiceSettings,
  context?: string,
  unit?: UnitFacts,
): Diagnostic[] {
  try {
    const bag = unit?.memo;
    const memo = bag ? ((bag.nginxValidation as ValidationMemo | undefined) ?? (bag.nginxValidation = createValidationMemo())) : undefined;
    const findings = validateFile(ast, {
      version: settings.nginxVersion,
      context: context ?? inferContext(ast, settings.nginxContext),
      modules: unit?.nginxModules,
      hostModules: () => settings.nginxModules,
      memo,
    });
    return nginxRules.toDiagnostics(doc, findings, settings, 'nginx');
  } catch {
    return [];
  }
}

export const nginxModule: LanguageModule<NginxFile> = {
  id: 'nginx',
  parse: (text) => parseNginx(text),
  reparse: (prev, text) => reparseNginx(prev, text),
  validate: (doc, ast, settings) => validateInContext(doc, ast, settings),
  complete: (doc, ast, pos, settings) => doComplete(doc, ast, pos, settings),
  prepareCompletion: (settings) => prepareCompletion(settings),
  hover: (doc, ast, pos, settings) => doHover(doc, ast, pos, settings),
  signatureHelp: (doc, ast, pos, settings) => nginxSignatureHelp(doc, ast, pos, settings),
  inlayHints: (doc, ast, range, settings) => nginxInlayHints(doc, ast, range, settings),
  symbols: (doc, ast) => nginxSymbols(doc, ast),
  folding: (doc, ast) => nginxFolding(doc, ast),
  selectionRanges: (doc, ast, positions) => nginxSelectionRanges(doc, ast, positions),
  format: (doc, ast, range, options) => formatNginx(doc, ast, range, options),
  codeActions: (doc, ast, range, diagnostics, settings) => contextFixes(doc, ast, range, diagnostics, settings),
  navEntities: (_doc, ast, bag) => {
    // the open document's previous walk (bag.nginxNav), whose unchanged block bodies are taken over
    let memo = bag?.nginxNav as NavMemo | undefined;
    if (bag && !memo) bag.nginxNav = memo = createNavMemo();
    try {
      return nginxNavEntities(ast, 'main', memo);
    } catch (e) {
      if (bag) bag.nginxNav = undefined;
      throw e;
    }
  },
  validateInContext: (doc, ast, settings, context, unit) => validateInContext(doc, ast, settings, context, unit),
  definition(doc, ast, pos) {
    const defs = definitionsInFile(nginxNavEntities(ast), doc.offsetAt(pos));
    return defs.length ? defs.map((d) => ({ uri: doc.uri, range: { start: doc.positionAt(d.start), end: doc.positionAt(d.end) } })) : null;
  },
};
