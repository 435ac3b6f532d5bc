// The language server's hostile documents (issue 33): each one document and the requests an
// editor sends on it. Shared by test/abuse/hostile.test.ts (generous bounds) and
// scripts/bench-lsp-abuse.mjs (the measured numbers).

export interface HostileCase {
  name: string;
  uri: string;
  lang: 'nginx' | 'haproxy';
  text: string;
  requests: [method: string, params: unknown][];
  /**
   * The test's bound on the time to the first diagnostics, when not the common one: a document
   * under the large-document bounds is analysed whole, which on 60,000 lines of 30,000 backends
   * takes seconds (its requests are held to the common bound).
   */
  diagnosticsBoundMs?: number;
}

/** Every request the server answers on a document, at `line`/`character`. */
function everyRequest(uri: string, line: number, character: number, lastLine: number): [string, unknown][] {
  const textDocument = { uri };
  const position = { line, character };
  const range = { start: { line, character: 0 }, end: { line, character } };
  return [
    ['textDocument/hover', { textDocument, position }],
    ['textDocument/completion', { textDocument, position }],
    ['textDocument/signatureHelp', { textDocument, position }],
    ['textDocument/definition', { textDocument, position }],
    ['textDocument/references', { textDocument, position, context: { includeDeclaration: true } }],
    ['textDocument/prepareRename', { textDocument, position }],
    ['textDocument/documentSymbol', { textDocument }],
    ['textDocument/foldingRange', { textDocument }],
    ['textDocument/selectionRange', { textDocument, positions: [position] }],
    ['textDocument/documentLink', { textDocument }],
    ['textDocument/inlayHint', { textDocument, range: { start: { line: 0, character: 0 }, end: { line: lastLine, character: 0 } } }],
    ['textDocument/codeAction', { textDocument, range, context: { diagnostics: [] } }],
    ['textDocument/formatting', { textDocument, options: { tabSize: 4, insertSpaces: true } }],
    ['workspace/symbol', { query: 'b' }],
  ];
}

function make(
  name: string,
  lang: 'nginx' | 'haproxy',
  text: string,
  line: number,
  character: number,
  diagnosticsBoundMs?: number,
): HostileCase {
  const uri = `file:///tmp/proxy-tuner-hostile/${name}.${lang === 'nginx' ? 'conf' : 'cfg'}`;
  const lastLine = text.split('\n', 2_000_000).length - 1;
  return { name, uri, lang, text, requests: everyRequest(uri, line, character, lastLine), diagnosticsBoundMs };
}

export function hostileCases(): HostileCase[] {
  const M = 1_000_000;
  return [
    // a million statements of two bytes (2 MB, under the large-document bound)
    make('nginx-million-lines', 'nginx', ';\n'.repeat(M), 500_000, 0),
    make('haproxy-million-lines', 'haproxy', 'a\n'.repeat(M), 500_000, 0),
    // a million one-word statements on as many lines as the bound lets in
    make('nginx-700k-statements', 'nginx', 'a;\n'.repeat(699_000), 350_000, 1),
    // one line of a million arguments
    make('nginx-million-args', 'nginx', `events {}\nhttp {\n  server_name ${'a '.repeat(M)};\n}\n`, 2, 1_000_000),
    make('haproxy-million-args', 'haproxy', `frontend f\n  bind :80\n  option ${'a '.repeat(M)}\n`, 2, 1_000_000),
    // 30,000 backends
    make(
      'haproxy-30k-backends',
      'haproxy',
      `defaults\n  mode http\n  timeout client 5s\n  timeout server 5s\n  timeout connect 1s\nfrontend f\n  bind :80\n  default_backend b1\n${Array.from(
        { length: 30_000 },
        (_, i) => `backend b${i}\n  server s${i} 127.0.0.1:${1024 + (i % 60000)}\n`,
      ).join('')}`,
      7,
      20,
      60_000,
    ),
  ];
}
