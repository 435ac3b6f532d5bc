// The work of `check` on a list of files, the same in the main thread and in a worker thread:
// read, detect the language (or take --language), find the project config, judge each file
// through diagnose(), the editor's own pipeline. Files of one folder share an index (a HAProxy
// folder is one configuration; its files are parsed once, not once per file).
import { readFileSync } from 'node:fs';
import { notTextReason } from '../../server/src/core/text';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { createWorkspaceIndex, detectLanguage, diagnose, type WorkspaceIndex } from '../../server/src/service/languageService';
import type { NginxBuildFacts } from '../../server/src/host/binaryFacts';
import { nodeFileSystem, nodeHostProbe } from '../../server/src/host/nodeHost';
import { contextFor, fileSettings } from '../../server/src/service/projectConfig';
import type { ProxyTunerConfig } from '../../server/src/service/settings';
import type { HostProbe } from '../../server/src/service/host';
import type { LanguageId, ServiceSettings } from '../../server/src/core/types';
import { ProjectConfigs, readConfigFile } from './files';
import { trace, TRACING } from './trace';

export interface CheckOptions {
  /** `--language`: every file is this language. */
  language?: LanguageId;
  /** `--nginx-version` / `--haproxy-version`: over the project config. */
  flags: ProxyTunerConfig;
  /** Whether diagnostics carry their fixes (SARIF shows them; text output does not). */
  fixData: boolean;
  /**
   * The local binaries' versions, found once by the main thread and handed to workers (null: no
   * local binary, judge as the newest); absent: ask the binary (main thread).
   */
  localVersions?: { nginx: string | null; haproxy: string | null };
  /** The local nginx's build (`nginx -V`), found once by the main thread (null: none); absent: asked when an nginx file comes. */
  nginxBuild?: NginxBuildFacts | null;
}

export interface FileResult {
  file: string;
  language: LanguageId;
  diagnostics: Diagnostic[];
  /** The file could not be read (the run exits 2). */
  error?: string;
}

export interface Input {
  file: string;
  /** Given for stdin; otherwise read from `file`. */
  text?: string;
}

function byPosition(a: Diagnostic, b: Diagnostic): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

/** Settings per (project config, context): files under one config share one object. */
export class SettingsFor {
  private readonly cache = new Map<string, ServiceSettings>();
  /** The host's facts, as the editor gets them (nodeHostProbe), with what the main thread already found. */
  readonly probe: HostProbe;
  /** See LastFolder. */
  last: LastFolder | undefined;

  constructor(
    private readonly opts: CheckOptions,
    readonly configs = new ProjectConfigs(),
  ) {
    const lv = opts.localVersions;
    const build = opts.nginxBuild;
    this.probe = {
      ...nodeHostProbe,
      ...(lv ? { version: (lang) => lv[lang] ?? undefined } : {}),
      ...(build !== undefined ? { nginxBuild: () => build ?? undefined } : {}),
    };
  }

  /** The local nginx's build, for diagnose()'s module notes, as the editor has them. */
  nginxBuild(): NginxBuildFacts | undefined {
    return this.probe.nginxBuild?.();
  }

  get(file: string, fixData = this.opts.fixData): ServiceSettings {
    const abs = resolve(file);
    const cfg = this.configs.for(abs);
    const context = contextFor(cfg, abs);
    const key = `${cfg?.file ?? ''}\0${context ?? ''}\0${fixData}`;
    let s = this.cache.get(key);
    if (!s) {
      s = fileSettings(cfg, abs, this.opts.flags, this.probe);
      s.fixData = fixData;
      this.cache.set(key, s);
    }
    return s;
  }
}

/** A document for a file: its uri from the path, its language from --language or the detector. */
export function documentOf(file: string, text: string, language?: LanguageId): { doc: TextDocument; language: LanguageId } {
  const lang = language ?? detectLanguage(file, text);
  return { doc: TextDocument.create(pathToFileURL(resolve(file)).href, lang, 1, text), language: lang };
}

/** The index of the files loaded with `docs` (includers, included files, the folder's `.cfg`s). */
export function workspaceOf(docs: TextDocument[], byUri = new Map(docs.map((d) => [d.uri, d]))): WorkspaceIndex {
  return createWorkspaceIndex({
    open: { get: (uri) => byUri.get(uri), all: () => [...byUri.values()] },
    fs: nodeFileSystem,
    // one judgement per file: nothing is kept for a next version
    incremental: false,
    // relative includes of a file outside a conf tree: where the local nginx reads them
    nginxConfDir: nodeHostProbe.nginxConfDir,
  });
}

/**
 * The last folder's index, kept for the next batch of the same folder (a worker gets a big
 * folder in batches: its files, a HAProxy folder's every `.cfg`, are parsed once, not per batch).
 */
interface LastFolder {
  dir: string;
  docs: Map<string, TextDocument>;
  ws: WorkspaceIndex;
}

/** Checks the inputs in order; files of one folder (in a row) share a workspace index. */
export function checkInputs(inputs: Input[], opts: CheckOptions, settingsFor = new SettingsFor(opts)): FileResult[] {
  const results: FileResult[] = [];
  let i = 0;
  while (i < inputs.length) {
    // the run of inputs in the same folder
    const dir = inputs[i].text === undefined ? dirname(resolve(inputs[i].file)) : undefined;
    let j = i + 1;
    if (dir !== undefined) while (j < inputs.length && inputs[j].text === undefined && dirname(resolve(inputs[j].file)) === dir) j++;
    const group: { file: string; doc: TextDocument; language: LanguageId }[] = [];
    for (const input of inputs.slice(i, j)) {
      let text = input.text;
      if (text === undefined) {
        try {
          text = readConfigFile(input.file);
        } catch (err) {
          results.push({ file: input.file, language: opts.language ?? 'nginx', diagnostics: [], error: (err as Error).message });
          continue;
        }
      }
      const notText = notTextReason(text);
      if (notText) {
        results.push({ file: input.file, language: opts.language ?? 'nginx', diagnostics: [], error: notText });
        continue;
      }
      group.push({ file: input.file, ...documentOf(input.file, text, opts.language) });
    }
    let ws: WorkspaceIndex;
    const last = settingsFor.last;
    if (dir !== undefined && last && last.dir === dir) {
      for (const g of group) last.docs.set(g.doc.uri, g.doc);
      ws = last.ws;
    } else {
      const docs = new Map(group.map((g) => [g.doc.uri, g.doc]));
      ws = workspaceOf([], docs);
      settingsFor.last = dir === undefined ? undefined : { dir, docs, ws };
    }
    for (const g of group) {
      const settings = settingsFor.get(g.file);
      results.push({
        file: g.file,
        language: g.language,
        diagnostics: diagnose(g.doc, g.language, settings, ws, {
          step: TRACING ? (s) => trace('main', s) : undefined,
          nginxBuild: g.language === 'nginx' ? settingsFor.nginxBuild() : undefined,
        }).sort(byPosition),
      });
    }
    i = j;
  }
  return results;
}
