// The README is also the packaged extension's page: every relative link or image in it must name
// a file that exists and that the .vsix ships (.vscodeignore's "!" lines), since the package keeps
// relative links as they are (scripts/package.mjs); and nothing in the manifest points at a
// placeholder host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');

/** .vscodeignore's allow list ("!" lines) as regular expressions over repository paths. */
function shipped(): RegExp[] {
  return readFileSync(join(REPO, '.vscodeignore'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('!'))
    .map((l) => {
      const glob = l.slice(1).trim();
      const re = glob
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*/g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\u0000/g, '.*');
      return new RegExp(`^${re}$`);
    });
}

test("the README's relative links name files the package ships", () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const allow = shipped();
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^(https?:|mailto:|#)/.test(l));
  assert.ok(links.length > 3, links.join(', '));
  const bad: string[] = [];
  for (const link of links) {
    const path = decodeURI(link.replace(/#.*$/, '')).replace(/\/$/, '');
    if (!existsSync(join(REPO, path))) bad.push(`${link}: no such file`);
    else if (!allow.some((re) => re.test(path) || re.test(`${path}/x`))) bad.push(`${link}: not shipped (.vscodeignore)`);
  }
  assert.deepEqual(bad, []);
});

test('the manifest names no placeholder host', () => {
  assert.doesNotMatch(readFileSync(join(REPO, 'package.json'), 'utf8'), /example\.invalid/);
  assert.doesNotMatch(readFileSync(join(REPO, 'README.md'), 'utf8'), /example\.invalid/);
});
