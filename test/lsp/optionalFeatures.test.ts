// The hooks for features a language module may implement (symbols, folding, selection ranges,
// formatting, definition): the server declares a capability exactly when some module has the
// feature, and answers with what the module computes, unchanged, or empty for a module without it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ensureBuilt } from '../cli/build';
import { nginxModule } from '../../server/src/languages/nginx';
import { haproxyModule } from '../../server/src/languages/haproxy';
import type { LanguageModule } from '../../server/src/core/types';
import { FIXTURES } from './fixtures';
import { LspClient } from './rpcClient';

const modules: Record<string, LanguageModule<any>> = { nginx: nginxModule, haproxy: haproxyModule };

const FEATURES = [
  { member: 'symbols', capability: 'documentSymbolProvider', method: 'textDocument/documentSymbol', extra: {} },
  { member: 'folding', capability: 'foldingRangeProvider', method: 'textDocument/foldingRange', extra: {} },
  {
    member: 'selectionRanges',
    capability: 'selectionRangeProvider',
    method: 'textDocument/selectionRange',
    extra: { positions: [{ line: 1, character: 4 }] },
  },
  {
    member: 'format',
    capability: 'documentFormattingProvider',
    method: 'textDocument/formatting',
    extra: { options: { tabSize: 4, insertSpaces: true } },
  },
  {
    member: 'definition',
    capability: 'definitionProvider',
    method: 'textDocument/definition',
    extra: { position: { line: 1, character: 4 } },
  },
] as const;

/** What the module itself answers, through a JSON round trip (what the wire carries). */
function moduleAnswer(lang: string, member: (typeof FEATURES)[number]['member'], text: string, uri: string): unknown {
  const m = modules[lang];
  const doc = TextDocument.create(uri, lang, 1, text);
  const ast = m.parse(text);
  switch (member) {
    case 'symbols':
      return m.symbols ? m.symbols(doc, ast) : [];
    case 'folding':
      return m.folding ? m.folding(doc, ast) : [];
    case 'selectionRanges':
      return m.selectionRanges ? m.selectionRanges(doc, ast, [{ line: 1, character: 4 }]) : [];
    case 'format':
      return m.format ? m.format(doc, ast, undefined, { tabSize: 4, insertSpaces: true }) : [];
    case 'definition':
      return m.definition ? m.definition(doc, ast, { line: 1, character: 4 }, {}) : null;
  }
}

describe('optional language features through the server', () => {
  let server: LspClient;
  let capabilities: any;

  before(async () => {
    ensureBuilt();
    server = new LspClient();
    ({ capabilities } = await server.initialize());
    for (const f of FIXTURES) {
      server.notify('textDocument/didOpen', {
        textDocument: { uri: `file:///opt/${f.fileName}`, languageId: f.language, version: 1, text: f.text },
      });
      await server.diagnosticsFor(`file:///opt/${f.fileName}`, 1);
    }
  });
  after(async () => {
    await server?.stop();
  });

  for (const feature of FEATURES) {
    it(`${feature.member}: declared iff a module implements it, answered as the module answers`, async () => {
      const implemented = Object.values(modules).some((m) => typeof m[feature.member] === 'function');
      assert.equal(
        Boolean(capabilities[feature.capability]),
        implemented,
        `${feature.capability}: ${JSON.stringify(capabilities[feature.capability])}`,
      );
      if (!implemented) return;
      for (const f of FIXTURES) {
        const uri = `file:///opt/${f.fileName}`;
        const answer = await server.request(feature.method, { textDocument: { uri }, ...feature.extra });
        const expected = JSON.parse(JSON.stringify(moduleAnswer(f.language, feature.member, f.text, uri)));
        assert.deepEqual(answer, expected, `${f.language} ${feature.method}`);
      }
    });
  }

  it('has at least one optional feature to show the hooks at work', () => {
    // HAProxy's module implements symbols and folding today; if none did, the test above would
    // check only the absence of capabilities.
    assert.ok(FEATURES.some((f) => Boolean(capabilities[f.capability])));
  });
});
