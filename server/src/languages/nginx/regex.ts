// A small reader of the PCRE patterns nginx configs use (location, if, rewrite, map, server_name,
// valid_referers), for the security analysis: which characters each capture group can hold
// (can it carry a line feed, a slash?), where a pattern is anchored, and whether a repetition
// can match the same text in exponentially many ways (ReDoS). It is an upper bound, never a
// matcher: a character class is kept as a set of ASCII codes plus one "anything above 127" bit.
// Constructs it does not model (backreferences, conditionals, \p{..}) count as "any character",
// which errs towards "can hold it"; a pattern it cannot read at all gives `undefined`.

/** A set of characters: bits for codes 0-127, plus whether any code above 127 is in it. */
export class CharSet {
  readonly bits: Uint32Array;
  high: boolean;
  constructor(bits?: Uint32Array, high = false) {
    this.bits = bits ?? new Uint32Array(4);
    this.high = high;
  }
  static any(): CharSet {
    return new CharSet(new Uint32Array([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]), true);
  }
  static of(...codes: number[]): CharSet {
    const s = new CharSet();
    for (const c of codes) s.add(c);
    return s;
  }
  add(c: number): void {
    if (c > 127) this.high = true;
    else this.bits[c >> 5] |= 1 << (c & 31);
  }
  addRange(a: number, b: number): void {
    for (let c = a; c <= Math.min(b, 127); c++) this.add(c);
    if (b > 127) this.high = true;
  }
  has(c: number): boolean {
    return c > 127 ? this.high : (this.bits[c >> 5] & (1 << (c & 31))) !== 0;
  }
  union(o: CharSet): CharSet {
    const r = new CharSet(new Uint32Array(4), this.high || o.high);
    for (let i = 0; i < 4; i++) r.bits[i] = this.bits[i] | o.bits[i];
    return r;
  }
  invert(): CharSet {
    const r = new CharSet(new Uint32Array(4), !this.high);
    for (let i = 0; i < 4; i++) r.bits[i] = ~this.bits[i] >>> 0;
    return r;
  }
  overlaps(o: CharSet): boolean {
    if (this.high && o.high) return true;
    for (let i = 0; i < 4; i++) if ((this.bits[i] & o.bits[i]) !== 0) return true;
    return false;
  }
  isEmpty(): boolean {
    return !this.high && this.bits.every((b) => b === 0);
  }
  /** The single character of a one-character set, else -1. */
  single(): number {
    if (this.high) return -1;
    let found = -1;
    for (let c = 0; c < 128; c++) {
      if (this.has(c)) {
        if (found >= 0) return -1;
        found = c;
      }
    }
    return found;
  }
}

export type RegexNode =
  | {
      t: 'set';
      set: CharSet;
      /** an escaped or literal char as written (for the dot check) */ lit?: string;
      /** the one character of a literal (matches() tells characters above 127 apart by it) */ code?: number;
    }
  | { t: 'seq'; items: RegexNode[] }
  | { t: 'alt'; branches: RegexNode[] }
  | { t: 'group'; index: number | undefined; name: string | undefined; body: RegexNode }
  | { t: 'rep'; min: number; max: number; body: RegexNode }
  | { t: 'assert'; kind: '^' | '$' | 'b' | 'look' };

export interface CaptureInfo {
  index: number;
  name: string | undefined;
  /** Every character the group can hold (an upper bound). */
  chars: CharSet;
  /** The group always starts with `/`. */
  startsSlash: boolean;
}

export interface ParsedRegex {
  source: string;
  root: RegexNode;
  captures: CaptureInfo[];
  caseless: boolean;
  /**
   * The tree means what PCRE means (matches() may run it): false when the pattern uses what the
   * reader only bounds (lookaround, backreferences, `\p{..}`, atomic groups, possessive repetitions,
   * `\B`, `\G`, extended mode, a POSIX class it does not know).
   */
  exact: boolean;
}

const LF = 10;
const CR = 13;
const SLASH = 47;

function digits(): CharSet {
  const s = new CharSet();
  s.addRange(48, 57);
  return s;
}
function word(): CharSet {
  const s = digits();
  s.addRange(65, 90);
  s.addRange(97, 122);
  s.add(95);
  return s;
}
function space(): CharSet {
  return CharSet.of(9, 10, 11, 12, 13, 32);
}

class Reader {
  i = 0;
  groups = 0;
  readonly caps: { index: number; name: string | undefined; node: RegexNode }[] = [];
  /** Whether the tree stays exact (ParsedRegex.exact). */
  exact = true;
  constructor(
    readonly src: string,
    public caseless: boolean,
    public dotall: boolean,
  ) {}

  fail(): never {
    throw new Error('regex');
  }

  alt(): RegexNode {
    const branches: RegexNode[] = [this.seq()];
    while (this.src[this.i] === '|') {
      this.i++;
      branches.push(this.seq());
    }
    return branches.length === 1 ? branches[0] : { t: 'alt', branches };
  }

  seq(): RegexNode {
    const items: RegexNode[] = [];
    const s = this.src;
    while (this.i < s.length && s[this.i] !== '|' && s[this.i] !== ')') {
      let atom = this.atom();
      if (!atom) continue;
      atom = this.quantified(atom);
      items.push(atom);
    }
    return items.length === 1 ? items[0] : { t: 'seq', items };
  }

  quantified(atom: RegexNode): RegexNode {
    const s = this.src;
    for (;;) {
      const c = s[this.i];
      let min = -1;
      let max = -1;
      if (c === '*') [min, max] = [0, Infinity];
      else if (c === '+') [min, max] = [1, Infinity];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const m = /^\{(\d*)(,(\d*))?\}/.exec(s.slice(this.i));
        if (!m || (m[1] === '' && m[3] === undefined)) return atom;
        min = m[1] === '' ? 0 : Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' || m[3] === undefined ? Infinity : Number(m[3]);
        this.i += m[0].length - 1;
      } else return atom;
      this.i++;
      if (s[this.i] === '+') this.exact = false; // possessive: same characters, fewer matches
      if (s[this.i] === '?' || s[this.i] === '+') this.i++; // lazy or possessive: same characters
      atom = { t: 'rep', min, max, body: atom };
    }
  }

  lit(c: number, written: string): RegexNode {
    const set = CharSet.of(c);
    if (this.caseless) {
      if (c >= 65 && c <= 90) set.add(c + 32);
      else if (c >= 97 && c <= 122) set.add(c - 32);
    }
    return { t: 'set', set, lit: written, code: this.caseless && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) ? undefined : c };
  }

  atom(): RegexNode | undefined {
    const s = this.src;
    const c = s[this.i];
    if (c === '(') return this.group();
    this.i++;
    switch (c) {
      case '^':
        return { t: 'assert', kind: '^' };
      case '$':
        return { t: 'assert', kind: '$' };
      case '.': {
        const set = CharSet.any();
        if (!this.dotall) set.bits[0] &= ~(1 << LF);
        return { t: 'set', set, lit: '.' };
      }
      case '[':
        return { t: 'set', set: this.klass() };
      case '\\':
        return this.escape(false) as RegexNode;
      default:
        return this.lit(c.charCodeAt(0), c);
    }
  }

  group(): RegexNode | undefined {
    const s = this.src;
    this.i++; // (
    let index: number | undefined;
    let name: string | undefined;
    if (s[this.i] === '?') {
      const rest = s.slice(this.i + 1);
      let m: RegExpExecArray | null;
      if ((m = /^(?:P?<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(rest))) {
        name = m[1] ?? m[2];
        index = ++this.groups;
        this.i += 1 + m[0].length;
      } else if (rest[0] === ':' || rest[0] === '>' || rest[0] === '|') {
        if (rest[0] === '>') this.exact = false; // atomic: fewer matches than the plain group
        this.i += 2;
      } else if (rest[0] === '=' || rest[0] === '!' || rest.startsWith('<=') || rest.startsWith('<!')) {
        this.i += rest[0] === '<' ? 3 : 2;
        this.exact = false;
        const saved = this.groups;
        this.alt();
        if (s[this.i] !== ')') this.fail();
        this.i++;
        void saved;
        return { t: 'assert', kind: 'look' };
      } else if ((m = /^([imsxJU-]+)(:|\))/.exec(rest))) {
        // inline flags: (?i) for the rest of the group, (?i:...) for its body
        const on = m[1].split('-')[0];
        const off = m[1].split('-')[1] ?? '';
        if (/[xJ]/.test(m[1])) this.exact = false; // extended mode's spaces and comments are not read as such
        const apply = () => {
          if (on.includes('i')) this.caseless = true;
          if (off.includes('i')) this.caseless = false;
          if (on.includes('s')) this.dotall = true;
          if (off.includes('s')) this.dotall = false;
        };
        this.i += 1 + m[0].length;
        if (m[2] === ')') {
          apply();
          return undefined;
        }
        const saved = [this.caseless, this.dotall] as const;
        apply();
        const body = this.alt();
        [this.caseless, this.dotall] = saved;
        if (s[this.i] !== ')') this.fail();
        this.i++;
        return { t: 'group', index: undefined, name: undefined, body };
      } else if (rest[0] === '#') {
        const close = s.indexOf(')', this.i);
        if (close < 0) this.fail();
        this.i = close + 1;
        return undefined;
      } else this.fail();
    } else index = ++this.groups;
    const body = this.alt();
    if (s[this.i] !== ')') this.fail();
    this.i++;
    const node: RegexNode = { t: 'group', index, name, body };
    if (index !== undefined) this.caps.push({ index, name, node: body });
    return node;
  }

  /** After `\`: a class or a literal; in a character class `\b` is a backspace. */
  escape(inClass: boolean): RegexNode | CharSet {
    const s = this.src;
    const c = s[this.i++];
    if (c === undefined) this.fail();
    const set = (x: CharSet): RegexNode | CharSet => (inClass ? x : { t: 'set', set: x });
    switch (c) {
      case 'd':
        return set(digits());
      case 'D':
        return set(digits().invert());
      case 'w':
        return set(word());
      case 'W':
        return set(word().invert());
      case 's':
        return set(space());
      case 'S':
        return set(space().invert());
      case 'h':
        return set(CharSet.of(9, 32));
      case 'H':
        return set(CharSet.of(9, 32).invert());
      case 'v':
        return set(CharSet.of(10, 11, 12, 13));
      case 'V':
        return set(CharSet.of(10, 11, 12, 13).invert());
      case 'R':
        this.exact = false; // also `\r\n` as one
        return set(CharSet.of(10, 11, 12, 13));
      case 'N':
        return set(CharSet.of(LF).invert());
      case 'n':
        return inClass ? CharSet.of(LF) : this.lit(LF, '\\n');
      case 'r':
        return inClass ? CharSet.of(CR) : this.lit(CR, '\\r');
      case 't':
        return inClass ? CharSet.of(9) : this.lit(9, '\\t');
      case 'x': {
        const m = /^(\{([0-9a-fA-F]+)\}|[0-9a-fA-F]{1,2})/.exec(s.slice(this.i));
        const code = m ? parseInt(m[2] ?? m[1], 16) : 0;
        if (m) this.i += m[0].length;
        return inClass ? CharSet.of(code) : this.lit(code, '\\x');
      }
      case 'p':
      case 'P': {
        this.exact = false;
        if (s[this.i] === '{') {
          const close = s.indexOf('}', this.i);
          if (close < 0) this.fail();
          this.i = close + 1;
        } else this.i++;
        return set(CharSet.any());
      }
      case 'b':
        if (inClass) return CharSet.of(8);
        return { t: 'assert', kind: 'b' };
      case 'B':
      case 'A':
      case 'G':
        if (c !== 'A' && !inClass) this.exact = false;
        return inClass ? CharSet.of(c.charCodeAt(0)) : { t: 'assert', kind: c === 'A' ? '^' : 'b' };
      case 'z':
      case 'Z':
        return inClass ? CharSet.of(c.charCodeAt(0)) : { t: 'assert', kind: '$' };
      case 'Q': {
        const end = s.indexOf('\\E', this.i);
        const text = s.slice(this.i, end < 0 ? s.length : end);
        this.i = end < 0 ? s.length : end + 2;
        if (inClass) {
          const r = new CharSet();
          for (const ch of text) r.add(ch.charCodeAt(0));
          return r;
        }
        return { t: 'seq', items: [...text].map((ch) => this.lit(ch.charCodeAt(0), `\\${ch}`)) };
      }
      default:
        if (c >= '1' && c <= '9' && !inClass) {
          this.exact = false;
          while (s[this.i] >= '0' && s[this.i] <= '9') this.i++;
          return { t: 'set', set: CharSet.any() }; // a backreference: whatever the group held
        }
        if (c === 'k' || c === 'g') {
          this.exact = false;
          const m = /^(\{[^}]*\}|<[^>]*>|'[^']*'|-?\d+)/.exec(s.slice(this.i));
          if (m) this.i += m[0].length;
          return set(CharSet.any());
        }
        // `\e`, `\f`, `\K`, `\X`, `\0`, `\c`...: read as the letter itself, which PCRE does not
        if (/[A-Za-z0-9]/.test(c)) this.exact = false;
        return inClass ? CharSet.of(c.charCodeAt(0)) : this.lit(c.charCodeAt(0), `\\${c}`);
    }
  }

  klass(): CharSet {
    const s = this.src;
    let negated = false;
    if (s[this.i] === '^') {
      negated = true;
      this.i++;
    }
    let set = new CharSet();
    let first = true;
    for (;;) {
      if (this.i >= s.length) this.fail();
      let c = s[this.i];
      if (c === ']' && !first) {
        this.i++;
        break;
      }
      first = false;
      if (c === '[' && s[this.i + 1] === ':') {
        const close = s.indexOf(':]', this.i + 2);
        if (close < 0) this.fail();
        const name = s.slice(this.i + 2, close).replace(/^\^/, '');
        const neg = s[this.i + 2] === '^';
        this.i = close + 2;
        let cls: CharSet;
        switch (name) {
          case 'digit':
            cls = digits();
            break;
          case 'alpha': {
            cls = new CharSet();
            cls.addRange(65, 90);
            cls.addRange(97, 122);
            break;
          }
          case 'alnum': {
            cls = digits();
            cls.addRange(65, 90);
            cls.addRange(97, 122);
            break;
          }
          case 'word':
            cls = word();
            break;
          case 'space':
            cls = space();
            break;
          case 'upper':
            cls = new CharSet();
            cls.addRange(65, 90);
            break;
          case 'lower':
            cls = new CharSet();
            cls.addRange(97, 122);
            break;
          case 'xdigit':
            cls = digits();
            cls.addRange(65, 70);
            cls.addRange(97, 102);
            break;
          case 'punct':
            cls = new CharSet();
            cls.addRange(33, 47);
            cls.addRange(58, 64);
            cls.addRange(91, 96);
            cls.addRange(123, 126);
            break;
          default:
            this.exact = false;
            cls = CharSet.any();
        }
        set = set.union(neg ? cls.invert() : cls);
        continue;
      }
      let lo: number;
      this.i++;
      if (c === '\\') {
        const e = this.escape(true) as CharSet;
        const one = e.single();
        if (one < 0) {
          set = set.union(e);
          continue;
        }
        lo = one;
      } else lo = c.charCodeAt(0);
      if (s[this.i] === '-' && s[this.i + 1] !== ']' && this.i + 1 < s.length) {
        this.i++;
        c = s[this.i++];
        let hi: number;
        if (c === '\\') {
          const e = this.escape(true) as CharSet;
          hi = e.single();
          if (hi < 0) {
            set.add(lo);
            set.add(45);
            set = set.union(e);
            continue;
          }
        } else hi = c.charCodeAt(0);
        if (hi < lo) this.fail();
        set.addRange(lo, hi);
      } else set.add(lo);
    }
    if (this.caseless) {
      for (let c = 65; c <= 90; c++) {
        if (set.has(c)) set.add(c + 32);
        if (set.has(c + 32)) set.add(c);
      }
    }
    return negated ? set.invert() : set;
  }
}

/** Every character a node can match (an upper bound). */
export function charsOf(n: RegexNode): CharSet {
  switch (n.t) {
    case 'set':
      return n.set;
    case 'seq':
      return n.items.reduce((a, b) => a.union(charsOf(b)), new CharSet());
    case 'alt':
      return n.branches.reduce((a, b) => a.union(charsOf(b)), new CharSet());
    case 'group':
      return charsOf(n.body);
    case 'rep':
      return n.max === 0 ? new CharSet() : charsOf(n.body);
    case 'assert':
      return new CharSet();
  }
}

/** Whether a node can match the empty string. */
export function nullable(n: RegexNode): boolean {
  switch (n.t) {
    case 'set':
      return false;
    case 'seq':
      return n.items.every(nullable);
    case 'alt':
      return n.branches.some(nullable);
    case 'group':
      return nullable(n.body);
    case 'rep':
      return n.min === 0 || nullable(n.body);
    case 'assert':
      return true;
  }
}

/** The characters a non-empty match of the node can start with. */
export function firstOf(n: RegexNode): CharSet {
  switch (n.t) {
    case 'set':
      return n.set;
    case 'seq': {
      let acc = new CharSet();
      for (const it of n.items) {
        acc = acc.union(firstOf(it));
        if (!nullable(it)) break;
      }
      return acc;
    }
    case 'alt':
      return n.branches.reduce((a, b) => a.union(firstOf(b)), new CharSet());
    case 'group':
      return firstOf(n.body);
    case 'rep':
      return n.max === 0 ? new CharSet() : firstOf(n.body);
    case 'assert':
      return new CharSet();
  }
}

const cache = new Map<string, ParsedRegex | null>();

/** Reads a pattern (`caseless` for `~*`); undefined when it uses syntax we do not read. */
export function parseRegex(source: string, caseless = false): ParsedRegex | undefined {
  const key = (caseless ? 'i:' : 's:') + source;
  const hit = cache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  let out: ParsedRegex | null = null;
  try {
    const r = new Reader(source, caseless, false);
    const root = r.alt();
    if (r.i !== source.length) r.fail();
    const captures = r.caps
      .map((c) => {
        const f = firstOf(c.node);
        return { index: c.index, name: c.name, chars: charsOf(c.node), startsSlash: !nullable(c.node) && f.single() === SLASH };
      })
      .sort((a, b) => a.index - b.index);
    out = { source, root, captures, caseless: r.caseless, exact: r.exact };
  } catch {
    out = null;
  }
  if (cache.size > 5000) cache.clear();
  cache.set(key, out);
  return out ?? undefined;
}

export const canHoldLf = (s: CharSet): boolean => s.has(LF);
export const canHoldSlash = (s: CharSet): boolean => s.has(SLASH);

/**
 * A repetition that can match the same text in exponentially many ways: an unbounded
 * repetition whose body holds another unbounded repetition that can run on into the next
 * round (`(a+)+`, `(\w+\s?)*`, `(.*,)*`), or alternatives that can start alike (`(a|ab)*`).
 * Returns a short description of the first such part, else undefined.
 */
export function redosRisk(p: ParsedRegex): string | undefined {
  let found: string | undefined;
  const visit = (n: RegexNode): void => {
    if (found) return;
    switch (n.t) {
      case 'seq':
        n.items.forEach(visit);
        return;
      case 'alt':
        n.branches.forEach(visit);
        return;
      case 'group':
        visit(n.body);
        return;
      case 'rep':
        if (n.max === Infinity || n.max > 16) {
          const why = ambiguousBody(n.body);
          if (why) {
            found = why;
            return;
          }
        }
        visit(n.body);
        return;
      default:
        return;
    }
  };
  visit(p.root);
  return found;
}

/** Why one round of a repeated body can be split in several ways, if it can. */
function ambiguousBody(body: RegexNode): string | undefined {
  const first = firstOf(body);
  // unwrap groups
  let b = body;
  while (b.t === 'group') b = b.body;
  if (b.t === 'alt') {
    for (let i = 0; i < b.branches.length; i++) {
      for (let j = i + 1; j < b.branches.length; j++) {
        if (firstOf(b.branches[i]).overlaps(firstOf(b.branches[j]))) return 'alternatives that can match the same text inside a repetition';
      }
    }
  }
  const items = b.t === 'seq' ? b.items : [b];
  for (let k = 0; k < items.length; k++) {
    const inner = unbounded(items[k]);
    if (!inner) continue;
    // what can follow the inner repetition within this round, or (if the rest can be empty) the next round
    let follow = new CharSet();
    let restNullable = true;
    for (let m = k + 1; m < items.length; m++) {
      follow = follow.union(firstOf(items[m]));
      if (!nullable(items[m])) {
        restNullable = false;
        break;
      }
    }
    if (restNullable) follow = follow.union(first);
    if (charsOf(inner).overlaps(follow)) return 'a repetition inside a repetition that can match the same characters';
  }
  return undefined;
}

/** The body of an unbounded repetition at the top of a node (through groups), if any. */
function unbounded(n: RegexNode): RegexNode | undefined {
  while (n.t === 'group') n = n.body;
  if (n.t === 'rep' && (n.max === Infinity || n.max > 16) && !nullable(n.body)) return n.body;
  if (n.t === 'seq' || n.t === 'alt') {
    const list = n.t === 'seq' ? n.items : n.branches;
    for (const it of list) {
      const u = unbounded(it);
      if (u) return u;
    }
  }
  return undefined;
}

/** Whether every way through the pattern starts with `^` (or `\A`). */
export function anchoredStart(n: RegexNode): boolean {
  switch (n.t) {
    case 'assert':
      return n.kind === '^';
    case 'seq':
      for (const it of n.items) {
        if (it.t === 'assert' && it.kind === '^') return true;
        if (it.t === 'group' || it.t === 'alt') return anchoredStart(it);
        if (it.t === 'assert') continue;
        return false;
      }
      return false;
    case 'alt':
      return n.branches.every(anchoredStart);
    case 'group':
      return anchoredStart(n.body);
    default:
      return false;
  }
}

/** Literal `.` written unescaped between name characters (`www.example.com`), as written in the source. */
export function unescapedDots(p: ParsedRegex): boolean {
  let found = false;
  const visit = (n: RegexNode): void => {
    if (found) return;
    if (n.t === 'seq') {
      for (let k = 1; k + 1 < n.items.length; k++) {
        const it = n.items[k];
        if (it.t === 'set' && it.lit === '.' && isNameLit(n.items[k - 1]) && isNameLit(n.items[k + 1])) {
          found = true;
          return;
        }
      }
      n.items.forEach(visit);
    } else if (n.t === 'alt') n.branches.forEach(visit);
    else if (n.t === 'group' || n.t === 'rep') visit(n.body);
  };
  visit(p.root);
  return found;
}

function isNameLit(n: RegexNode): boolean {
  if (n.t !== 'set' || !n.lit || n.lit.length !== 1) return false;
  return /[A-Za-z0-9-]/.test(n.lit);
}

// ---------------------------------------------------------------------------------------------
// Matching without backtracking: the tree compiled to a Thompson NFA, run over the text with the
// set of live states (Pike's simulation), so the time is at most states x characters whatever the
// pattern. A user's pattern is never handed to the JavaScript engine, whose backtracking takes
// exponential time on `(a+)+$` and its kind.

/** States one pattern may compile to (a counted repetition copies its body). */
const MAX_STATES = 20_000;
/** State visits one matches() call may make before it gives up. */
const MAX_STEPS = 2_000_000;

type NfaState =
  | { k: 'set'; set: CharSet; code: number | undefined; next: number }
  | { k: 'split'; a: number; b: number }
  | { k: 'assert'; kind: '^' | '$' | 'b'; next: number }
  | { k: 'match' };

class TooLarge extends Error {}

function compileNfa(root: RegexNode): { states: NfaState[]; start: number } {
  const states: NfaState[] = [{ k: 'match' }];
  const push = (s: NfaState): number => {
    if (states.length >= MAX_STATES) throw new TooLarge();
    states.push(s);
    return states.length - 1;
  };
  // continuation-passing: the state that matches `n` and then goes on to `next`
  const build = (n: RegexNode, next: number): number => {
    switch (n.t) {
      case 'set':
        return push({ k: 'set', set: n.set, code: n.code, next });
      case 'seq': {
        let at = next;
        for (let i = n.items.length - 1; i >= 0; i--) at = build(n.items[i], at);
        return at;
      }
      case 'alt': {
        let at = build(n.branches[n.branches.length - 1], next);
        for (let i = n.branches.length - 2; i >= 0; i--) at = push({ k: 'split', a: build(n.branches[i], next), b: at });
        return at;
      }
      case 'group':
        return build(n.body, next);
      case 'assert':
        if (n.kind === 'look') throw new TooLarge(); // never for an exact tree
        return push({ k: 'assert', kind: n.kind, next });
      case 'rep': {
        let at = next;
        if (n.max === Infinity) {
          // a loop: the split tries the body, whose end comes back to the split
          const loop = push({ k: 'split', a: -1, b: next });
          const body = build(n.body, loop);
          (states[loop] as { a: number }).a = body;
          at = loop;
        } else {
          // the optional rounds nest: x{1,3} = x(x(x)?)?
          for (let i = n.min; i < n.max; i++) at = push({ k: 'split', a: build(n.body, at), b: next });
        }
        for (let i = 0; i < n.min; i++) at = build(n.body, at);
        return at;
      }
    }
  };
  const start = build(root, 0);
  return { states, start };
}

const nfas = new Map<string, { states: NfaState[]; start: number } | null>();

function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * Whether the pattern matches somewhere in `text` (as PCRE's unanchored search does), in time
 * linear in the text; undefined when the tree is not exact or the work would exceed its bounds.
 */
export function matches(p: ParsedRegex, text: string): boolean | undefined {
  if (!p.exact) return undefined;
  const key = (p.caseless ? 'i:' : 's:') + p.source;
  let nfa = nfas.get(key);
  if (nfa === undefined) {
    try {
      nfa = compileNfa(p.root);
    } catch {
      nfa = null;
    }
    if (nfas.size > 500) nfas.clear();
    nfas.set(key, nfa);
  }
  if (!nfa) return undefined;
  const { states, start } = nfa;
  const seen = new Int32Array(states.length).fill(-1);
  let current: number[] = [];
  let following: number[] = [];
  const stack: number[] = [];
  let steps = 0;
  const n = text.length;
  /** Adds `s` and what it reaches without a character, at position `pos`; true when that reaches the match. */
  const add = (list: number[], s0: number, pos: number): boolean => {
    stack.push(s0);
    while (stack.length) {
      const s = stack.pop()!;
      if (seen[s] === pos) continue;
      seen[s] = pos;
      if (++steps > MAX_STEPS) throw new TooLarge();
      const st = states[s];
      switch (st.k) {
        case 'match':
          stack.length = 0;
          return true;
        case 'set':
          list.push(s);
          break;
        case 'split':
          stack.push(st.b, st.a);
          break;
        case 'assert': {
          const ok =
            st.kind === '^'
              ? pos === 0
              : st.kind === '$'
                ? pos === n || (pos === n - 1 && text.charCodeAt(n - 1) === 10)
                : isWordCode(pos > 0 ? text.charCodeAt(pos - 1) : -1) !== isWordCode(pos < n ? text.charCodeAt(pos) : -1);
          if (ok) stack.push(st.next);
          break;
        }
      }
    }
    return false;
  };
  try {
    for (let pos = 0; ; pos++) {
      // an unanchored search: a new attempt starts at every position
      if (add(current, start, pos)) return true;
      if (pos >= n) return false;
      const c = text.charCodeAt(pos);
      following.length = 0;
      for (const s of current) {
        const st = states[s] as Extract<NfaState, { k: 'set' }>;
        const hit = c > 127 && st.code !== undefined ? st.code === c : st.set.has(c);
        if (hit && add(following, st.next, pos + 1)) return true;
      }
      [current, following] = [following, current];
    }
  } catch {
    return undefined;
  }
}

/** A pattern of the JavaScript/PCRE syntax both read alike, tested in linear time (a glob's translation). */
export interface LinearRegExp {
  source: string;
  /** Whether the pattern matches in `text`; false when it cannot be read or run within the bounds. */
  test(text: string): boolean;
}

export function linearRegExp(source: string): LinearRegExp {
  const parsed = parseRegex(source);
  return { source, test: (text) => (parsed ? matches(parsed, text) === true : false) };
}
