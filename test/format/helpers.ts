// Shared helpers of the formatting tests: format through the language modules, and compare two
// parses by what the binaries read (names, argument values, nesting, raw bodies, comments),
// ignoring offsets and whitespace.
import { resolve } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Range, TextEdit } from 'vscode-languageserver-types';
import { nginxModule } from '../../server/src/languages/nginx/index';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import type { Directive, NginxFile } from '../../server/src/languages/nginx/ast';
import type { HaproxyFile } from '../../server/src/languages/haproxy/ast';
import { applyEdits } from '../../server/src/core/rules';

export { corpusRoot } from '../corpusRoot';

export type Lang = 'nginx' | 'haproxy';
const modules = { nginx: nginxModule, haproxy: haproxyModule };
export const OPTIONS = { tabSize: 4, insertSpaces: true };

export function formatEdits(lang: Lang, text: string, range?: Range, options = OPTIONS): { doc: TextDocument; edits: TextEdit[] } {
  const doc = TextDocument.create(`file:///t.${lang === 'nginx' ? 'conf' : 'cfg'}`, lang, 1, text);
  const m = modules[lang];
  const ast = m.parse(text);
  return { doc, edits: m.format!(doc, ast as never, range, options) };
}

/** The text after document (or range) formatting. */
export function format(lang: Lang, text: string, range?: Range, options = OPTIONS): string {
  const { doc, edits } = formatEdits(lang, text, range, options);
  return edits.length ? applyEdits(doc, edits) : text;
}

function nginxShape(list: Directive[], text: string): unknown[] {
  return list.map((d) => ({
    n: d.name,
    a: d.args.map((a) => a.value),
    e: d.entry,
    r: d.rawBody ? text.slice(d.rawBody.start, d.rawBody.end) : undefined,
    b: d.block && !d.rawBody ? nginxShape(d.block.children, text) : d.block ? 'raw' : undefined,
  }));
}

/** What nginx reads from a file, plus its comments: equal shapes mean equal configs. */
export function shape(lang: Lang, text: string): string {
  if (lang === 'nginx') {
    const f = nginxModule.parse(text) as NginxFile;
    const raws = [] as [number, number][];
    const collect = (l: Directive[]) =>
      l.forEach((d) => (d.rawBody ? raws.push([d.rawBody.start, d.rawBody.end]) : d.block && collect(d.block.children)));
    collect(f.directives);
    const comments = f.comments.filter((c) => !raws.some(([s, e]) => c.start >= s && c.start < e)).map((c) => c.text.trimEnd());
    return JSON.stringify({ d: nginxShape(f.directives, text), c: comments, errors: f.errors.length });
  }
  const f = haproxyModule.parse(text) as HaproxyFile;
  return JSON.stringify({
    o: f.orphans.map((s) => s.words.map((w) => w.value)),
    s: f.sections.map((s) => ({
      k: s.keyword,
      n: s.name?.value,
      h: s.header.words.map((w) => w.value),
      st: s.statements.map((st) => st.words.map((w) => w.value)),
    })),
    c: f.comments.map((c) => c.text.trimEnd()),
    errors: f.errors.map((e) => e.message),
  });
}
