// The extension's package as a listing shows it (issue 37): `vsce ls` names only what the
// installed extension runs or shows, and everything package.json points at (icon, entries,
// walkthrough media, README images) is in it.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './build';

const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^dist\/(extension|server|loadWorker|webview|browserExtension|browserServer)\.js$/,
  /^dist\/webview\.css$/,
  /^syntaxes\/[\w.-]+\.json$/,
  /^snippets\/[\w-]+\.json$/,
  /^schemas\/[\w.-]+\.json$/,
  /^media\/[\w./-]+\.(png|md|conf|cfg)$/,
  // what the README links to, so its links work inside the installed extension
  /^docs\/[\w-]+\.md$/,
  /^examples\/[\w./-]+\.(md|conf|cfg|json)$/,
];

describe('the .vsix file list (vsce ls)', { timeout: 120_000 }, () => {
  let files: string[];
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));

  before(() => {
    const r = spawnSync(process.execPath, [join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 100_000,
    });
    assert.equal(r.status, 0, r.stderr);
    files = r.stdout.split('\n').filter(Boolean);
  });

  it('holds no stray file', () => {
    assert.deepEqual(
      files.filter((f) => !ALLOWED.some((re) => re.test(f))),
      [],
    );
    assert.deepEqual(
      files.filter((f) => f.endsWith('.map') || f.endsWith('.vsix') || f.endsWith('.tgz')),
      [],
    );
  });

  it('holds what package.json points at: entries, icon, walkthrough media', () => {
    const wanted = [pkg.main, pkg.browser, pkg.icon, 'CHANGELOG.md'];
    for (const w of pkg.contributes.walkthroughs ?? []) for (const step of w.steps) wanted.push(step.media.markdown ?? step.media.image);
    for (const w of wanted.filter(Boolean)) {
      const rel = w.replace(/^\.\//, '');
      assert.ok(files.includes(rel), `${rel} is not in the package`);
      assert.ok(existsSync(join(REPO, rel)), `${rel} does not exist`);
    }
  });

  it('has a PNG icon of at least 128 x 128 and a gallery banner', () => {
    const png = readFileSync(join(REPO, pkg.icon));
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.ok(png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128);
    assert.match(pkg.galleryBanner.color, /^#[0-9a-f]{6}$/i);
  });

  it('ships every image the README shows', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g), ...readme.matchAll(/<img[^>]+src="([^"]+)"/g)].map((m) => m[1]);
    for (const img of images) {
      assert.ok(!/^https?:/.test(img), `${img}: a README image from the network does not show offline`);
      assert.ok(files.includes(img.replace(/^\.\//, '')), `${img} is not in the package`);
    }
  });
});
