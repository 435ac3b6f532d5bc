// Snippets: whole blocks (a TLS server, a frontend/backend pair...) kept once in snippets/*.json,
// in VS Code's snippet format so that package.json `contributes.snippets` reads the same files.
// Each has one extra field VS Code ignores: `context`, the blocks (nginx) or section kinds
// (HAProxy; "" is a line that starts a new section) where it may be inserted, and optionally
// `requires`, snippets it needs elsewhere in the file (a websocket location needs the map).
// The language server offers them as completion items to clients that do not read the
// extension's contributions (Neovim, any LSP client); the VS Code client says it has them.
import type { CompletionItem, Range } from 'vscode-languageserver-types';
import nginxJson from '../../../snippets/nginx.json';
import haproxyJson from '../../../snippets/haproxy.json';
import type { LanguageId } from './types';

export interface Snippet {
  name: string;
  prefix: string;
  description: string;
  /** The body as one string, in the snippet syntax (`${1:default}`, `${1|a,b|}`, `$0`). */
  body: string;
  context: string[];
  requires: string[];
}

interface RawSnippet {
  prefix: string | string[];
  body: string | string[];
  description?: string;
  context?: string[];
  requires?: string[];
}

function load(raw: Record<string, RawSnippet>): Snippet[] {
  return Object.entries(raw).map(([name, s]) => ({
    name,
    prefix: Array.isArray(s.prefix) ? s.prefix[0] : s.prefix,
    description: s.description ?? name,
    body: Array.isArray(s.body) ? s.body.join('\n') : s.body,
    context: s.context ?? [],
    requires: s.requires ?? [],
  }));
}

export const SNIPPETS: Readonly<Record<LanguageId, readonly Snippet[]>> = {
  nginx: load(nginxJson as unknown as Record<string, RawSnippet>),
  haproxy: load(haproxyJson as unknown as Record<string, RawSnippet>),
};

/**
 * The text a snippet gives when every placeholder keeps its default: `${1:x}` -> `x` (nested
 * ones too), `${1|a,b|}` -> `a`, `$1`/`${1}`/`$0` -> nothing, `\$` -> `$`.
 */
export function expandSnippet(body: string): string {
  let out = '';
  let i = 0;
  const parse = (stopAtBrace: boolean): string => {
    let s = '';
    while (i < body.length) {
      const ch = body[i];
      if (ch === '\\' && i + 1 < body.length && '$}\\,|'.includes(body[i + 1])) {
        s += body[i + 1];
        i += 2;
      } else if (stopAtBrace && ch === '}') {
        return s;
      } else if (ch === '$' && /[0-9]/.test(body[i + 1] ?? '')) {
        i++;
        while (/[0-9]/.test(body[i] ?? '')) i++;
      } else if (ch === '$' && body[i + 1] === '{') {
        i += 2;
        while (/[0-9A-Za-z_]/.test(body[i] ?? '')) i++;
        if (body[i] === ':') {
          i++;
          s += parse(true);
          i++; // the closing brace
        } else if (body[i] === '|') {
          const end = body.indexOf('|}', i + 1);
          const choices = body.slice(i + 1, end < 0 ? body.length : end);
          s += choices.split(',')[0] ?? '';
          i = end < 0 ? body.length : end + 2;
        } else if (body[i] === '}') {
          i++;
        }
      } else {
        s += ch;
        i++;
      }
    }
    return s;
  };
  out = parse(false);
  return out;
}

/** The snippets of a language allowed where `context` is (an nginx block, an HAProxy section kind). */
export function snippetsFor(lang: LanguageId, context: string): Snippet[] {
  return SNIPPETS[lang].filter((s) => s.context.includes(context));
}

const KIND_SNIPPET = 15;
const FORMAT_SNIPPET = 2;

/** Completion items for the snippets allowed at `context`, replacing `range`. */
export function snippetCompletions(lang: LanguageId, context: string, range: Range, indent = ''): CompletionItem[] {
  return snippetsFor(lang, context).map((s) => ({
    label: s.prefix,
    kind: KIND_SNIPPET,
    detail: s.name,
    documentation: { kind: 'markdown', value: `${s.description}\n\n\`\`\`${lang}\n${expandSnippet(s.body)}\n\`\`\`` },
    insertTextFormat: FORMAT_SNIPPET,
    // the first line goes where the cursor is; the next ones keep the line's indentation
    textEdit: { range, newText: indent ? s.body.replace(/\n/g, `\n${indent}`) : s.body },
    sortText: `~${s.prefix}`,
  }));
}
