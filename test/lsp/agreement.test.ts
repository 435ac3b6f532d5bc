// The editor and `proxy-tuner check` agree by construction (both call diagnose()): every corpus
// file, opened in the language server (started in-process with the real Node host: the disk,
// the local binaries' versions, `nginx -V`) and checked by the CLI's own code (checkInputs), gets
// the same diagnostics, the `nginx -V` module notes included. Skips without the corpus (except
// in CI or with PROXY_TUNER_REQUIRE_CORPUS).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  StreamMessageReader,
  StreamMessageWriter,
  createConnection,
  createMessageConnection,
  type MessageConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver/node';
import type { Diagnostic } from 'vscode-languageserver-types';
import { startServer } from '../../server/src/lsp/server';
import { checkWithBinary } from '../../server/src/host/binaryCheck';
import { localNginxBuild } from '../../server/src/host/binaryFacts';
import { nodeFileSystem, nodeHostProbe } from '../../server/src/host/nodeHost';
import { checkInputs } from '../../cli/src/checkCore';
import { corpusDir } from '../corpus/verdicts';

const required = !!process.env.CI || !!process.env.PROXY_TUNER_REQUIRE_CORPUS;
const langs = (['nginx', 'haproxy'] as const).map((lang) => ({ lang, ...corpusDir(lang) }));
const missing = langs.every((l) => !l.available);
if (missing && required) throw new Error('the corpus is required here (CI / PROXY_TUNER_REQUIRE_CORPUS) and was not found');

/** What the user sees of a diagnostic (the fix data rides along only where a client asks for it). */
const shown = (d: Diagnostic) =>
  `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.severity} ${String(d.code)} ${d.source ?? ''} ${d.message}`;
const sorted = (list: Diagnostic[]) => list.map(shown).sort();

let client: MessageConnection;
const published = new Map<string, (p: PublishDiagnosticsParams) => void>();

before(async () => {
  if (missing) return;
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  startServer(createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient)), {
    fs: nodeFileSystem,
    probe: nodeHostProbe,
    checkWithBinary,
  });
  client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => published.get(p.uri)?.(p));
  client.listen();
  await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {}, initializationOptions: {} });
  void client.sendNotification('initialized', {});
});

after(() => client?.dispose());

/** The diagnostics the server publishes for the file's first version. */
function inEditor(file: string, lang: string, text: string): Promise<Diagnostic[]> {
  const uri = pathToFileURL(file).href;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file}: no diagnostics within 30 s`)), 30_000);
    published.set(uri, (p) => {
      if (p.version !== 1) return;
      clearTimeout(timer);
      published.delete(uri);
      void client.sendNotification('textDocument/didClose', { textDocument: { uri } });
      resolve(p.diagnostics as unknown as Diagnostic[]);
    });
    void client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: lang, version: 1, text } });
  });
}

for (const { lang, dir, available } of langs) {
  test(
    `${lang}: the editor and check give every corpus file the same diagnostics`,
    { skip: !available && 'no corpus', timeout: 600_000 },
    async () => {
      const files = readdirSync(dir)
        .filter((f) => !f.endsWith('.tsv') && !f.endsWith('.md'))
        .map((f) => join(dir, f));
      assert.ok(files.length > 50, `only ${files.length} files in ${dir}`);
      const differ: string[] = [];
      let notes = 0;
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        const [cli] = checkInputs([{ file }], { language: lang, flags: {}, fixData: false });
        const editor = await inEditor(file, lang, text);
        notes += cli.diagnostics.filter((d) => d.source === 'nginx -V').length;
        const a = sorted(editor);
        const b = sorted(cli.diagnostics);
        if (JSON.stringify(a) !== JSON.stringify(b))
          differ.push(
            `${file}\n  editor only: ${a.filter((x) => !b.includes(x)).join('\n    ')}\n  check only: ${b.filter((x) => !a.includes(x)).join('\n    ')}`,
          );
      }
      assert.deepEqual(differ.slice(0, 5), []);
      // with a local nginx, the notes are there to compare (none without one)
      if (lang === 'nginx' && localNginxBuild()) assert.ok(notes > 0, 'no nginx -V module note in the whole corpus');
    },
  );
}
