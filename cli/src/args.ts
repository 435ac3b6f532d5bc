// A small command-line parser: long flags (`--name value`, `--name=value`), boolean flags,
// `--` to end the options, and positionals. Unknown flags and missing values are usage errors
// (the caller turns them into exit code 2).

export interface FlagSpec {
  /** Whether the flag takes a value (`--format json`) or is a switch (`--fix`). */
  value: boolean;
  /** Allowed values, when the set is closed. */
  choices?: readonly string[];
  /** Other spellings, e.g. `-h` for `--help`. */
  aliases?: readonly string[];
  /** The flag may be given several times (`--fix-rule A --fix-rule B`): every value is kept in `lists`. */
  repeat?: boolean;
}

export interface ParsedArgs {
  flags: Map<string, string | true>;
  positionals: string[];
  /** Every value of a repeatable flag, in order (the last one is also in `flags`). */
  lists: Map<string, string[]>;
}

export class UsageError extends Error {}

export function parseArgs(argv: readonly string[], spec: Record<string, FlagSpec>): ParsedArgs {
  const byName = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) {
    byName.set(`--${name}`, name);
    for (const a of s.aliases ?? []) byName.set(a, name);
  }
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  const lists = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const key = eq >= 0 ? arg.slice(0, eq) : arg;
    const name = byName.get(key);
    if (!name) throw new UsageError(`unknown option '${key}'`);
    const s = spec[name];
    if (!s.value) {
      if (eq >= 0) throw new UsageError(`option '${key}' takes no value`);
      flags.set(name, true);
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    if (value === undefined || value === '') throw new UsageError(`option '${key}' needs a value`);
    if (s.choices && !s.choices.includes(value)) {
      throw new UsageError(`option '${key}' must be one of ${s.choices.join(', ')} (got '${value}')`);
    }
    flags.set(name, value);
    if (s.repeat) lists.set(name, [...(lists.get(name) ?? []), value]);
  }
  return { flags, positionals, lists };
}
