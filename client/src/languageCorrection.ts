// The editor's language for a config, as the one detector (server/src/service/detectLanguage.ts)
// tells it. VS Code puts a file in nginx or HAProxy by the patterns of package.json (a name, or
// a folder such as `nginx/`, `conf.d/`, `sites-enabled/`, `haproxy/`); where the file's name or
// content says otherwise (a HAProxy config kept in /etc/nginx/conf.d/), the document is switched
// to the detector's language, so the editor, `check` and the benchmark judge it alike. Each
// document is looked at once per session, when first seen: a language the user picks later stays.
import * as vscode from 'vscode';
import { languageCorrection } from '../../server/src/service/published';

export function registerLanguageCorrection(): vscode.Disposable {
  const seen = new Set<string>();
  const look = (doc: vscode.TextDocument): void => {
    if (doc.uri.scheme !== 'file' || (doc.languageId !== 'nginx' && doc.languageId !== 'haproxy')) return;
    const key = doc.uri.toString();
    if (seen.has(key)) return;
    seen.add(key);
    const to = languageCorrection(doc.languageId, doc.fileName, doc.getText());
    if (to) void vscode.languages.setTextDocumentLanguage(doc, to).then(undefined, () => undefined);
  };
  for (const doc of vscode.workspace.textDocuments) look(doc);
  return vscode.workspace.onDidOpenTextDocument(look);
}
