// Settings: pulled per document through `workspace/configuration` when the client can answer
// it, else taken from `initializationOptions` and later `didChangeConfiguration` pushes. The
// project config (.proxy-tuner.json, found by walking up from the document's folder) is read
// here and handed to the service's resolver (service/projectConfig.ts fileSettings) with the
// host's probes; the editor's own settings win over it.
import type { InitializeParams } from 'vscode-languageserver/node';
import * as service from '../service/languageService';
import { mergeConfig, readConfig, type ProxyTunerConfig } from '../service/settings';
import { fileConfig, fileSettings, findProjectConfig, isIgnored, type ProjectConfig } from '../service/projectConfig';
import type { ServiceSettings } from '../core/types';
import type { ServerContext } from './context';

/**
 * How long a document rests after an edit before it is validated, by default (setting
 * `proxyTuner.diagnostics.delay`): long enough that the edits of a burst already on the wire are
 * applied first, short enough that diagnostics follow typing.
 */
export const DEFAULT_DIAGNOSTICS_DELAY_MS = 3;
/** A client that never answers `workspace/configuration` must not stall validation. */
const CONFIGURATION_TIMEOUT_MS = 3000;

export class ClientSettings {
  canPull = false;
  /** The client inserts the snippets of snippets/*.json itself (the VS Code extension contributes them), or cannot insert snippets: completion leaves them out. */
  clientHasSnippets = false;
  canRegisterChange = false;
  pushed: ProxyTunerConfig = {};
  private lastTargets = '';
  private readonly projectConfigs = new Map<string, ProjectConfig | null>();
  private readonly toldBadConfig = new Set<string>();

  constructor(private readonly ctx: ServerContext) {}

  /** Reads what the client can do and what it sent; starts the version probes while it sends the documents. */
  initialize(params: InitializeParams): void {
    const workspace = params.capabilities?.workspace;
    this.canPull = workspace?.configuration === true;
    this.canRegisterChange = workspace?.didChangeConfiguration?.dynamicRegistration === true;
    this.pushed = readConfig(params.initializationOptions);
    // snippets as completion items: for clients that can insert them and do not bring their own
    this.clientHasSnippets =
      (params.initializationOptions as { contributesSnippets?: unknown } | undefined)?.contributesSnippets === true ||
      params.capabilities?.textDocument?.completion?.completionItem?.snippetSupport !== true;
    void this.probeVersions(this.pushed);
  }

  /** A configuration change: pushed values (push-model clients) replace the old; every document's settings are asked for again. */
  changed(raw: unknown): void {
    if (raw && typeof raw === 'object' && Object.keys(raw).length) this.pushed = readConfig(raw);
    this.projectConfigs.clear();
    this.forget();
  }

  /** A project config changed on disk: read again, its problems told again. */
  projectConfigChanged(): void {
    this.projectConfigs.clear();
    this.toldBadConfig.clear();
    this.forget();
  }

  /** Every open document's settings are asked for again (a configuration or project config changed). */
  private forget(): void {
    for (const st of this.ctx.docs.allStates()) st.settings = undefined;
  }

  /** The editor's configuration for a document: pulled when the client can answer, else the pushed one. */
  editorConfig(uri: string): Promise<ProxyTunerConfig> {
    return this.canPull ? this.pull(uri) : Promise.resolve(this.pushed);
  }

  /** The validation delay of a document, or the pushed one until its settings are known. */
  delayOf(uri: string): number {
    return this.ctx.docs.peek(uri)?.delay ?? this.pushed.diagnostics?.delay ?? DEFAULT_DIAGNOSTICS_DELAY_MS;
  }

  /** A document's settings, resolved once (until a change); the local binaries' versions are probed without blocking the server. */
  settingsFor(uri: string): Promise<ServiceSettings> {
    const st = this.ctx.docs.stateOf(uri);
    let pending = st.settings;
    if (!pending) {
      pending = this.editorConfig(uri).then(async (editorConfig) => {
        const project = this.projectConfigOf(uri);
        const config = fileConfig(project.config, editorConfig);
        if (st.settings === pending) st.delay = config.diagnostics?.delay ?? DEFAULT_DIAGNOSTICS_DELAY_MS;
        this.ctx.wsIndex.setFollowSymlinks(config.workspace?.followSymlinks === true);
        await this.probeVersions(config);
        const settings = fileSettings(project.config, project.path, editorConfig, this.ctx.host.probe);
        st.ignored = !!project.path && isIgnored(project.config, project.path);
        settings.completionSnippets = !this.clientHasSnippets;
        settings.maxDiagnostics ??= service.DEFAULT_MAX_DIAGNOSTICS;
        return this.announce(settings);
      });
      st.settings = pending;
    }
    return pending;
  }

  /** The client's answer for one document, over what initializationOptions or pushes gave. */
  private async pull(uri: string): Promise<ProxyTunerConfig> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CONFIGURATION_TIMEOUT_MS} ms`)), CONFIGURATION_TIMEOUT_MS);
    });
    try {
      const raw: unknown = await Promise.race([
        this.ctx.connection.workspace.getConfiguration({ scopeUri: uri, section: 'proxyTuner' }),
        timeout,
      ]);
      return mergeConfig(this.pushed, readConfig(raw));
    } catch (err) {
      this.ctx.logError('workspace/configuration', err);
      return this.pushed;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs the -v probes the settings will need in the background; resolves when they answered. */
  private probeVersions(config: ProxyTunerConfig): Promise<unknown> {
    return Promise.all(
      (['nginx', 'haproxy'] as const)
        .filter((lang) => !config[lang]?.version)
        .map((lang) => this.ctx.host.probe.prefetchVersion?.(lang, config[lang]?.path)),
    );
  }

  /** Says once in the log which versions configs are judged against, and again when that changes. */
  private announce(settings: ServiceSettings): ServiceSettings {
    const targets = `nginx ${settings.nginxVersion ?? 'newest'}, HAProxy ${settings.haproxyVersion ?? 'newest'}`;
    if (targets !== this.lastTargets) {
      this.lastTargets = targets;
      this.ctx.connection.console.info(`[proxy-tuner] judging configs against ${targets}`);
    }
    return settings;
  }

  private projectConfigOf(uri: string): { config: ProjectConfig | undefined; path: string | undefined } {
    const path = service.uriToPath(uri);
    if (!path) return { config: undefined, path };
    try {
      const config = findProjectConfig(path, (p) => this.ctx.host.fs.readFile(p), this.projectConfigs);
      if (config?.problems.length && !this.toldBadConfig.has(config.file)) {
        this.toldBadConfig.add(config.file);
        this.ctx.connection.console.warn(`[proxy-tuner] ${config.file}: ${config.problems.join('; ')} (ignored)`);
      }
      return { config, path };
    } catch (err) {
      const message = (err as Error).message;
      if (!this.toldBadConfig.has(message)) {
        this.toldBadConfig.add(message);
        this.ctx.connection.console.error(`[proxy-tuner] ${message}; judging without it`);
      }
      return { config: undefined, path };
    }
  }
}
