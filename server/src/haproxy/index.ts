// The HAProxy language module: parse (never throws), validate, complete, hover, outline, navigation.
import type { LanguageModule } from '../service/types';
import type { HaproxyFile } from './ast';
import { parseHaproxy, reparseHaproxy } from './parser';
import { validateHaproxy } from './validation';
import { completeHaproxy } from './completion';
import { hoverHaproxy } from './hover';
import { haproxyNavEntities } from './navigation';
import { definitionsInFile } from '../nginx/navigation';
import { haproxyFolding, haproxySelectionRanges, haproxySymbols } from './symbols';
import { formatHaproxy } from './format';

export type { HaproxyFile } from './ast';

export const haproxyModule: LanguageModule<HaproxyFile> = {
  id: 'haproxy',
  parse: (text) => parseHaproxy(text),
  reparse: (prev, text) => reparseHaproxy(prev, text),
  validate: (doc, ast, settings) => validateHaproxy(doc, ast, settings),
  complete: (doc, ast, pos, settings) => completeHaproxy(doc, ast, pos, settings),
  hover: (doc, ast, pos, settings) => hoverHaproxy(doc, ast, pos, settings),
  symbols: (doc, ast) => haproxySymbols(doc, ast),
  folding: (doc, ast) => haproxyFolding(doc, ast),
  selectionRanges: (doc, ast, positions) => haproxySelectionRanges(doc, ast, positions),
  format: (doc, ast, range, options) => formatHaproxy(doc, ast, range, options),
  navEntities: (_doc, ast) => haproxyNavEntities(ast),
  definition(doc, ast, pos) {
    const defs = definitionsInFile(haproxyNavEntities(ast), doc.offsetAt(pos));
    return defs.length ? defs.map((d) => ({ uri: doc.uri, range: { start: doc.positionAt(d.start), end: doc.positionAt(d.end) } })) : null;
  },
};
