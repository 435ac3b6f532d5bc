// The one place that tells an nginx config from a HAProxy one. The language server (documents
// whose languageId is not ours), the command line (`check`, `format`), the workspace index, the
// benchmark engine (server/src/runner/sandbox) and the extension (its benchmark controller, and the
// language of a document VS Code put in one of ours by a folder pattern: languageCorrection) all
// call this, so a file is never nginx to one part of the product and HAProxy to another.
// Pure: a name and a text in, a language out (callers that only have a path read the file).
import type { LanguageId } from '../core/types';
import { SECTION_KEYWORDS } from './haproxy/ast';

/** HAProxy's section keywords, as a header line starts with them (the parser's table). */
const HAPROXY_SECTIONS: ReadonlySet<string> = new Set(Object.keys(SECTION_KEYWORDS));

/** What the text of a config says about its language, or undefined when it says nothing clear. */
export function languageFromContent(text: string): LanguageId | undefined {
  let semicolon = 0; // statements ended by `;` (nginx)
  let plain = 0; // lines ended by neither `;` nor a brace (HAProxy's line-per-statement)
  let header = false; // a HAProxy section header (keyword first on its line, no `;` or `{`)
  let scanned = 0;
  // plain lines since the last statement end: the continuation lines of a multi-line nginx
  // statement (`charset_types` with one type per line) when a `;` ends them
  let pending = 0;
  let pos = 0;
  const n = text.length;
  // a look at the first 2,000 lines is plenty, and keeps a 50,000-line file cheap
  while (pos < n && scanned < 2000) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = n;
    let line = text.slice(pos, eol);
    pos = eol + 1;
    // a comment: `#` at the start of a word (not inside quotes: good enough to read a shape)
    const hash = line.search(/(^|[ \t])#/);
    if (hash >= 0) line = line.slice(0, hash);
    line = line.replace(/[ \t\r]+$/, '');
    if (line.trim() === '') continue;
    scanned++;
    const last = line[line.length - 1];
    // a statement that opens a block at the end of its line: nginx's shape (HAProxy is read a
    // line at a time; its only braces, anonymous ACLs `if { ... }`, close on the same line)
    if (last === '{') return 'nginx';
    if (last === ';' || /^\s*\}+$/.test(line)) {
      semicolon++;
      pending = 0;
      continue;
    }
    // at column 0 as a rule; indented headers are valid HAProxy too (its regression tests)
    const word = /^\s*([a-z-]+)/.exec(line)?.[1];
    if (word && HAPROXY_SECTIONS.has(word)) {
      header = true;
      plain += pending + 1; // a header ends whatever came before it
      pending = 0;
      continue;
    }
    pending++;
  }
  plain += pending;
  // `;`-ended statements outnumbering the rest are nginx even with a `listen` at column 0
  if (semicolon > 0 && semicolon >= plain) return 'nginx';
  if (header) return 'haproxy';
  if (plain > 0 && semicolon > 0 && plain > 2 * semicolon) return 'haproxy';
  return undefined;
}

/**
 * Language of a file: its name first (`haproxy*`, `nginx*`, `openresty*`), then its content
 * (nginx's shape: blocks opened by `{`, `;`-ended statements; else a HAProxy section header at
 * column 0), then its folder (`/etc/haproxy/`, `nginx/`, `conf.d/`, `sites-enabled/`...), then its
 * extension (`.cfg` HAProxy); nginx when nothing tells.
 */
export function detectLanguage(fileName: string, text = ''): LanguageId {
  const path = fileName.replace(/\\/g, '/');
  const base = path.split('/').pop() ?? path;
  const dir = path.slice(0, path.length - base.length);
  if (/haproxy/i.test(base)) return 'haproxy';
  if (/nginx|openresty/i.test(base)) return 'nginx';
  const byContent = languageFromContent(text);
  if (byContent) return byContent;
  if (/(^|\/)haproxy[^/]*\//i.test(dir)) return 'haproxy';
  if (/(^|\/)(nginx|openresty)[^/]*\/|(^|\/)(conf\.d|sites-(available|enabled)|snippets)\//i.test(dir)) return 'nginx';
  return /\.cfg$/i.test(base) ? 'haproxy' : 'nginx';
}

/**
 * The language a document should be in when the editor put it in one of ours (`languageId`) and
 * the detector tells otherwise; undefined: leave it. VS Code picks the language by the patterns
 * of package.json `contributes.languages` (names, and `.conf` files under an `nginx` or `conf.d`
 * folder, `sites-enabled` files, `.cfg` files under a `haproxy` folder): a folder says less than
 * a file's name or content, so a
 * HAProxy config kept in `/etc/nginx/conf.d/` would otherwise be linted as nginx in the editor
 * and as HAProxy by `check` and the benchmark.
 */
export function languageCorrection(languageId: string, fileName: string, text: string): LanguageId | undefined {
  if (languageId !== 'nginx' && languageId !== 'haproxy') return undefined;
  const detected = detectLanguage(fileName, text);
  return detected === languageId ? undefined : detected;
}
