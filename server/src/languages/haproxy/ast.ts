// The HAProxy syntax tree: a file is a list of sections, a section a list of statement lines.
// HAProxy reads its configuration line by line, so the tree is flat and every node carries
// offsets (`start`, `end`, end exclusive) into the original text. Other parts of the project
// (tuning rules, the benchmark sandbox, the LSP adapter) build on these types: keep them stable
// and only add optional fields.

export interface Span {
  /** Offset of the first character. */
  start: number;
  /** Offset just past the last character. */
  end: number;
}

/** One word of a line as HAProxy splits it (quotes and escapes may join several pieces). */
export interface Word extends Span {
  /** The text as written, quotes and backslashes included. */
  raw: string;
  /** The text HAProxy sees: quotes removed, escapes resolved, `${VAR}` kept as written. */
  value: string;
  /** Whether any part of the word was quoted (a quoted `if` is not a condition keyword). */
  quoted: boolean;
  /** Names of the environment variables the word expands (`"${NAME}"`, inside double quotes). */
  envVars?: string[];
  /** A quote that was opened and never closed. */
  unterminated?: boolean;
}

export interface Comment extends Span {
  /** The text after `#`. */
  text: string;
}

export interface SyntaxIssue extends Span {
  message: string;
}

/** A converter applied to a sample: `,lower`, `,map(file.map,default)`. */
export interface SampleConverter extends Span {
  name: string;
  args: string[];
  nameEnd: number;
}

/** A sample expression: a fetch and its converters, e.g. `req.hdr(host),lower`. */
export interface SampleExpr extends Span {
  fetch: string;
  /** End offset of the fetch name (before any `(`). */
  fetchEnd: number;
  args: string[];
  converters: SampleConverter[];
  /** Whether a parenthesis was left open. */
  unclosed?: boolean;
  /** What is wrong with the expression's shape (e.g. text after a closing parenthesis). */
  malformed?: string;
}

/** One term of a condition: `name`, `!name`, `{ fetch flags values }`, `!{ ... }`. */
export interface CondTerm extends Span {
  negated: boolean;
  kind: 'acl' | 'anonymous';
  /** For `kind: 'acl'`: the ACL's name (without `!`). */
  name?: string;
  /** The word that names the ACL (for `kind: 'acl'`). */
  nameWord?: Word;
  /** For `kind: 'anonymous'`: the words between the braces. */
  words?: Word[];
  /** For `kind: 'anonymous'`: the sample expression (first word between the braces). */
  sample?: SampleExpr;
  /** For `kind: 'anonymous'`: whether the closing brace is missing. */
  unclosed?: boolean;
}

/** `if`/`unless` followed by terms; ANDed terms are grouped, groups are ORed (`||`, `or`). */
export interface Condition extends Span {
  keyword: 'if' | 'unless';
  keywordWord: Word;
  /** Disjunction of conjunctions: `a b || c` is [[a, b], [c]]. */
  groups: CondTerm[][];
  /** All terms in order (flattened groups). */
  terms: CondTerm[];
  /** The words of the condition, `if`/`unless` included. */
  words: Word[];
}

/** An `acl NAME CRITERION [flags] [operator] VALUES...` declaration. */
export interface AclDecl {
  name: Word;
  criterion?: Word;
  sample?: SampleExpr;
  /** Words after the criterion (flags, operator, values). */
  rest: Word[];
}

export interface Statement extends Span {
  type: 'statement';
  /** 0-based line number. */
  line: number;
  /** A leading `no` or `default` (as in `no option httplog`, `default-server` is a keyword). */
  prefix?: Word;
  /** The keyword word (first word after any prefix); undefined only for an empty `no` line. */
  keyword?: Word;
  /** For keyword families (`option`, `timeout`, `http-request`, `tcp-request`, `stats`, ...): the second word. */
  sub?: Word;
  /** Words after the keyword (the sub-keyword included), up to a condition. */
  args: Word[];
  /** Every word of the line in order. */
  words: Word[];
  condition?: Condition;
  /** For `acl` lines. */
  acl?: AclDecl;
  /** Sample expressions found on the line: ACL criteria, anonymous ACLs, `%[...]` in log-format words, sample arguments. */
  samples: SampleExpr[];
  comment?: Comment;
  /** Whether this line was skipped by a false `.if` block (filled by validation, not the parser). */
  disabled?: boolean;
}

export interface Section extends Span {
  type: 'section';
  /** `global`, `defaults`, `frontend`, `backend`, `listen`, `resolvers`, `peers`, ... */
  keyword: string;
  /** The header line as a statement (its keyword is the section keyword). */
  header: Statement;
  /** The section's name, when given (`frontend web`); `defaults` may be named too. */
  name?: Word;
  headerStart: number;
  headerEnd: number;
  bodyStart: number;
  bodyEnd: number;
  statements: Statement[];
  /** Comments inside the body. */
  comments: Comment[];
}

export interface HaproxyFile {
  type: 'file';
  text: string;
  sections: Section[];
  /** Statements before the first section (HAProxy rejects them, except `.if`-family lines). */
  orphans: Statement[];
  comments: Comment[];
  errors: SyntaxIssue[];
  /** Offsets at which each line starts. */
  lineStarts: number[];
}

export type AstNode = HaproxyFile | Section | Statement;

/** The words that open a section, with the HAProxy version that introduced each. */
export const SECTION_KEYWORDS: Readonly<Record<string, string | undefined>> = {
  global: undefined,
  defaults: undefined,
  frontend: undefined,
  backend: undefined,
  listen: undefined,
  resolvers: undefined,
  peers: undefined,
  userlist: undefined,
  mailers: undefined,
  program: '1.9',
  'http-errors': '2.2',
  ring: '2.2',
  cache: '1.8',
  'log-forward': '2.3',
  'fcgi-app': '2.1',
  'crt-store': '3.0',
  traces: '3.1',
  acme: '3.2',
  'log-profile': '3.1',
  healthcheck: '3.4',
};

/** Keywords whose second word selects the behaviour (`option httplog`, `timeout client`, ...). */
export const KEYWORD_FAMILIES: ReadonlySet<string> = new Set([
  'option',
  'timeout',
  'stats',
  'http-request',
  'http-response',
  'http-after-response',
  'tcp-request',
  'tcp-response',
  'http-check',
  'tcp-check',
  'compression',
  'capture',
  'stick',
  'email-alert',
  'quic-initial',
  'http-error',
]);

/** Keywords after which `if`/`unless` starts a condition. */
export const CONDITION_KEYWORDS: ReadonlySet<string> = new Set([
  'http-request',
  'http-response',
  'http-after-response',
  'tcp-request',
  'tcp-response',
  'use_backend',
  'use-server',
  'redirect',
  'block',
  'stick',
  'force-persist',
  'ignore-persist',
  'monitor',
  'stats',
  'quic-initial',
  'use-fcgi-app',
  'errorloc',
  'reqadd',
  'rspadd',
]);

/** Calls `visit` on the file, each section, each statement (orphans first); `false` skips children. */
export function walk(file: HaproxyFile, visit: (node: AstNode, parent: AstNode | undefined) => boolean | void): void {
  if (visit(file, undefined) === false) return;
  for (const st of file.orphans) visit(st, file);
  for (const sec of file.sections) {
    if (visit(sec, file) === false) continue;
    visit(sec.header, sec);
    for (const st of sec.statements) visit(st, sec);
  }
}

/** Every statement in file order (orphans, then each section's header is NOT included). */
export function allStatements(file: HaproxyFile): Statement[] {
  const out = [...file.orphans];
  for (const sec of file.sections) out.push(...sec.statements);
  return out;
}

export interface NodeAt {
  /** The section whose header or body holds the offset. */
  section?: Section;
  /** Index in `file.sections` of the last section whose header starts at or before the offset (-1: none). */
  sectionIndex: number;
  /** The statement on the offset's line, when that line has one (a section header counts). */
  statement?: Statement;
  /** Whether the statement is the section header. */
  inHeader?: boolean;
  /** The word under the offset (touching its start or end counts). */
  word?: Word;
  /** Index of `word` in `statement.words`. */
  wordIndex?: number;
  /** The condition holding the offset, if any. */
  condition?: Condition;
  /** The condition term holding the offset, if any. */
  term?: CondTerm;
  /** The sample expression holding the offset, if any. */
  sample?: SampleExpr;
  /** The comment holding the offset, if any. */
  comment?: Comment;
}

function within(s: Span, offset: number): boolean {
  return offset >= s.start && offset <= s.end;
}

/** 0-based line of an offset. */
export function lineOf(file: HaproxyFile, offset: number): number {
  const ls = file.lineStarts;
  let lo = 0;
  let hi = ls.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ls[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Last index in `list` whose key is <= `value` (lists in file order), -1 when none. */
function lastAtOrBefore<T>(list: readonly T[], key: (x: T) => number, value: number): number {
  let lo = 0;
  let hi = list.length - 1;
  let idx = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]) <= value) {
      idx = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return idx;
}

const headerStartOf = (s: Section) => s.headerStart;
const lineOfStatement = (s: Statement) => s.line;
const startOf = (c: Comment) => c.start;

/** The first statement of `list` (in line order) on `line`. */
function statementOnLine(list: readonly Statement[], line: number): Statement | undefined {
  let j = lastAtOrBefore(list, lineOfStatement, line);
  while (j > 0 && list[j - 1].line === line) j--;
  return j >= 0 && list[j].line === line ? list[j] : undefined;
}

/**
 * The innermost nodes at an offset. Never throws; an offset outside the text gives no nodes.
 * Sections, statements and comments are found by binary search (they are in file order): a
 * request (hover, completion) costs about one line, not the file.
 */
export function findNodeAt(file: HaproxyFile, offset: number): NodeAt {
  const line = lineOf(file, offset);
  const sectionIndex = lastAtOrBefore(file.sections, headerStartOf, offset);
  const out: NodeAt = { sectionIndex };
  // a comment holds the offsets after its `#` up to its end; at most one per line
  const ci = lastAtOrBefore(file.comments, startOf, offset - 1);
  if (ci >= 0 && offset > file.comments[ci].start && offset <= file.comments[ci].end) out.comment = file.comments[ci];
  const section = sectionIndex >= 0 ? file.sections[sectionIndex] : undefined;
  if (section && offset <= section.bodyEnd) out.section = section;
  const statement = section
    ? section.header.line === line
      ? section.header
      : statementOnLine(section.statements, line)
    : statementOnLine(file.orphans, line);
  if (!statement) return out;
  out.statement = statement;
  out.inHeader = !!section && statement === section.header;
  const words = statement.words;
  for (let i = 0; i < words.length; i++) {
    if (within(words[i], offset)) {
      out.word = words[i];
      out.wordIndex = i;
    }
  }
  const cond = statement.condition;
  if (cond && offset >= cond.start && offset <= cond.end) {
    out.condition = cond;
    for (const t of cond.terms) if (within(t, offset)) out.term = t;
  }
  for (const s of statement.samples) if (within(s, offset)) out.sample = s;
  return out;
}

/** The statement's lookup name: `option httplog`, `timeout client`, `bind`, `http-request`. */
export function keywordName(st: Statement): string {
  const k = st.keyword?.value ?? '';
  if ((k === 'option' || k === 'timeout') && st.sub) return `${k} ${st.sub.value}`;
  return k;
}

/** An address the configuration listens on or connects to, for tools that rewrite them (the benchmark sandbox). */
export interface AddressRef {
  /** `listen`: a local address HAProxy binds; `connect`: an address HAProxy connects to. */
  role: 'listen' | 'connect';
  section: Section;
  statement: Statement;
  /** The address word (for `bind`, a comma-separated list is one word). */
  word: Word;
}

const LISTEN_KEYWORDS = new Set(['bind', 'dgram-bind']);
const CONNECT_KEYWORDS: Record<string, number> = { server: 1, 'server-template': 2, peer: 1, nameserver: 1, mailer: 1 };

/** Every `bind`/`dgram-bind` address and every `server`/`server-template`/`peer`/`nameserver`/`mailer` address. */
export function addressesOf(file: HaproxyFile): AddressRef[] {
  const out: AddressRef[] = [];
  for (const section of file.sections) {
    for (const statement of section.statements) {
      const k = statement.keyword?.value;
      if (!k || statement.prefix) continue;
      if (LISTEN_KEYWORDS.has(k) && statement.args[0]) out.push({ role: 'listen', section, statement, word: statement.args[0] });
      else if (k in CONNECT_KEYWORDS && statement.args[CONNECT_KEYWORDS[k]])
        out.push({ role: 'connect', section, statement, word: statement.args[CONNECT_KEYWORDS[k]] });
    }
  }
  return out;
}
