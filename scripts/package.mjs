// `npm run package`: production build, then `vsce package` into dist/proxy-tuner-<version>.vsix.
// Works offline: every runtime dependency is bundled by esbuild, so the .vsix carries no
// node_modules (`--no-dependencies`) and .vscodeignore lets only the bundles, the grammars, the
// manifest, README, LICENSE and the docs and examples the README links to through.
//
// Prints the path of the .vsix on the last line of stdout (scripts/e2e-* read it).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, 'dist', `${pkg.name}-${pkg.version}.vsix`);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', process.stderr, 'inherit'] });
  if (r.status !== 0) {
    process.stderr.write(`package: ${cmd} ${args.join(' ')} failed (exit ${r.status})\n`);
    process.exit(r.status ?? 1);
  }
}

const started = Date.now();
run(process.execPath, ['esbuild.mjs', '--production']);
for (const bundle of ['extension.js', 'server.js']) {
  if (!existsSync(join(root, 'dist', bundle))) {
    process.stderr.write(`package: dist/${bundle} was not built\n`);
    process.exit(1);
  }
}
rmSync(out, { force: true });
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
// The README links to files the package ships (media/, docs/, examples/) relatively: they are
// kept as they are, so they resolve inside the installed extension (no repository URL needed).
run(process.execPath, [vsce, 'package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out]);

const size = statSync(out).size;
process.stderr.write(
  `package: ${relative(root, out)} ${(size / 1024).toFixed(0)} KiB in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
process.stdout.write(`${out}\n`);
