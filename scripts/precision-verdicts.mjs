#!/usr/bin/env node
// Judges the precision corpus (test/precision/corpus, see its manifest.json) with every binary of
// the version matrix (.matrix/binaries.json) and writes test/precision/corpus/verdicts.tsv:
//
//   node scripts/precision-verdicts.mjs [--files a,b,...]
//
// The environment is stubbed as scripts/corpus-verdicts.mjs does for the shared corpus: nginx
// fragments are wrapped in their manifest `context` on the file's first line, the binary's own
// stock files (fastcgi_params, mime.types, snippets/) are copied into a throw-away prefix, a file
// the binary cannot open (certificate, include, map, error page) is made as a stub, a host it
// cannot resolve is given 127.0.0.1 in a private /etc/hosts (bwrap) and a user it lacks becomes
// root. What is still refused is an error: `genuine` unless its message is the environment's.
// Nothing listens: `nginx -t` and `haproxy -c` only parse. Every check has a 20 s timeout.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, firstError, loadBinaries, missingFile, prepare, stubCert, stubFor } from './corpus-verdicts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpusDir = join(root, 'test/precision/corpus');
const argv = process.argv.slice(2);
const onlyFiles = argv.indexOf('--files') >= 0 ? argv[argv.indexOf('--files') + 1].split(',') : undefined;

const replaceAll = (text, from, to) => text.split(from).join(to);
const ENV_ERROR =
  /does not support the QUIC|unknown service name|Lua file|'lua\.|host not found|No such file or directory|getpwnam|getgrnam|dlopen|cannot load certificate|BIO_new|PEM_read|SSL_CTX_use|unable to load|could not resolve|Cannot create|cannot open|unable to stat|Permission denied|is already loaded|unable to find CA file|failed to load|unknown directive "(lua|content_by_lua|access_by_lua|set_by_lua|rewrite_by_lua|init_by_lua|header_filter_by_lua|body_filter_by_lua|log_by_lua|auth_jwt|more_|upload_progress|track_uploads|report_uploads|brotli|pagespeed|vhost_traffic_status|geoip2|modsecurity|push_stream|rtmp|njs|js_|perl)/i;

let dhCache;
/** DH parameters of 2048 bits (current OpenSSL builds refuse the 1024 of the shared corpus's stubs), with the stub certificate. */
function dhStub(work) {
  if (dhCache === undefined) {
    try {
      dhCache = execFileSync('openssl', ['dhparam', '-dsaparam', '2048'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      dhCache = '';
    }
  }
  return stubCert(work).combined + dhCache;
}

/** A host the binary could not resolve, from its error message. */
function missingHost(lang, message) {
  const m =
    lang === 'nginx'
      ? /host not found in (?:upstream|resolver|"[^"]*" of the "[^"]*" directive)? ?"([^":/\s]+)(?::\d+)?[^"]*"/.exec(message)
      : /could not resolve address '([^']+)'|unable to resolve (?:server )?address? ?'?([^'\s:]+)|invalid address: '([^':]+)/.exec(message);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

async function judgeOne(row, bin, work) {
  const prefix = mkdtempSync(join(work, 'p-'));
  try {
    mkdirSync(join(prefix, 'logs'), { recursive: true });
    const text = readFileSync(join(corpusDir, row.language, row.file), 'utf8');
    const prepared = prepare(row.language, { env_fixes: '', context: row.context ?? 'main' }, text, prefix, bin, work);
    let conf = prepared.text;
    const hosts = [...prepared.hosts];
    const stubs = [];
    const confPath = join(prefix, row.file);
    mkdirSync(dirname(confPath), { recursive: true });
    if (row.language === 'nginx') {
      // nginx reads a relative include from the folder of the file it was given (its conf folder):
      // the binary's stock files (fastcgi_params, mime.types, snippets/) go there
      for (const f of readdirSync(bin.confDir)) {
        const src = join(bin.confDir, f);
        const dst = join(dirname(confPath), f);
        if (!existsSync(dst) && (statSync(src).isFile() || f === 'snippets')) cpSync(src, dst, { recursive: true });
      }
    }
    for (let round = 0; ; round++) {
      writeFileSync(confPath, conf);
      const r = await check(row.language, bin, confPath, prefix, hosts);
      const ok = r.code === 0 || (row.language === 'haproxy' && r.code === 2 && !/\[ALERT\]/.test(r.out));
      if (ok) return { verdict: 'ok', cls: 'ok', line: '', message: '', stubs };
      const err = firstError(row.language, r.out, row.file, prefix);
      const message = err.message.replace(/%PREFIX%/g, prefix).replace(/%FILE%/g, row.file);
      // a fragment naming an upstream or a variable that the files including it define
      // a fragment naming an upstream or a variable that the files including it define; an environment
      // variable the deployment sets ($FRONTEND_PORT); an address this machine lacks (bind EINVAL/EADDRNOTAVAIL)
      const elsewhere =
        (row.context && row.context !== 'main' && /^(no port in upstream|unknown ".*" variable)/.test(err.message)) ||
        /'[^']*\$[A-Z_]+[^']*'|bind\(\) to .* failed \((22|99):/.test(err.message);
      const done = () => ({
        verdict: 'error',
        cls:
          elsewhere || /is unsupported on this platform/.test(err.message)
            ? 'env'
            : ENV_ERROR.test(err.message) &&
                !/invalid parameter|invalid number|not allowed|unknown directive "(?!lua|more_|upload|track|report|brotli|auth_jwt|content_by|access_by|set_by|rewrite_by|init_by|header_filter|body_filter|log_by|pagespeed|vhost|geoip2|modsec|push|rtmp|njs|js_|perl)/.test(
                  err.message,
                )
              ? 'env'
              : 'genuine',
        line: err.line || '',
        message: err.message,
        stubs,
      });
      if (round >= 16) return done();
      const host = missingHost(row.language, message);
      if (host && !hosts.includes(host)) {
        hosts.push(host);
        stubs.push(`host:${host}`);
        continue;
      }
      const user = /getpwnam\("([^"]+)"\)|getgrnam\("([^"]+)"\)|cannot find user id for '([^']+)'|cannot find group id for '([^']+)'/.exec(
        message,
      );
      if (user) {
        const name = user[1] ?? user[2] ?? user[3] ?? user[4];
        const before = conf;
        conf = conf.replace(new RegExp(`(^|\\n)(\\s*(?:user|group)\\s+)${name}\\b`, 'g'), '$1$2root');
        if (conf !== before) {
          stubs.push(`user:${name}`);
          continue;
        }
        return done();
      }
      // a log on /dev/stdout: under the test's socket pair it cannot open (ENXIO), in a container it can
      const dev = /open\(\) "(\/dev\/std(?:out|err))" failed \(6:/.exec(message);
      if (dev && conf.includes(dev[1])) {
        conf = replaceAll(conf, dev[1], join(prefix, 'logs', dev[1].slice(5)));
        stubs.push(`file:${dev[1]}`);
        continue;
      }
      const dir = /mkdir\(\) "([^"]+)" failed \(2:/.exec(message);
      let raw = dir ? dir[1] : missingFile(row.language, message);
      raw ??= /cannot load certificate key "([^"]+)"/.exec(message)?.[1];
      if (!raw) return done();
      let path = raw.startsWith('/') ? raw : join(prefix, raw);
      if (!path.startsWith(prefix + '/')) {
        let from = path;
        while (from.length > 1 && !conf.includes(from)) from = dirname(from);
        if (from.length <= 1) return done();
        const to = join(prefix, 'stub', from);
        conf = replaceAll(conf, from, to);
        path = to + path.slice(from.length);
      }
      if (existsSync(path) && stubs.includes(`file:${raw}`)) {
        // a certificate folder (HAProxy `crt DIR`): a folder holding one stub certificate
        if (statSync(path).isDirectory() || !/unable to load certificate/.test(message) || stubs.includes(`dir:${raw}`)) return done();
        rmSync(path);
        mkdirSync(path, { recursive: true });
        writeFileSync(join(path, 'stub.pem'), stubFor(join(path, 'stub.pem'), work));
        stubs.push(`dir:${raw}`);
        continue;
      }
      mkdirSync(dirname(path), { recursive: true });
      if (dir) mkdirSync(path, { recursive: true });
      // an nginx include (params, types, a .conf of the same project) is an empty file, not a certificate
      else
        writeFileSync(
          path,
          row.language === 'nginx' && /^open\(\)/.test(message) && !/\.(pem|crt|cert|key)$/.test(path)
            ? ''
            : /dh|param/.test(path.split('/').pop().toLowerCase())
              ? dhStub(work)
              : stubFor(path, work),
        );
      stubs.push(`file:${raw}`);
    }
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

async function main() {
  const bins = loadBinaries();
  if (!bins.length) throw new Error('no matrix binaries (.matrix/binaries.json): run scripts/provision-matrix.sh');
  const manifest = JSON.parse(readFileSync(join(corpusDir, 'manifest.json'), 'utf8'));
  const rows = manifest.files.filter((r) => !onlyFiles || onlyFiles.includes(r.file));
  const work = mkdtempSync(join(tmpdir(), 'precision-verdicts-'));
  writeFileSync(join(work, 'stub-cert.pem'), stubCert(work).combined);
  const jobs = rows.flatMap((row) => bins.filter((b) => b.product === row.language).map((bin) => ({ row, bin })));
  const out = [];
  let next = 0;
  async function worker() {
    while (next < jobs.length) {
      const { row, bin } = jobs[next++];
      const r = await judgeOne(row, bin, work);
      out.push({
        product: row.language,
        version: bin.version,
        file: row.file,
        verdict: r.verdict,
        class: r.cls,
        line: r.line,
        message: r.message,
        stubs: r.stubs.map((x) => x.replace(/\/tmp\/precision-verdicts-[^/]+\/p-[^/]+\//, '%PREFIX%/')).join(' ; '),
      });
    }
  }
  try {
    await Promise.all([worker(), worker()]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const file = join(corpusDir, 'verdicts.tsv');
  let keep = [];
  if (onlyFiles && existsSync(file)) {
    keep = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(2)
      .filter((l) => !onlyFiles.includes(l.split('\t')[2]));
  }
  const head = ['product', 'version', 'file', 'verdict', 'class', 'line', 'message', 'stubs'];
  const body = [...keep, ...out.map((r) => head.map((k) => String(r[k]).replace(/[\t\n]/g, ' ')).join('\t'))].sort();
  writeFileSync(
    file,
    `# GENERATED by scripts/precision-verdicts.mjs with the matrix binaries; do not edit\n${head.join('\t')}\n${body.join('\n')}\n`,
  );
  const sum = {};
  for (const l of body) {
    const [p, v, , , c] = l.split('\t');
    sum[`${p} ${v}`] ??= { ok: 0, genuine: 0, env: 0 };
    sum[`${p} ${v}`][c]++;
  }
  for (const [k, v] of Object.entries(sum)) console.log(`${k}: ${v.ok} ok, ${v.genuine} genuine, ${v.env} env`);
}

main().catch((e) => {
  console.error(`precision-verdicts: ${e.message}`);
  process.exit(1);
});
