// The open documents and what the server keeps about each (one state object per document,
// dropped on close), with the large-document bound that turns feature requests away.
import { TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import type { LanguageId, ServiceSettings } from '../core/types';
import { lineDocuments } from '../core/lineDocument';
import { isLargeText } from '../service/largeDocument';
import { DocSchedule } from './schedule';

/** Everything the server keeps about one open document; dropped on close. */
export interface DocState {
  schedule: DocSchedule;
  /** The version measured, and whether it is over the large-document bounds (syntax check only, no feature requests). */
  large?: { version: number; large: boolean };
  /** Its settings, pulled from the client once (until a configuration change). */
  settings?: Promise<ServiceSettings>;
  /** `diagnostics.delay`, once its settings are known (the schedule cannot wait for them). */
  delay?: number;
  /** A project config's `ignore` leaves it out: it gets no diagnostics. */
  ignored: boolean;
  /** The last diagnostics computed, so code actions need no second validation. */
  last?: { version: number; settings: ServiceSettings; diagnostics: Diagnostic[] };
  /** Its didOpen is being handled: TextDocuments reports it as a content change too. */
  justOpened: boolean;
}

export class OpenDocuments {
  /** Open documents as line arrays: an edit costs its own lines, not a copy of the file (lineDocument.ts). */
  readonly documents = new TextDocuments(lineDocuments);
  /** The open documents' state, by uri. */
  private readonly states = new Map<string, DocState>();

  get(uri: string): TextDocument | undefined {
    return this.documents.get(uri);
  }

  all(): TextDocument[] {
    return this.documents.all();
  }

  /** The open document at a file path (its uri as the client spelled it). */
  atPath(file: string): TextDocument | undefined {
    return this.documents.all().find((d) => service.uriToPath(d.uri) === file);
  }

  /** The document's state, created on first use. */
  stateOf(uri: string): DocState {
    let st = this.states.get(uri);
    if (!st) {
      st = { schedule: new DocSchedule(), ignored: false, justOpened: false };
      this.states.set(uri, st);
    }
    return st;
  }

  /** The document's state when it has one (never creates it). */
  peek(uri: string): DocState | undefined {
    return this.states.get(uri);
  }

  drop(uri: string): void {
    this.states.delete(uri);
  }

  allStates(): Iterable<DocState> {
    return this.states.values();
  }

  languageOf(doc: TextDocument): LanguageId {
    return service.languageOf(doc.languageId, doc.uri, doc.getText());
  }

  /** Open documents over the large-document bounds (the version measured is kept): syntax check only, no feature requests. */
  isLarge(doc: TextDocument): boolean {
    const st = this.stateOf(doc.uri);
    const hit = st.large;
    if (hit && hit.version === doc.version) return hit.large;
    const large = isLargeText(doc.getText());
    st.large = { version: doc.version, large };
    return large;
  }

  /** A request about a large open document: answered with its handler's empty answer at once. */
  asksLargeDocument(params: unknown): boolean {
    const uri = (params as { textDocument?: { uri?: unknown } } | undefined)?.textDocument?.uri;
    if (typeof uri !== 'string') return false;
    const doc = this.documents.get(uri);
    return !!doc && this.isLarge(doc);
  }
}
