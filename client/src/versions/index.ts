// The target version in the editor: a status bar item showing the active config's target
// (the `proxyTuner.<kind>.version` setting, else the local binary's version, else "newest"),
// with every open config's target in its tooltip, and the "Pick Target Version" command: a
// quick pick of the binaries found (binaries.ts) and the release branches the data knows;
// choosing one sets the version setting (the workspace's, or the user's without a workspace).
import * as vscode from 'vscode';
import { branches, endOfLife, eolNote, BRANCHES_AS_OF } from '../../../server/src/core/lifecycle';
import { loadMatrix, matrixDir } from '../../../server/src/runner/matrix';
import { discoverBinaries, discoverInputKey, targetVersion, type DiscoverInput, type FoundBinary, type Kind } from './binaries';

export const PICK_COMMAND = 'proxyTuner.pickTargetVersion';

function kindOf(doc: vscode.TextDocument | undefined): Kind | undefined {
  return doc && (doc.languageId === 'nginx' || doc.languageId === 'haproxy') ? doc.languageId : undefined;
}

/** Where the settings say to look for binaries (their values now). */
export function readBinarySettings(): DiscoverInput {
  const cfg = vscode.workspace.getConfiguration('proxyTuner');
  const extra = cfg.get<unknown>('binaries', []);
  return {
    configured: { nginx: cfg.get<string>('nginx.path', ''), haproxy: cfg.get<string>('haproxy.path', '') },
    extra: Array.isArray(extra) ? extra.filter((x): x is string => typeof x === 'string') : [],
    matrix: matrixBinaries(),
  };
}

/**
 * The version matrix `npm run setup` installed: $PROXY_TUNER_MATRIX_DIR, the `.matrix/` above the
 * extension (a clone run with `npm start`), or, in a trusted workspace only (its binaries are
 * started to ask their version), a workspace folder's `.matrix/`.
 */
function matrixBinaries(): { kind: Kind; path: string }[] {
  const dirs = new Set<string>();
  const own = matrixDir(process.env, __dirname);
  if (own) dirs.add(own);
  if (vscode.workspace.isTrusted)
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      if (f.uri.scheme !== 'file') continue;
      const d = matrixDir({}, f.uri.fsPath);
      if (d) dirs.add(d);
    }
  return [...dirs].flatMap((d) => loadMatrix(d).map((b) => ({ kind: b.product, path: b.path })));
}

/** A key of those settings' values, to notice any change of them. */
export function binarySettingsKey(): string {
  return discoverInputKey(readBinarySettings());
}

/**
 * Whether a configuration change touches the binary settings. The event's keys are not enough:
 * VS Code changes a setting's effective value without naming it, e.g. a machine-scoped one in the
 * user settings of a remote window (code-server, SSH), which is dropped once the extension's
 * settings are registered (observed here: `proxyTuner.binaries` went from a list to [] on an event
 * that named only other keys). So the values are compared with the ones last looked at.
 */
export function binarySettingsChanged(e: vscode.ConfigurationChangeEvent, lastKey: string | undefined): boolean {
  return (
    e.affectsConfiguration('proxyTuner.binaries') ||
    e.affectsConfiguration('proxyTuner.nginx.path') ||
    e.affectsConfiguration('proxyTuner.haproxy.path') ||
    binarySettingsKey() !== lastKey
  );
}

/** The binaries this machine has, as the settings say where to look. */
export function findInstalledBinaries(input: DiscoverInput = readBinarySettings()): Promise<FoundBinary[]> {
  return discoverBinaries(input);
}

const NAME: Record<Kind, string> = { nginx: 'nginx', haproxy: 'HAProxy' };

export function registerVersionFeatures(): vscode.Disposable[] {
  const item = vscode.window.createStatusBarItem('proxyTuner.targetVersion', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Proxy Tuner target version';
  item.command = PICK_COMMAND;
  let found: FoundBinary[] = [];
  let refreshing: Promise<void> | undefined;
  let lookedFor: string | undefined;

  const describe = (doc: vscode.TextDocument, kind: Kind) => {
    const setting = vscode.workspace.getConfiguration('proxyTuner', doc.uri).get<string>(`${kind}.version`, '');
    return targetVersion(setting, found, kind);
  };

  const update = () => {
    const doc = vscode.window.activeTextEditor?.document;
    const kind = kindOf(doc);
    if (!doc || !kind) {
      item.hide();
      return;
    }
    const t = describe(doc, kind);
    const eol = t.version ? endOfLife(kind, t.version) : undefined;
    item.text = `${eol ? '$(warning)' : '$(versions)'} ${NAME[kind]} ${t.version ?? 'newest'}`;
    const from =
      t.from === 'setting'
        ? `the proxyTuner.${kind}.version setting`
        : t.from === 'binary'
          ? `the local binary ${t.binary!.path}`
          : 'no setting and no local binary: judged as the newest version known';
    const lines = [`Target: ${NAME[kind]} ${t.version ?? 'newest'} (from ${from})`];
    if (eol) lines.push(eolNote(kind, t.version)!);
    const open = vscode.workspace.textDocuments.filter((d) => kindOf(d) && d.uri.scheme !== 'git');
    if (open.length > 1) {
      lines.push('', 'Open configs:');
      for (const d of open) {
        const k = kindOf(d)!;
        const x = describe(d, k);
        lines.push(`- ${vscode.workspace.asRelativePath(d.uri)}: ${NAME[k]} ${x.version ?? 'newest'} (${x.from})`);
      }
    }
    lines.push('', 'Click to pick the target version.');
    item.tooltip = lines.join('\n');
    item.show();
  };

  const refresh = () => {
    const input = readBinarySettings();
    lookedFor = discoverInputKey(input);
    const mine = findInstalledBinaries(input).then((b) => {
      // a later refresh (the settings changed meanwhile) has the newer list
      if (refreshing !== mine) return;
      found = b;
      update();
    });
    refreshing = mine;
    return mine;
  };

  const pick = async (uriArg?: unknown) => {
    const doc = uriArg instanceof vscode.Uri ? await vscode.workspace.openTextDocument(uriArg) : vscode.window.activeTextEditor?.document;
    const kind = kindOf(doc);
    if (!doc || !kind) {
      void vscode.window.showInformationMessage('Open an nginx or HAProxy config to pick its target version.');
      return;
    }
    await refresh();
    await refreshing; // a refresh started meanwhile by a settings change
    type Item = vscode.QuickPickItem & { version?: string | null };
    const current = describe(doc, kind);
    const items: Item[] = [];
    const bins = found.filter((b) => b.kind === kind);
    items.push({ label: 'Binaries found', kind: vscode.QuickPickItemKind.Separator });
    if (bins.length === 0)
      items.push({ label: `$(circle-slash) no ${kind} binary found`, description: `PATH, proxyTuner.${kind}.path, proxyTuner.binaries` });
    for (const b of bins) {
      const eol = endOfLife(kind, b.version);
      items.push({
        label: `$(file-binary) ${NAME[kind]} ${b.version}`,
        description: b.path,
        detail: `${b.source}${eol ? ' · end-of-life' : ''}`,
        version: b.version,
      });
    }
    items.push({ label: `Versions the data knows (as of ${BRANCHES_AS_OF})`, kind: vscode.QuickPickItemKind.Separator });
    for (const br of [...branches(kind)].reverse()) {
      const eol = endOfLife(kind, br.branch);
      items.push({
        label: `${NAME[kind]} ${br.branch}`,
        description: [br.kind, eol ? `end-of-life${br.eol ? ` since ${br.eol}` : ''}` : br.eol ? `supported until ${br.eol}` : 'supported']
          .filter(Boolean)
          .join(' · '),
        version: br.branch,
      });
    }
    items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
    items.push({ label: "$(discard) Use the local binary's version", description: `clears proxyTuner.${kind}.version`, version: null });
    const chosen = await vscode.window.showQuickPick(items, {
      title: `Target ${NAME[kind]} version for ${vscode.workspace.asRelativePath(doc.uri)} (now ${current.version ?? 'newest'}, from ${current.from})`,
      placeHolder: 'The rules and the validation judge the config for this version',
      matchOnDescription: true,
    });
    if (!chosen || chosen.version === undefined) return;
    const cfg = vscode.workspace.getConfiguration('proxyTuner', doc.uri);
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
    const target = folder
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : vscode.workspace.workspaceFolders?.length
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
    // a workspace's settings file is part of the project: say which file changes, and ask
    const where = folder
      ? `${vscode.workspace.asRelativePath(vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json'))}`
      : target === vscode.ConfigurationTarget.Workspace
        ? "the workspace's settings"
        : 'your user settings';
    const what = chosen.version === null ? `Remove proxyTuner.${kind}.version` : `Set proxyTuner.${kind}.version to ${chosen.version}`;
    const ok = await vscode.window.showInformationMessage(
      `${what} in ${where}?`,
      { modal: true },
      chosen.version === null ? 'Remove' : 'Set',
    );
    if (!ok) return;
    await cfg.update(`${kind}.version`, chosen.version === null ? undefined : chosen.version, target);
    update();
  };

  void refresh();
  return [
    item,
    vscode.commands.registerCommand(PICK_COMMAND, pick),
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.workspace.onDidOpenTextDocument(update),
    vscode.workspace.onDidCloseTextDocument(update),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (binarySettingsChanged(e, lookedFor)) void refresh();
      else if (e.affectsConfiguration('proxyTuner')) update();
    }),
  ];
}
