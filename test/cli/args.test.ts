// The small option parser shared by `check` and `bench`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs, UsageError, type FlagSpec } from '../../cli/src/args';

const SPEC: Record<string, FlagSpec> = {
  format: { value: true, choices: ['text', 'json'] },
  'nginx-version': { value: true },
  fix: { value: false },
  help: { value: false, aliases: ['-h'] },
};

describe('parseArgs', () => {
  it('reads values in both spellings, switches, aliases and positionals in any order', () => {
    const r = parseArgs(['a.conf', '--format', 'json', '--nginx-version=1.22.1', '-h', '--fix', 'b.cfg'], SPEC);
    assert.deepEqual(Object.fromEntries(r.flags), { format: 'json', 'nginx-version': '1.22.1', help: true, fix: true });
    assert.deepEqual(r.positionals, ['a.conf', 'b.cfg']);
  });

  it('takes everything after -- as positionals, and - as a positional', () => {
    const r = parseArgs(['--fix', '--', '--format', '-x.conf'], SPEC);
    assert.deepEqual(r.positionals, ['--format', '-x.conf']);
    assert.deepEqual(parseArgs(['-'], SPEC).positionals, ['-']);
  });

  it('rejects unknown options, missing or empty values, values for switches, values outside the choices', () => {
    for (const [argv, message] of [
      [['--nope'], /unknown option '--nope'/],
      [['-x'], /unknown option '-x'/],
      [['--format'], /needs a value/],
      [['--nginx-version='], /needs a value/],
      [['--fix=1'], /takes no value/],
      [['--format', 'xml'], /must be one of text, json \(got 'xml'\)/],
    ] as const) {
      assert.throws(
        () => parseArgs(argv, SPEC),
        (err: unknown) => err instanceof UsageError && message.test(err.message),
      );
    }
  });
});
