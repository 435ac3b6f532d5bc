// nginx `include`: where each include directive sits (its block context), and which files a
// pattern names, resolved as nginx does: a relative path is taken from the folder of the main
// configuration (nginx's conf prefix), globs (`*`, `?`, `[...]`) expand in sorted order and
// skip dot files, a glob that matches nothing is no error. The file system is passed in (plain
// functions), so this stays free of I/O and testable.
import type { NginxFile, Word } from './ast';
import { blockContext, walk } from './ast';
import { linearRegExp, type LinearRegExp } from './regex';

export interface IncludeFs {
  /** Names in a folder, or undefined when it is not one. */
  readDir(dir: string): string[] | undefined;
  isFile(path: string): boolean;
}

export interface IncludeSite {
  word: Word;
  pattern: string;
  /** The block context the included files are read in (`http`, `server`, `location`...). */
  context: string;
  /** Offsets of the whole directive. */
  start: number;
  end: number;
}

/** Every `include` directive of a file, with the context it includes into. */
export function includeSites(file: NginxFile, context = 'main'): IncludeSite[] {
  const out: IncludeSite[] = [];
  walk(file, (d, ancestors) => {
    if (d.entry) return;
    if (d.name === 'include' && d.args[0] && !d.args[0].value.includes('$')) {
      out.push({ word: d.args[0], pattern: d.args[0].value, context: blockContext(ancestors, context), start: d.start, end: d.end });
    }
  });
  return out;
}

export function hasGlob(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

/** A regular expression for one path segment of a glob (run in linear time: the glob is the config's, the names the disk's). */
function segmentRegex(seg: string): LinearRegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i];
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, close);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else re += ch.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return linearRegExp(`^${re}$`);
}

function join(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** Absolute form of `pattern` taken from `base` (`..` and `.` folded). */
export function resolvePath(base: string, pattern: string): string {
  const parts = (pattern.startsWith('/') ? pattern : join(base, pattern)).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '' || p === '.') continue;
    if (p === '..') out.pop();
    else out.push(p);
  }
  return '/' + out.join('/');
}

/** The files an absolute pattern names, sorted as glob(3) sorts them; a plain path only when it is a file. */
export function expandGlob(absPattern: string, fs: IncludeFs): string[] {
  if (!hasGlob(absPattern)) return fs.isFile(absPattern) ? [absPattern] : [];
  const segs = absPattern.split('/').filter((s) => s !== '');
  let current = ['/'];
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    const last = i === segs.length - 1;
    const next: string[] = [];
    for (const dir of current) {
      if (!hasGlob(seg)) {
        next.push(join(dir, seg));
        continue;
      }
      const re = segmentRegex(seg);
      const names = (fs.readDir(dir) ?? []).filter((n) => !n.startsWith('.') && re.test(n)).sort();
      for (const n of names) next.push(join(dir, n));
    }
    current = last ? next.filter((p) => fs.isFile(p)) : next;
    if (current.length === 0) return [];
  }
  return current;
}

/**
 * The files an include names. A relative pattern is resolved from the main configuration's
 * folder first (what nginx does), then from the including file's folder (a config tree opened
 * without its main file).
 */
export function resolveInclude(pattern: string, mainDir: string, includerDir: string, fs: IncludeFs): string[] {
  if (pattern.startsWith('/')) return expandGlob(resolvePath('/', pattern), fs);
  const first = expandGlob(resolvePath(mainDir, pattern), fs);
  if (first.length || mainDir === includerDir) return first;
  return expandGlob(resolvePath(includerDir, pattern), fs);
}

/** The nearest folder, from the file's own folder upward (at most `levels`), that holds `nginx.conf`. */
export function confDirOf(path: string, fs: IncludeFs, levels = 4): string | undefined {
  let dir = dirname(path);
  for (let i = 0; i < levels; i++) {
    if (fs.isFile(join(dir, 'nginx.conf'))) return dir;
    if (dir === '/') break;
    dir = dirname(dir);
  }
  return undefined;
}
