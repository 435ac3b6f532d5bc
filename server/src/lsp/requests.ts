// The custom requests: "Validate with nginx -t / haproxy -c" on a sandboxed copy of a saved file
// (the host's runner); its messages become diagnostics on the files they name, with the severity
// settings and suppression comments of those files.
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import { binaryDiagnostics, pathToUri, summarize, toolName } from '../service/binaryCheck';
import type { ValidateWithBinaryParams, ValidateWithBinaryResult } from '../../../protocol/binaryCheck';
import type { ServerContext } from './context';
import type { Publisher } from './publish';
import type { ClientSettings } from './settings';

export async function validateWithBinary(
  ctx: ServerContext,
  settings: ClientSettings,
  publisher: Publisher,
  params: ValidateWithBinaryParams,
): Promise<ValidateWithBinaryResult> {
  const { docs, host } = ctx;
  const file = service.uriToPath(params.uri);
  const doc = docs.get(params.uri);
  let text = doc?.getText();
  if (text === undefined && file) text = host.fs.readFile(file) ?? '';
  const lang = doc ? docs.languageOf(doc) : service.languageOf(undefined, params.uri, text ?? '');
  if (!file) {
    const tool = toolName(lang);
    return {
      status: 'unsupported',
      tool,
      summary: `${tool} checks files on disk: save the document first`,
      errors: 0,
      warnings: 0,
      files: [],
    };
  }
  const config = await settings.editorConfig(params.uri);
  const result = await host.checkWithBinary({ configPath: file, kind: lang, binary: config[lang]?.path || undefined });
  const lineTextOf = (f: string, line: number): string | undefined => {
    const d = docs.get(pathToUri(f)) ?? docs.atPath(f);
    try {
      return (d ? d.getText() : host.fs.readFile(f))?.split('\n')[line]?.replace(/\r$/, '');
    } catch {
      return undefined;
    }
  };
  const byFile = binaryDiagnostics(result, file, lineTextOf);
  const fileSettings = await settings.settingsFor(params.uri);
  const byUri = new Map<string, Diagnostic[]>();
  for (const [f, diags] of byFile) {
    const u = f === file ? params.uri : (docs.atPath(f)?.uri ?? pathToUri(f));
    // severity settings and suppression comments, read in the file the message is on (open documents are applied again when published)
    const fileDoc =
      docs.get(u) ?? TextDocument.create(u, lang, 0, u === params.uri && text !== undefined ? text : (host.fs.readFile(f) ?? ''));
    byUri.set(u, [...(byUri.get(u) ?? []), ...service.applyRules(fileDoc, lang, diags, fileSettings)]);
  }
  publisher.setBinaryRun(params.uri, byUri);
  return summarize(result, [...byFile.keys()]);
}
