// Records which directives each Debian suite's build of a third-party module lacks (packaged
// versions are older than the sources scripts/gen-nginx-modules.mjs reads): probes every nginx of
// the version matrix with its own suite's modules (test/modules/probe.ts) and writes the names
// nginx called unknown into server/src/languages/nginx/data/modules.json as `missingIn` per module and suite.
// test/modules/realBinary.test.ts holds the binaries to these lists.
//   node --import tsx scripts/probe-nginx-modules.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadMatrix } from '../server/src/runner/matrix';
import { installedModules, probeBinary } from '../test/modules/probe';

const OUT = join(__dirname, '..', 'server', 'src', 'nginx', 'data', 'modules.json');

async function main(): Promise<void> {
  const data = JSON.parse(readFileSync(OUT, 'utf8')) as { modules: Record<string, { missingIn?: Record<string, string[]> }> };
  for (const bin of loadMatrix().filter((b) => b.product === 'nginx' && installedModules(b).length)) {
    const r = await probeBinary(bin);
    if (r.mismatches.length) console.error(`${r.binary}: facts the binary contradicts:\n  ${r.mismatches.join('\n  ')}`);
    for (const so of r.modules) {
      const m = data.modules[so];
      if (!m) continue;
      const missing = r.unknownToBuild[so] ?? [];
      if (missing.length) (m.missingIn ??= {})[bin.suite] = missing;
      else if (m.missingIn) delete m.missingIn[bin.suite];
      if (m.missingIn && Object.keys(m.missingIn).length === 0) delete m.missingIn;
    }
    const rows = Object.values(r.checked).reduce((a, b) => a + b, 0);
    console.log(
      `${r.binary}: ${r.modules.length} modules, ${rows} directive rows, ${r.accepted} (directive, context) pairs accepted, ` +
        `wrong context refused ${r.rejections.held}/${r.rejections.checked}, argument counts refused ${r.arity.held}/${r.arity.checked}, ` +
        `${r.mismatches.length} contradictions, ${r.runs} runs; unknown to this build: ${JSON.stringify(r.unknownToBuild)}`,
    );
  }
  writeFileSync(OUT, `${JSON.stringify(data, null, 1)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
