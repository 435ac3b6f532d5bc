// Multi-file fixtures for the navigation tests: files written to a fresh temp folder, each with
// optional `<|>` (cursor) and `<|...|>` (range) markers, and a workspace index over them.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Location, Position, Range } from 'vscode-languageserver-types';
import { parseMarkers } from '../lsp/markers';
import { createWorkspaceIndex, languageOf, type WorkspaceIndex } from '../../server/src/service/languageService';
import { nodeFileSystem } from '../../server/src/host/nodeHost';

export interface FixtureFile {
  path: string;
  uri: string;
  text: string;
  cursor?: Position;
  ranges: Range[];
  doc: TextDocument;
}

export interface Tree {
  dir: string;
  files: Record<string, FixtureFile>;
  index: WorkspaceIndex;
  /** Documents "open in the editor" (their text wins over the disk). */
  open: Map<string, TextDocument>;
  cleanup(): void;
}

/** Writes `files` (relative path → marked text) under a new temp folder. */
export function tree(files: Record<string, string>, opts: { openAll?: boolean } = {}): Tree {
  const dir = mkdtempSync(join(tmpdir(), 'pt-nav-'));
  const out: Record<string, FixtureFile> = {};
  for (const [rel, marked] of Object.entries(files)) {
    const m = parseMarkers(marked);
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, m.text);
    const uri = pathToFileURL(path).href;
    const doc = TextDocument.create(uri, languageOf(undefined, uri, m.text), 1, m.text);
    out[rel] = { path, uri, text: m.text, cursor: m.cursor, ranges: m.ranges, doc };
  }
  const open = new Map<string, TextDocument>();
  if (opts.openAll) for (const f of Object.values(out)) open.set(f.uri, f.doc);
  const index = createWorkspaceIndex({
    fs: nodeFileSystem,
    open: { get: (u) => open.get(u), all: () => [...open.values()] },
    roots: [dir],
  });
  return { dir, files: out, index, open, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `uri:line:col-line:col` keys, sorted, for comparing location sets. */
export function keys(locs: (Location | { uri: string; range: Range })[] | null | undefined): string[] {
  return (locs ?? []).map((l) => `${l.uri}:${rangeKey(l.range)}`).sort();
}

export function rangeKey(r: Range): string {
  return `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
}

/** Location keys of every marked range of the given files. */
export function marked(t: Tree, ...rels: string[]): string[] {
  return rels.flatMap((rel) => t.files[rel].ranges.map((r) => `${t.files[rel].uri}:${rangeKey(r)}`)).sort();
}

/** The text each edit of a WorkspaceEdit replaces, by file, applied. */
export function applyWorkspaceEdit(
  t: Tree,
  edit: { changes?: Record<string, { range: Range; newText: string }[]> },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    const f = Object.values(t.files).find((x) => x.uri === uri)!;
    const doc = f.doc;
    const sorted = [...edits].sort((a, b) => doc.offsetAt(b.range.start) - doc.offsetAt(a.range.start));
    let text = doc.getText();
    for (const e of sorted) text = text.slice(0, doc.offsetAt(e.range.start)) + e.newText + text.slice(doc.offsetAt(e.range.end));
    out[Object.keys(t.files).find((k) => t.files[k].uri === uri)!] = text;
  }
  return out;
}
