// The HAProxy language module: parse (never throws), validate, complete, hover, outline, navigation.
import type { LanguageModule } from '../../core/types';
import type { HaproxyFile } from './ast';
import { haproxyNavEntities } from './navigation';
import { definitionsInFile } from '../../core/navigation';
import { haproxyFolding, haproxySelectionRanges, haproxySymbols } from './symbols';
import { formatHaproxy } from './format';
import { sectionFixes } from './sectionFix';

export type { HaproxyFile } from './ast';

// Validation, completion and hover read the keyword, option and sample tables (data/*.json, about
// 220 KB of JSON and the maps built from it): they are loaded on first use, so a process that
// never meets an HAProxy file (`check` on nginx configs) does not read them. Loaded once.
let validation: typeof import('./validation') | undefined;
let completion: typeof import('./completion') | undefined;
let hover: typeof import('./hover') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const validationPart = () => (validation ??= require('./validation') as typeof import('./validation'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const completionPart = () => (completion ??= require('./completion') as typeof import('./completion'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hoverPart = () => (hover ??= require('./hover') as typeof import('./hover'));
// The parser too (its chevrotain grammar is built at the first parse, and chevrotain's own
// modules are set up when first required): an nginx-only `check` never loads either.
let parser: typeof import('./parser') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parserPart = () => (parser ??= require('./parser') as typeof import('./parser'));
let signature: typeof import('./signature') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const signaturePart = () => (signature ??= require('./signature') as typeof import('./signature'));

export const haproxyModule: LanguageModule<HaproxyFile> = {
  id: 'haproxy',
  parse: (text) => parserPart().parseHaproxy(text),
  reparse: (prev, text) => parserPart().reparseHaproxy(prev, text),
  validate: (doc, ast, settings, memo) => validationPart().validateHaproxy(doc, ast, settings, memo),
  complete: (doc, ast, pos, settings) => completionPart().completeHaproxy(doc, ast, pos, settings),
  prepareCompletion: (settings) => completionPart().prepareCompletion(settings),
  hover: (doc, ast, pos, settings) => hoverPart().hoverHaproxy(doc, ast, pos, settings),
  signatureHelp: (doc, ast, pos, settings) => signaturePart().haproxySignatureHelp(doc, ast, pos, settings),
  symbols: (doc, ast) => haproxySymbols(doc, ast),
  folding: (doc, ast) => haproxyFolding(doc, ast),
  selectionRanges: (doc, ast, positions) => haproxySelectionRanges(doc, ast, positions),
  format: (doc, ast, range, options) => formatHaproxy(doc, ast, range, options),
  codeActions: (doc, ast, range, diagnostics) => sectionFixes(doc, ast, range, diagnostics),
  navEntities: (_doc, ast) => haproxyNavEntities(ast),
  definition(doc, ast, pos) {
    const defs = definitionsInFile(haproxyNavEntities(ast), doc.offsetAt(pos));
    return defs.length ? defs.map((d) => ({ uri: doc.uri, range: { start: doc.positionAt(d.start), end: doc.positionAt(d.end) } })) : null;
  },
};
