// The service's host interfaces (service/host.ts) implemented with Node: the disk through
// node:fs, the local binaries' versions and this machine's facts through host/localVersions.ts
// and host/hostFacts.ts. The language server's entry (lsp/main.ts) and the command line hand
// these to the service; tests hand it in-memory ones instead.
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import type { FileSystem, SettingsProbes } from '../service/host';
import { localHostFacts, localNginxModules } from './hostFacts';
import { localVersion } from './localVersions';

/** The disk. Every call answers undefined (realpath: the path itself) where node:fs throws. */
export const nodeFileSystem: FileSystem = {
  readFile(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  stat(path) {
    try {
      const s = statSync(path);
      return { mtimeMs: s.mtimeMs, size: s.size, isFile: s.isFile(), isDirectory: s.isDirectory() };
    } catch {
      return undefined;
    }
  },
  readDir(path) {
    try {
      return readdirSync(path);
    } catch {
      return undefined;
    }
  },
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  },
};

/** The local binaries (`nginx -v`, `haproxy -v`, `nginx -V`'s modules) and this machine (cores, somaxconn). */
export const nodeSettingsProbes: SettingsProbes = {
  version: localVersion,
  hostFacts: localHostFacts,
  nginxModules: localNginxModules,
};
