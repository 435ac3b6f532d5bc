// The service's host interfaces (service/host.ts) implemented with Node: the disk through
// node:fs, the local binaries' versions and this machine's facts through host/localVersions.ts
// and host/hostFacts.ts. The language server's entry (lsp/main.ts) and the command line hand
// these to the service; tests hand it in-memory ones instead.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import type { FileSystem, HostProbe } from '../service/host';
import { localNginxBuild } from './binaryFacts';
import { localHostFacts, localNginxConfDir, localNginxModules } from './hostFacts';
import { localVersion, prefetchLocalVersion } from './localVersions';
import { readRegularFile } from './safeRead';

/** The most one read takes (the index reads at most 2 MB per file; a project config is small). */
export const MAX_READ_BYTES = 32 * 1024 * 1024;

/** The disk. Every call answers undefined (realpath: the path itself) where node:fs throws or a read is refused. */
export const nodeFileSystem: FileSystem = {
  readFile(path) {
    // a regular file, resolved, opened without blocking, within the bound (safeRead.ts): never /dev/zero, a FIFO or /proc
    const r = readRegularFile(path, MAX_READ_BYTES);
    return r.ok ? r.text : undefined;
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

/** The local binaries (`nginx -v`, `haproxy -v`, `nginx -V`: build and modules) and this machine (cores, somaxconn). */
export const nodeHostProbe: HostProbe = {
  version: localVersion,
  prefetchVersion: prefetchLocalVersion,
  hostFacts: localHostFacts,
  nginxModules: localNginxModules,
  nginxBuild: () => localNginxBuild(),
  nginxConfDir: () => localNginxConfDir(),
};
