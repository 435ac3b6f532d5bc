// The service facade: one entry per LSP feature, dispatching to the language module.
// Pure functions over a TextDocument; the LSP adapter (server.ts) and the command line
// (cli/) both call these, so the editor and `proxy-tuner check` can never disagree.
import type { CodeAction, Diagnostic, Position, Range } from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageId, LanguageModule, ServiceSettings } from './types';
import { nginxModule } from '../nginx';
import { haproxyModule } from '../haproxy';
import { applyEdits, quickFixes, safeFixEdits } from './rules';

const modules: Record<LanguageId, LanguageModule<any>> = {
  nginx: nginxModule,
  haproxy: haproxyModule,
};

export function getModule(lang: LanguageId): LanguageModule<any> {
  return modules[lang];
}

/** Language of a file from its name, then its content (HAProxy sections at line starts). */
export function detectLanguage(fileName: string, text = ''): LanguageId {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  if (/haproxy/i.test(base) || /\.cfg$/i.test(base) || /[\\/]haproxy[\\/]/i.test(fileName)) return 'haproxy';
  if (/nginx|\.conf$|\.nginx$/i.test(base) || /[\\/](nginx|conf\.d|sites-(available|enabled))[\\/]/.test(fileName)) return 'nginx';
  return /^(global|defaults|frontend|backend|listen)\b/m.test(text) ? 'haproxy' : 'nginx';
}

/** A parse cache keyed by uri and version, so each feature request reuses one parse. */
export class ParseCache {
  private readonly entries = new Map<string, { version: number; lang: LanguageId; ast: unknown }>();

  get(doc: TextDocument, lang: LanguageId): unknown {
    const hit = this.entries.get(doc.uri);
    if (hit && hit.version === doc.version && hit.lang === lang) return hit.ast;
    const ast = modules[lang].parse(doc.getText());
    this.entries.set(doc.uri, { version: doc.version, lang, ast });
    return ast;
  }

  delete(uri: string): void {
    this.entries.delete(uri);
  }
}

export function validate(doc: TextDocument, lang: LanguageId, settings: ServiceSettings, cache?: ParseCache): Diagnostic[] {
  const ast = cache ? cache.get(doc, lang) : modules[lang].parse(doc.getText());
  return modules[lang].validate(doc, ast, settings);
}

export function codeActions(
  doc: TextDocument,
  lang: LanguageId,
  range: Range,
  diagnostics: Diagnostic[],
  settings: ServiceSettings,
  cache?: ParseCache,
): CodeAction[] {
  const ast = cache ? cache.get(doc, lang) : modules[lang].parse(doc.getText());
  const own = quickFixes(doc, diagnostics);
  const extra = modules[lang].codeActions?.(doc, ast, range, diagnostics, settings) ?? [];
  return [...own, ...extra];
}

/** `source.fixAll` and `check --fix`: the text with every safe fix applied, repeated to a fixed point. */
export function fixAll(doc: TextDocument, lang: LanguageId, settings: ServiceSettings, maxRounds = 5): string {
  let current = doc;
  for (let round = 0; round < maxRounds; round++) {
    const edits = safeFixEdits(validate(current, lang, settings));
    if (edits.length === 0) break;
    const next = applyEdits(current, edits);
    if (next === current.getText()) break;
    current = TextDocument.create(current.uri, lang, current.version + 1, next);
  }
  return current.getText();
}

export function complete(doc: TextDocument, lang: LanguageId, pos: Position, settings: ServiceSettings, cache?: ParseCache) {
  const ast = cache ? cache.get(doc, lang) : modules[lang].parse(doc.getText());
  return modules[lang].complete(doc, ast, pos, settings);
}

export function hover(doc: TextDocument, lang: LanguageId, pos: Position, settings: ServiceSettings, cache?: ParseCache) {
  const ast = cache ? cache.get(doc, lang) : modules[lang].parse(doc.getText());
  return modules[lang].hover(doc, ast, pos, settings);
}
