// What the service needs from the machine, as interfaces only. The service does no I/O
// (docs/architecture.md, invariant 2): whoever calls it (the LSP adapter, the command line, a
// test) hands it these, and server/src/host/ implements them with node:fs and child processes
// (host/nodeHost.ts). Nothing here is imported at run time by the service but types.
import type { HostFacts, LanguageId } from '../core/types';
import type { NginxBuildFacts } from '../languages/nginx/buildFacts';

/** The disk as the workspace index reads it; tests pass an in-memory one. */
export interface FileSystem {
  /** The file's text (UTF-8), or undefined when it cannot be read. */
  readFile(path: string): string | undefined;
  stat(path: string): { mtimeMs: number; size: number; isFile: boolean; isDirectory: boolean } | undefined;
  /** The names in a folder, or undefined when it cannot be listed. */
  readDir(path: string): string[] | undefined;
  /** The path with symbolic links resolved (`sites-enabled/x` → `sites-available/x`); the path itself when it cannot be. */
  realpath?(path: string): string;
}

/** Finds the default version of a language when the user set none (the local binary's). */
export type VersionProbe = (lang: LanguageId, binaryPath?: string) => string | undefined;

/** Facts of this machine for the host-aware rules (cores, somaxconn), or undefined when unknown. */
export type HostFactsProbe = () => HostFacts | undefined;

/** The loadable modules installed for the local nginx (for the load_module quick fix). */
export type NginxModulesProbe = (binaryPath?: string) => { installed: string[]; added: string[] } | undefined;

/** The local nginx's build (`nginx -V`: version, modules built in, modules folder), for the module notes. */
export type NginxBuildProbe = () => NginxBuildFacts | undefined;

/**
 * The host's facts, in one object: the local binaries' versions, this machine's limits, the local
 * nginx's build and loadable modules. The language server and `check` inject the Node one
 * (host/nodeHost.ts nodeHostProbe); the browser and tests pass their own. Settings are resolved
 * with it (service/projectConfig.ts fileSettings) and diagnose() takes its `nginxBuild`.
 */
export interface HostProbe {
  version: VersionProbe;
  /** Asks a local binary its version in the background; resolves once `version` knows the answer. Never rejects. */
  prefetchVersion?(lang: LanguageId, binaryPath?: string): Promise<unknown>;
  hostFacts?: HostFactsProbe;
  nginxModules?: NginxModulesProbe;
  nginxBuild?: NginxBuildProbe;
  /** The local nginx's conf folder (`nginx -V`), where a fragment outside a conf tree has its relative includes read from. */
  nginxConfDir?: () => string | undefined;
}

/** One message of the binary's config test, with the user's file and 1-based line when it named one. */
export interface BinaryCheckMessage {
  severity: 'error' | 'warning' | 'information';
  message: string;
  file?: string;
  line?: number;
}

/** What the service reads of a run of `nginx -t` / `haproxy -c` on a sandboxed copy (the host's runner gives more). */
export interface BinaryCheckReport {
  kind: LanguageId;
  binary: string;
  version: string;
  status: 'ok' | 'error' | 'refused' | 'missing';
  messages: BinaryCheckMessage[];
}

export interface BinaryCheckRequest {
  configPath: string;
  kind?: LanguageId;
  /** An explicit binary path (settings); else found on PATH. */
  binary?: string;
}

/** Runs the binary's own config test on a sandboxed copy of a saved file; never rejects for a bad config. */
export type BinaryCheckRunner = (request: BinaryCheckRequest) => Promise<BinaryCheckReport>;
