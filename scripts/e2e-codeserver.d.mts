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
  settings?: Record<string, unknown>;
  port?: number;
  stateDir?: string;
}
export declare const defaultUserSettings: Record<string, unknown>;
export declare const chromiumArgs: string[];
export declare const repoRoot: string;
export declare function freeLoopbackPort(): Promise<number>;
export declare function startCodeServer(opts?: StartOptions): Promise<CodeServer>;
