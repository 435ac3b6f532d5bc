// Reading a file the user's config names (an include, a main config, a project config) without
// hanging or growing: a config can name, directly or through a symbolic link, /dev/zero (endless),
// a FIFO (a read blocks until a writer comes, which may be never), /proc/self/environ (secrets of
// this process). So the path is resolved first and tested as resolved; the file is opened
// without blocking and without following a last link swapped in meanwhile; only a regular file is
// read, and only up to a size bound, with the size taken from the open descriptor.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';

/** Kernel and device files: endless, huge, blocking or secret; never read for a config. */
const FORBIDDEN_ROOTS = ['/proc', '/sys', '/dev'];

/** Whether a path (already resolved) lies under /proc, /sys or /dev. */
export function isKernelPath(p: string): boolean {
  return FORBIDDEN_ROOTS.some((r) => p === r || p.startsWith(r + '/'));
}

export type ReadRefusal = 'missing' | 'kernel' | 'not-regular' | 'too-large' | 'unreadable';

export type SafeRead = { ok: true; path: string; text: string } | { ok: false; path: string; reason: ReadRefusal; message: string };

const REASONS: Record<ReadRefusal, string> = {
  missing: 'no such file',
  kernel: 'a kernel or device file (under /proc, /sys or /dev) is never read',
  'not-regular': 'not a regular file (a FIFO, a socket, a device or a folder) is never read',
  'too-large': 'larger than the bound on what is read',
  unreadable: 'cannot be read',
};

function refuse(path: string, reason: ReadRefusal, detail?: string): SafeRead {
  return { ok: false, path, reason, message: `${path}: ${REASONS[reason]}${detail ? ` (${detail})` : ''}` };
}

/** What a path names once resolved, if it may be read: a regular file outside /proc, /sys, /dev, within `maxBytes`. */
export function checkReadable(path: string, maxBytes: number): SafeRead | { ok: true; path: string; size: number } {
  const opened = openRegular(path, maxBytes);
  if (!opened.ok) return opened;
  closeSync(opened.fd);
  return { ok: true, path: opened.path, size: opened.size };
}

function openRegular(path: string, maxBytes: number): { ok: true; path: string; fd: number; size: number } | (SafeRead & { ok: false }) {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return refuse(path, code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable', code) as SafeRead & { ok: false };
  }
  if (isKernelPath(real) || isKernelPath(path))
    return refuse(path, 'kernel', real !== path ? `it is ${real}` : undefined) as SafeRead & { ok: false };
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO does not wait for a writer; O_NOFOLLOW: a link put in place of the resolved file is refused
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW | constants.O_NOCTTY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return refuse(path, code === 'ENOENT' ? 'missing' : code === 'ELOOP' ? 'not-regular' : 'unreadable', code) as SafeRead & { ok: false };
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    return refuse(path, 'not-regular') as SafeRead & { ok: false };
  }
  if (st.size > maxBytes) {
    closeSync(fd);
    return refuse(path, 'too-large', `${st.size} bytes, the bound is ${maxBytes}`) as SafeRead & { ok: false };
  }
  return { ok: true, path: real, fd, size: st.size };
}

/**
 * The text (UTF-8) of a regular file, read through its resolved path without blocking and up to
 * `maxBytes`; a refusal says why otherwise. A file that grows past the bound while read is refused.
 */
export function readRegularFile(path: string, maxBytes: number): SafeRead {
  const opened = openRegular(path, maxBytes);
  if (!opened.ok) return opened;
  const { fd } = opened;
  try {
    const buf = Buffer.alloc(Math.min(opened.size, maxBytes) + 1);
    let len = 0;
    for (;;) {
      if (len === buf.length) return refuse(path, 'too-large', 'it grew while read');
      const n = readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
    }
    return { ok: true, path: opened.path, text: buf.toString('utf8', 0, len) };
  } catch (err) {
    return refuse(path, 'unreadable', (err as NodeJS.ErrnoException).code);
  } finally {
    closeSync(fd);
  }
}
