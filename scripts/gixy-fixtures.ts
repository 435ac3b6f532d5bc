// Runs our rules on gixy's plugin test configs (tests/plugins/simply/<plugin>/*.conf of a gixy
// checkout, NOT part of this repository: fetch it yourself) and compares with gixy's own
// expectation, which its file names carry (`*_fp.conf`: the plugin must stay quiet; any other
// `.conf`: it must fire). Prints per plugin: agreed / total, and every disagreement.
//   node --import tsx scripts/gixy-fixtures.ts /path/to/gixy/tests/plugins/simply
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseNginx } from '../server/src/languages/nginx/parser';
import { nginxTuning } from '../server/src/service/tuning';

/** gixy plugin → the rule of ours that covers it. */
const RULE: Record<string, string> = {
  ssrf: 'nginx/ssrf-proxy-pass',
  http_splitting: 'nginx/header-injection',
  host_spoofing: 'nginx/host-spoofing',
  origins: 'nginx/origin-regex',
  valid_referers: 'nginx/valid-referers-none',
  add_header_multiline: 'nginx/add-header-multiline',
  add_header_content_type: 'nginx/add-header-content-type',
  add_header_redefinition: 'nginx/add-header-inheritance',
  allow_without_deny: 'nginx/allow-without-deny',
  resolver_external: 'nginx/resolver-external',
  alias_traversal: 'nginx/alias-traversal',
  if_is_evil: 'nginx/if-in-location',
  version_disclosure: 'nginx/server-tokens-on',
  regex_redos: 'nginx/regex-redos',
  return_bypasses_allow_deny: 'nginx/return-bypasses-access',
  status_page_exposed: 'nginx/stub-status-open',
  weak_ssl_tls: 'nginx/ssl-ciphers-weak',
};

const root = process.argv[2];
if (!root || !existsSync(root)) {
  console.error('usage: gixy-fixtures.ts <gixy>/tests/plugins/simply');
  process.exit(2);
}
let agreeAll = 0;
let totalAll = 0;
for (const plugin of readdirSync(root).sort()) {
  const rule = RULE[plugin];
  const dir = join(root, plugin);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.conf'))
    .sort();
  if (!rule) {
    console.log(`${plugin.padEnd(26)} (no rule of ours) ${files.length} configs`);
    continue;
  }
  let agree = 0;
  const diffs: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const doc = TextDocument.create(`file:///${f}`, 'nginx', 1, text);
    const found = nginxTuning(doc, parseNginx(text), {}).filter((d) => d.code === rule);
    const expected = !f.endsWith('_fp.conf');
    if (expected === found.length > 0) agree++;
    else
      diffs.push(
        `    ${f}: gixy expects ${expected ? 'a finding' : 'none'}, we report ${found.length ? found.map((d) => `line ${d.range.start.line + 1}`).join(', ') : 'none'}`,
      );
  }
  agreeAll += agree;
  totalAll += files.length;
  console.log(`${plugin.padEnd(26)} ${rule.padEnd(32)} ${agree}/${files.length} agree`);
  for (const d of diffs) console.log(d);
}
console.log(`total: ${agreeAll}/${totalAll} agree`);
