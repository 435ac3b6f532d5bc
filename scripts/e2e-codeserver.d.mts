// Types of scripts/e2e-codeserver.mjs for the TypeScript end-to-end tests.
export interface CodeServer {
  port: number;
  pgid: number;
  base: string;
  stateDir: string;
  logFile: string;
  openUrl(folder?: string): string;
  stop(): Promise<void>;
  log(): string;
}
export interface StartOptions {
  vsix?: string;
  devPath?: string;
  /** Extra settings; our machine-scoped ones are written to the Remote settings (user-data/Machine). */
  settings?: Record<string, unknown>;
  port?: number;
  stateDir?: string;
}
export declare const defaultUserSettings: Record<string, unknown>;
export declare const chromiumArgs: string[];
export declare const repoRoot: string;
export declare function freeLoopbackPort(): Promise<number>;
/** Our machine-scoped settings (for the Remote settings of a remote window) apart from the rest (the User settings). */
export declare function splitSettings(
  settings: Record<string, unknown>,
  machineKeys?: Set<string>,
): { user: Record<string, unknown>; machine: Record<string, unknown> };
export declare function startCodeServer(opts?: StartOptions): Promise<CodeServer>;
