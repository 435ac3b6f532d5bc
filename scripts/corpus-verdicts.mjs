#!/usr/bin/env node
// Judges the shared corpus (../shared/corpus or $PROXY_TUNER_CORPUS; see its README.md) with
// every binary of the version matrix (.matrix/binaries.json) and writes the verdict table
// test/corpus/verdicts-by-version.tsv, which the corpus tests read:
//
//   node scripts/corpus-verdicts.mjs [--out FILE] [--only nginx|haproxy] [--files a,b,...]
//
// Each file is checked as it is, with the corpus's environment fixes (stub certificates and
// files, hosts, users, module files, statements of other builds) re-applied in a throw-away
// prefix, but NOT its `newer-version` fixes: a statement that one version lacks is that
// version's genuine error, and the linter judging at that version must report it. nginx
// fragments are wrapped in their `context` column's context on the file's first line, so the
// binary's line numbers are the file's. Every binary loads the matrix's own Debian modules
// (stream, mail, geoip, image-filter, xslt) from its own root. Nothing listens: `nginx -t` and
// `haproxy -c` only parse. Bounded: every check has a 20 s timeout.
import { spawn, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (n) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : undefined);
const outFile = resolve(opt('--out') ?? join(root, 'test/corpus/verdicts-by-version.tsv'));
const only = opt('--only');
const onlyFiles = opt('--files')?.split(',');
const corpus = resolve(process.env.PROXY_TUNER_CORPUS ?? join(root, '../shared/corpus'));

export const MATRIX_MODULES = [
  'ngx_stream_module.so',
  'ngx_mail_module.so',
  'ngx_http_geoip_module.so',
  'ngx_http_image_filter_module.so',
  'ngx_http_xslt_filter_module.so',
];
/** The corpus's placeholder for the nginx-tests' %%TESTDIR%% (see the corpus README). */
const CORPUS_PREFIX = '/tmp/corp/prefix';

function matrixDir() {
  if (process.env.PROXY_TUNER_MATRIX_DIR) return resolve(process.env.PROXY_TUNER_MATRIX_DIR);
  for (let d = root; ; d = dirname(d)) {
    if (existsSync(join(d, '.matrix', 'binaries.json'))) return join(d, '.matrix');
    if (dirname(d) === d) return undefined;
  }
}

export function loadBinaries() {
  const dir = matrixDir();
  if (!dir) return [];
  const list = JSON.parse(readFileSync(join(dir, 'binaries.json'), 'utf8')).binaries ?? [];
  return list.filter((b) => existsSync(b.path));
}

function readTsv(file) {
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const h = lines[0];
  return lines.slice(1).map((r) => Object.fromEntries(h.map((k, i) => [k, r[i] ?? ''])));
}

/** One environment fix of the corpus's env_fixes column: `kind:what@line(reason)` or `kind:what`. */
export function parseFixes(s) {
  return s
    .split(' ; ')
    .filter(Boolean)
    .map((f) => {
      const colon = f.indexOf(':');
      const kind = f.slice(0, colon);
      let rest = f.slice(colon + 1);
      const m = /^(.*?)(?:@(\d+))?(?:\(([^)]*)\))?$/.exec(rest);
      if (kind === 'commented') {
        const c = /^(\d+)\(([^)]*)\)$/.exec(rest);
        return { kind, what: '', line: Number(c?.[1]), reason: c?.[2] ?? '' };
      }
      return { kind, what: m?.[1] ?? rest, line: m?.[2] ? Number(m[2]) : undefined, reason: m?.[3] ?? '' };
    });
}

let certCache;
/** A self-signed certificate and key made once (openssl), for the stub files. */
function stubCert(work) {
  if (certCache) return certCache;
  const key = join(work, 'stub.key');
  const crt = join(work, 'stub.crt');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '30', '-subj', '/CN=localhost'],
    { stdio: 'ignore' },
  );
  const k = readFileSync(key, 'utf8');
  const c = readFileSync(crt, 'utf8');
  const crl = join(work, 'stub.crl');
  // an empty CRL signed by the stub certificate
  const ca = join(work, 'ca');
  mkdirSync(ca, { recursive: true });
  writeFileSync(join(ca, 'index.txt'), '');
  writeFileSync(join(ca, 'crlnumber'), '01\n');
  writeFileSync(
    join(ca, 'openssl.cnf'),
    `[ca]\ndefault_ca=d\n[d]\ndatabase=${ca}/index.txt\ncrlnumber=${ca}/crlnumber\ndefault_md=sha256\ndefault_crl_days=30\n`,
  );
  let crlText = '';
  try {
    execFileSync('openssl', ['ca', '-gencrl', '-config', join(ca, 'openssl.cnf'), '-keyfile', key, '-cert', crt, '-out', crl], {
      stdio: 'ignore',
    });
    crlText = readFileSync(crl, 'utf8');
  } catch {
    /* CRL files stay empty */
  }
  certCache = { key: k, crt: c, combined: c + k, crl: crlText };
  return certCache;
}

/** Writes a stub at `path` (inside the prefix) of the kind the fix names. */
function writeStub(path, kind, work) {
  mkdirSync(dirname(path), { recursive: true });
  const cert = stubCert(work);
  let text = '';
  const lower = path.toLowerCase();
  if (kind === 'stub-combined' || (kind === 'stub' && /\.pem\.?$/.test(lower))) text = cert.combined;
  else if (kind === 'stub-cert') text = cert.crt;
  else if (kind === 'stub-key') text = cert.key;
  else if (kind === 'stub-crl') text = cert.crl;
  else if (/\.(crt|cert)$/.test(lower)) text = cert.crt;
  else if (/\.key$/.test(lower)) text = cert.key;
  if (!existsSync(path) || !statSync(path).isDirectory()) writeFileSync(path, text);
}

/** Replaces every occurrence of `from` by `to` without changing line numbers. */
const replaceAll = (text, from, to) => text.split(from).join(to);

/**
 * Prepares one corpus file for one binary in `prefix`: returns the config text to check and
 * the extra hosts it needs (bwrap then gives it its own /etc/hosts).
 */
function prepare(lang, row, text, prefix, bin, work) {
  let t = text;
  const hosts = [];
  const lines = () => t.split('\n');
  const setLine = (n, f) => {
    const ls = lines();
    if (n >= 1 && n <= ls.length) ls[n - 1] = f(ls[n - 1]);
    t = ls.join('\n');
  };
  for (const fx of parseFixes(row.env_fixes)) {
    if (fx.reason === 'newer-version') continue; // judged at each version as it is
    switch (fx.kind) {
      case 'stub-combined':
      case 'stub-cert':
      case 'stub-key':
      case 'stub-crl':
      case 'stub-file':
      case 'stub-include':
      case 'stub': {
        const p = fx.what;
        const target = p.startsWith(CORPUS_PREFIX)
          ? prefix + p.slice(CORPUS_PREFIX.length)
          : join(prefix, 'stub', p.replace(/[^A-Za-z0-9_.-]/g, '_'));
        writeStub(target, fx.kind, work);
        if (!p.startsWith(CORPUS_PREFIX)) t = replaceAll(t, p, target);
        break;
      }
      case 'user':
        // a user the machine does not have: the build's own unprivileged user
        t = t.replace(new RegExp(`(^|\\n)(\\s*user\\s+)${fx.what}\\b`, 'g'), '$1$2root');
        break;
      case 'hosts':
        hosts.push(fx.what.replace(/^.*@/, ''));
        break;
      case 'module-symlink': {
        const p = prefix + fx.what.slice(CORPUS_PREFIX.length);
        mkdirSync(dirname(p), { recursive: true });
        const src = join(bin.modulesDir, fx.what.split('/').pop());
        if (existsSync(src)) symlinkSync(src, p);
        break;
      }
      case 'blanked':
        if (fx.line) setLine(fx.line, (l) => l.replace(/\S/g, ' '));
        break;
      case 'commented':
        if (fx.line) setLine(fx.line, (l) => `#${l}`);
        break;
      case 'dropped-param':
        if (fx.line)
          setLine(fx.line, (l) => l.replace(new RegExp(`\\s${fx.what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(=\\S*?)?(?=[\\s;])`), ''));
        break;
    }
  }
  t = replaceAll(t, CORPUS_PREFIX, prefix);
  if (lang === 'nginx') {
    // the wrapping context opens on the file's first line and closes after its last
    const ctx = row.context || 'main';
    const open =
      { main: '', http: 'events {} http { ', server: 'events {} http { server { ', location: 'events {} http { server { location / { ' }[
        ctx
      ] ?? '';
    const close = { main: '', http: '\n}', server: '\n} }', location: '\n} } }' }[ctx] ?? '';
    t = open + t + close;
  }
  return { text: t, hosts };
}

function run(cmd, args, cwd, timeoutMs = 20000) {
  return new Promise((resolveRun) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code: signal ? -1 : code, out });
    });
  });
}

/** Runs the binary on `conf`, under bwrap with its own /etc/hosts when the file needs hosts. */
function check(lang, bin, conf, prefix, hosts) {
  const modules = MATRIX_MODULES.map((m) => join(bin.modulesDir, m)).filter((m) => existsSync(m));
  const args =
    lang === 'nginx'
      ? [
          '-t',
          '-q',
          '-p',
          `${prefix}/`,
          '-e',
          join(prefix, 'error.log'),
          '-g',
          modules.map((m) => `load_module ${m};`).join(' ') || 'worker_processes 1;',
          '-c',
          conf,
        ]
      : ['-c', '-f', conf];
  if (!hosts.length) return run(bin.path, args, prefix);
  const hostsFile = join(prefix, 'hosts');
  writeFileSync(hostsFile, `127.0.0.1 localhost\n::1 localhost\n${hosts.map((h) => `127.0.0.1 ${h}`).join('\n')}\n`);
  return run(
    'bwrap',
    ['--bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--ro-bind', hostsFile, '/etc/hosts', '--die-with-parent', bin.path, ...args],
    prefix,
  );
}

/** The first error's line and message, in the table's form (paths and pids taken out). */
export function firstError(lang, out, confName, prefix) {
  const clean = (s) =>
    replaceAll(replaceAll(s, prefix, '%PREFIX%'), confName, '%FILE%')
      .replace(/\s+/g, ' ')
      .trim();
  if (lang === 'nginx') {
    const m = /\[emerg\] (?:\d+#\d+: )?(.*)/.exec(out);
    if (!m) return { line: 0, message: clean(out.split('\n')[0] ?? '') };
    const msg = m[1];
    const at = / in (\S+):(\d+)$/.exec(msg);
    return { line: at && at[1].endsWith(confName) ? Number(at[2]) : 0, message: clean(at ? msg.slice(0, at.index) : msg) };
  }
  const strip = (a) => a.replace(/^.*?\[(ALERT|WARNING)\]\s*(\(\d+\)\s*)?:?\s*/, '').replace(/^config\s*:\s*/, '');
  const inFile = (a) => {
    const p = /\[([^\]\s]+):(\d+)\]/.exec(a);
    return p && p[1].endsWith(confName) ? Number(p[2]) : 0;
  };
  const alerts = out.split('\n').filter((l) => /\[ALERT\]/.test(l));
  const lines = [];
  let first;
  for (const a of alerts) {
    const msg = strip(a);
    if (/Fatal errors found in configuration|Error\(s\) found in configuration file/.test(msg)) continue;
    if (inFile(a)) lines.push(inFile(a));
    if (first === undefined) first = { line: inFile(a), message: clean(msg) };
  }
  if (first === undefined) {
    // refused for a warning (3.2's deprecated `program` section): the warning names the line
    const w = out.split('\n').find((l) => /\[WARNING\]/.test(l) && inFile(l));
    if (w) {
      first = { line: inFile(w), message: clean(strip(w)) };
      lines.push(first.line);
    }
  }
  return { ...(first ?? { line: 0, message: clean(strip(alerts[0] ?? out.split('\n')[0] ?? '')) }), lines: [...new Set(lines)] };
}

/** Errors of the environment rather than of the file (what a linter cannot see). */
const ENV_ERROR =
  /does not support the QUIC|unknown service name|use-service|Lua file|'lua\.|host not found|No such file or directory|getpwnam|getgrnam|dlopen|cannot load certificate|BIO_new|PEM_read|SSL_CTX_use|unable to load|could not resolve|Cannot create|cannot open|unable to stat|Permission denied|is already loaded|unable to find CA file|unable to configure CA|failed to load|not found in CRL/i;

/** ok, env or genuine, from the binary's error and what the corpus says of the file at 1.22/2.6. */
export function classify(row, verdict, err) {
  if (verdict === 'ok') return 'ok';
  if (row.final_class === 'env-unfixed' && row.final_kind !== 'newer-version' && err.line === Number(row.final_line || 0)) return 'env';
  if (row.class === 'env' && row.kind !== 'newer-version' && err.line === Number(row.line || 0) && !row.env_fixes) return 'env';
  if (ENV_ERROR.test(err.message) && !/unknown directive|invalid parameter|invalid number|not allowed/.test(err.message)) return 'env';
  return 'genuine';
}

/** The file a missing-file error names, if it is one. */
export function missingFile(lang, message) {
  const pats =
    lang === 'nginx'
      ? [
          /open\(\) "([^"]+)" failed \(2:/,
          /cannot load certificate "([^"]+)"/,
          /BIO_new_file\("([^"]+)"\) failed/,
          /failed to load external entity "([^"]+)"/,
          /PEM_read_bio_\w+\("([^"]+)"\)/,
        ]
      : [
          /unable to stat SSL certificate from file '([^']+)'/,
          /cannot open file '([^']+)'/,
          /error opening file '([^']+)'/,
          /Couldn't open the ca-file '([^']+)'/,
          /Couldn't open the crl-file '([^']+)'/,
          /error in Lua file '([^']+)'/,
          /failed to open pattern file <([^>]+)>/,
          /unable to load DH parameters from file <([^>]+)>/,
          /unable to load (?:SSL )?(?:private key|certificate) from file '([^']+)'/,
          /failed to open map file '([^']+)'/,
        ];
  for (const p of pats) {
    const m = p.exec(message);
    if (m) return m[1];
  }
  return undefined;
}

let dhCache;
function stubFor(path, work) {
  const cert = stubCert(work);
  const lower = path.toLowerCase();
  if (/dh|param/.test(lower.split('/').pop())) {
    if (dhCache === undefined) {
      try {
        dhCache = execFileSync('openssl', ['dhparam', '-dsaparam', '1024'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      } catch {
        dhCache = '';
      }
    }
    return cert.combined + dhCache;
  }
  if (/\.crl$/.test(lower)) return cert.crl;
  if (/crt-list|crtlist/.test(lower)) return `${join(work, 'stub-cert.pem')}\n`;
  if (/\.(pem|crt|cert|key|der)$/.test(lower) || /\/(certs?|ssl|tls)\//.test(lower)) return cert.combined;
  if (/\.(http|html?)$/.test(lower) || /error/.test(lower))
    return 'HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\nstub\n';
  return '';
}

/**
 * Checks one prepared file; a file it names that does not exist (a certificate, an include, a
 * map...) is made as a stub, in the prefix (paths outside it are rewritten into it, on the same
 * line) and the check is repeated, up to 12 times.
 */
async function checkWithStubs(lang, bin, row, conf, prefix, hosts, work) {
  const confName = row.file;
  const confPath = join(prefix, confName);
  let text = conf;
  const made = [];
  for (let round = 0; ; round++) {
    writeFileSync(confPath, text);
    const r = await check(lang, bin, confPath, prefix, hosts);
    const verdict = r.code === 0 || (lang === 'haproxy' && r.code === 2 && !/\[ALERT\]/.test(r.out)) ? 'ok' : 'error';
    if (verdict === 'ok') return { verdict, err: { line: 0, message: '', lines: [] }, made };
    const err = firstError(lang, r.out, confName, prefix);
    const raw = missingFile(lang, err.message.replace(/%PREFIX%/g, prefix).replace(/%FILE%/g, confName));
    if (!raw || round >= 12) return { verdict, err, made };
    let path = raw.startsWith('/') ? raw : join(prefix, raw);
    if (!path.startsWith(prefix + '/')) {
      // rewrite the longest leading part of the path the text names into the prefix
      let from = path;
      while (from.length > 1 && !text.includes(from)) from = dirname(from);
      if (from.length <= 1) return { verdict, err, made };
      const to = join(prefix, 'stub', from);
      text = replaceAll(text, from, to);
      path = to + path.slice(from.length);
    }
    if (existsSync(path) && made.includes(path)) return { verdict, err, made };
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, stubFor(path, work));
    made.push(path);
  }
}

async function judge(lang, bins, rows, work) {
  const out = [];
  let next = 0;
  // the binary of the corpus's own verdicts first: what it adds to them is the environment
  const base = bins.find((b) => b.version === (lang === 'nginx' ? '1.22.1' : '2.6.12')) ?? bins[0];
  const order = [base, ...bins.filter((b) => b !== base)];
  writeFileSync(join(work, 'stub-cert.pem'), stubCert(work).combined);
  async function worker() {
    while (next < rows.length) {
      const row = rows[next++];
      let baseErr;
      for (const bin of order) {
        const prefix = mkdtempSync(join(work, 'p-'));
        mkdirSync(join(prefix, 'logs'), { recursive: true });
        const text = readFileSync(join(corpus, lang, row.file), 'utf8');
        const { text: conf, hosts } = prepare(lang, row, text, prefix, bin, work);
        // nginx reads includes of relative names from the config's folder: the root's own files
        if (lang === 'nginx') {
          for (const f of readdirSync(bin.confDir)) {
            const src = join(bin.confDir, f);
            if (statSync(src).isFile() && !existsSync(join(prefix, f))) copyFileSync(src, join(prefix, f));
          }
        }
        const { verdict, err } = await checkWithStubs(lang, bin, row, conf, prefix, hosts, work);
        let cls = classify(row, verdict, err);
        if (bin === base) baseErr = verdict === 'error' ? err : undefined;
        // the corpus's binary accepted the file: an error ours adds at the same place is the environment's
        if (
          verdict === 'error' &&
          row.final_verdict === 'ok' &&
          !/newer-version/.test(row.env_fixes) &&
          baseErr &&
          baseErr.line === err.line &&
          baseErr.message === err.message
        )
          cls = 'env';
        out.push({
          product: lang,
          version: bin.version,
          file: row.file,
          verdict,
          class: cls,
          line: err.line || '',
          lines: (err.lines ?? []).join(','),
          message: err.message,
        });
        rmSync(prefix, { recursive: true, force: true });
      }
    }
  }
  await Promise.all([worker(), worker()]);
  return out;
}

async function main() {
  const bins = loadBinaries();
  if (!bins.length) throw new Error('no matrix binaries (.matrix/binaries.json): run scripts/provision-matrix.sh');
  const work = mkdtempSync(join(tmpdir(), 'corpus-verdicts-'));
  const started = Date.now();
  try {
    const all = [];
    for (const lang of ['nginx', 'haproxy']) {
      if (only && only !== lang) continue;
      let rows = readTsv(join(corpus, lang, 'verdicts.tsv'));
      if (onlyFiles) rows = rows.filter((r) => onlyFiles.includes(r.file));
      all.push(
        ...(await judge(
          lang,
          bins.filter((b) => b.product === lang),
          rows,
          work,
        )),
      );
    }
    all.sort((a, b) => (a.product + a.file + a.version < b.product + b.file + b.version ? -1 : 1));
    const head = ['product', 'version', 'file', 'verdict', 'class', 'line', 'lines', 'message'];
    const body = all.map((r) => head.map((k) => String(r[k]).replace(/[\t\n]/g, ' ')).join('\t'));
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(
      outFile,
      `# GENERATED by scripts/corpus-verdicts.mjs from the shared corpus with the matrix binaries; do not edit\n${head.join('\t')}\n${body.join('\n')}\n`,
    );
    const sum = {};
    for (const r of all) {
      const k = `${r.product} ${r.version}`;
      sum[k] ??= { ok: 0, genuine: 0, env: 0 };
      sum[k][r.class]++;
    }
    for (const [k, v] of Object.entries(sum)) console.log(`${k}: ${v.ok} ok, ${v.genuine} genuine, ${v.env} env`);
    console.log(`wrote ${outFile} (${all.length} rows) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(`corpus-verdicts: ${e.message}`);
    process.exit(1);
  });
}

export { prepare, check, readTsv, stubCert, stubFor, corpus as corpusRoot };
