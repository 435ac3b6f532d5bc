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
  InlayHint,
  Location,
  LocationLink,
  Position,
  Range,
  SelectionRange,
  SignatureHelp,
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
  /**
   * Set when a setting gave these facts for the machine the config runs on. Facts probed on the
   * linting machine (unset) are only applied to files the local binary loads (service/tuning.ts).
   */
  target?: boolean;
}

export interface ServiceSettings {
  /** Target nginx version such as "1.22.1"; undefined means the newest known. */
  nginxVersion?: string;
  /** Target HAProxy version such as "2.6"; undefined means the newest known. */
  haproxyVersion?: string;
  /** Per-rule severity overrides, keyed by rule id. */
  rules?: Record<string, RuleSeverity>;
  /** Rule selection (core/tiers.ts): selectors are `all`, `default`, a group, a language or a rule id. */
  lint?: { select?: string[]; extendSelect?: string[]; ignore?: string[] };
  host?: HostFacts;
  /** The local nginx's loadable modules (`.so` files in its modules folder), for the load_module fix; read when first needed. */
  nginxModules?: { installed: readonly string[]; enabled?: readonly string[]; added?: readonly string[] };
  /**
   * Whether diagnostics carry their quick fixes (`data.fixes`, positions resolved). Default true;
   * `check` without `--fix` shows no fixes and turns it off (on a config with thousands of
   * findings, resolving every fix's positions is work and memory for nothing).
   */
  fixData?: boolean;
  /**
   * Whether completion offers the snippets of snippets/*.json (a TLS server, a frontend/backend
   * pair...). Default false; the server turns it on for clients that do not contribute them
   * themselves (the VS Code extension does, through package.json).
   */
  completionSnippets?: boolean;
  /** Inlay hints for the effective defaults of what the config leaves out (`proxyTuner.inlayHints.defaults`). Default true. */
  inlayHintsDefaults?: boolean;
  /**
   * The block context an nginx fragment is read in when no file that includes it is loaded and no
   * context comment in it says (`# proxy-tuner: context server`): the project config's `contexts`
   * entry matching the file's path. The caller (server, CLI) resolves it per file.
   */
  nginxContext?: string;
  /**
   * Most diagnostics validateInWorkspace returns for one document; the rest are counted in one
   * summary diagnostic (service/diagnosticCap.ts). No cap when undefined (`proxy-tuner check`);
   * the language server sets `proxyTuner.diagnostics.maxPerDocument` or its default, 1,000.
   */
  maxDiagnostics?: number;
}

/** What a language module offers; every function is pure and never throws on any input. */
export interface LanguageModule<Ast = unknown> {
  readonly id: LanguageId;
  parse(text: string): Ast;
  /**
   * Optional: parses `text`, an edit of the text `prev` was parsed from, reusing what the edit left
   * untouched; the result must equal `parse(text)`. The server calls it for open documents.
   */
  reparse?(prev: Ast, text: string): Ast;
  /**
   * `memo`: what the module keeps of this document from one validation to the next (the caller's
   * ParseCache.memoOf: the server's open documents); without one every run starts afresh.
   */
  validate(doc: TextDocument, ast: Ast, settings: ServiceSettings, memo?: Record<string, unknown>): Diagnostic[];
  complete(doc: TextDocument, ast: Ast, pos: Position, settings: ServiceSettings): CompletionList;
  hover(doc: TextDocument, ast: Ast, pos: Position, settings: ServiceSettings): Hover | null;
  /**
   * Optional: builds the static tables completion reads at the settings' target version, which the
   * first request would otherwise build (the server's warm-up calls it). Results never depend on it.
   */
  prepareCompletion?(settings: ServiceSettings): void;
  codeActions?(doc: TextDocument, ast: Ast, range: Range, diagnostics: Diagnostic[], settings: ServiceSettings): CodeAction[];
  symbols?(doc: TextDocument, ast: Ast): DocumentSymbol[];
  folding?(doc: TextDocument, ast: Ast): FoldingRange[];
  selectionRanges?(doc: TextDocument, ast: Ast, positions: Position[]): SelectionRange[];
  format?(doc: TextDocument, ast: Ast, range: Range | undefined, options: { tabSize: number; insertSpaces: boolean }): TextEdit[];
  /** Go to definition (an upstream, a backend, a named location, an included file). */
  definition?(doc: TextDocument, ast: Ast, pos: Position, settings: ServiceSettings): Location | Location[] | LocationLink[] | null;
  /** Signature help: the syntax of the directive/keyword under the cursor, the argument being typed as the active parameter. */
  signatureHelp?(doc: TextDocument, ast: Ast, pos: Position, settings: ServiceSettings): SignatureHelp | null;
  /** Inlay hints in `range`: the effective defaults of what the config leaves out, at the target version. */
  inlayHints?(doc: TextDocument, ast: Ast, range: Range, settings: ServiceSettings): InlayHint[];
  /** Names the file defines and uses (upstreams, backends, ACLs...): cross-file definition, references, rename. */
  navEntities?(doc: TextDocument, ast: Ast, memo?: Record<string, unknown>): NavEntity[];
  /** Validation as if the file were read inside `context` (an nginx fragment judged where it is included). */
  validateInContext?(doc: TextDocument, ast: Ast, settings: ServiceSettings, context: string, unit?: UnitFacts): Diagnostic[];
}

/** What the files loaded together say about one of them (nginx: the modules its configuration loads). */
export interface UnitFacts {
  /** `.so` base names loaded by `load_module` lines in the main context; `unknown`: some may be loaded unseen. */
  nginxModules?: { loaded: ReadonlySet<string>; unknown: boolean };
  /**
   * The open document's memo, kept by the caller (the server's ParseCache) from one validation to
   * the next: each pass keeps what lets it redo only what an edit changed under its own key.
   * Results never depend on it (test/nginx/incremental.test.ts); without it everything is computed.
   */
  memo?: Record<string, unknown>;
}

/**
 * A name a config defines (`role: 'def'`) or uses (`'ref'`): an upstream, a named location, a
 * zone, a variable, a backend, an ACL... Offsets cover the name only (what a rename replaces).
 * Definitions and references match on `kind` and `name`, and on `scope` when one is set
 * (an HAProxy ACL belongs to its proxy section: the scope is that section, in the same file).
 */
export interface NavEntity {
  role: 'def' | 'ref';
  kind: string;
  name: string;
  scope?: string;
  start: number;
  end: number;
  /** For a reference: what to say when nothing in the loaded files defines it (no message: say nothing). */
  missing?: { message: string; severity: 'error' | 'warning' | 'information' };
  /** For a definition: report it as unused when nothing refers to it. */
  reportUnused?: boolean;
  /** A reference through a variable or expression (`proxy_pass http://$up`): definitions of its kind may be used unseen. */
  dynamic?: boolean;
}
