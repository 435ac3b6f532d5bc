// Contracts shared by the language modules (nginx, haproxy) and the service facade.
// Everything here is plain data: no connection, no `vscode`. Positions are LSP's 0-based
// line/character; the parsers keep offsets and convert through the TextDocument.
import type {
  CodeAction,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  FoldingRange,
  Hover,
  Location,
  LocationLink,
  Position,
  Range,
  SelectionRange,
  TextEdit,
} from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';

export type LanguageId = 'nginx' | 'haproxy';

export type RuleSeverity = 'off' | 'error' | 'warning' | 'information' | 'hint';

/** Facts about the machine the config will run on, when it is this machine (host-aware rules). */
export interface HostFacts {
  cpuCount?: number;
  somaxconn?: number;
  nofileLimit?: number;
}

export interface ServiceSettings {
  /** Target nginx version such as "1.22.1"; undefined means the newest known. */
  nginxVersion?: string;
  /** Target HAProxy version such as "2.6"; undefined means the newest known. */
  haproxyVersion?: string;
  /** Per-rule severity overrides, keyed by rule id. */
  rules?: Record<string, RuleSeverity>;
  host?: HostFacts;
}

/** What a language module offers; every function is pure and never throws on any input. */
export interface LanguageModule<Ast = unknown> {
  readonly id: LanguageId;
  parse(text: string): Ast;
  validate(doc: TextDocument, ast: Ast, settings: ServiceSettings): Diagnostic[];
  complete(doc: TextDocument, ast: Ast, pos: Position, settings: ServiceSettings): CompletionList;
  hover(doc: TextDocument, ast: Ast, pos: Position, settings: ServiceSettings): Hover | null;
  codeActions?(doc: TextDocument, ast: Ast, range: Range, diagnostics: Diagnostic[], settings: ServiceSettings): CodeAction[];
  symbols?(doc: TextDocument, ast: Ast): DocumentSymbol[];
  folding?(doc: TextDocument, ast: Ast): FoldingRange[];
  selectionRanges?(doc: TextDocument, ast: Ast, positions: Position[]): SelectionRange[];
  format?(doc: TextDocument, ast: Ast, range: Range | undefined, options: { tabSize: number; insertSpaces: boolean }): TextEdit[];
  /** Go to definition (an upstream, a backend, a named location, an included file). */
  definition?(doc: TextDocument, ast: Ast, pos: Position, settings: ServiceSettings): Location | Location[] | LocationLink[] | null;
}
