// The binary's own config test (`nginx -t` / `haproxy -c`) on a sandboxed copy, for the editor's
// "Validate with nginx -t / haproxy -c" and the formatting tests. A node adapter of the server
// (it starts a process) over the runner (server/src/runner), which the benchmark engine uses too.
// The copy is made by the runner's sandbox (server/src/runner/sandbox/nginx.ts, haproxy.ts):
// listen/bind addresses become free loopback ports (`nginx -t` binds them for a moment), upstream
// and server addresses point at loopback (so no name is looked up), pid, logs, temp and cache
// paths go into the temp folder.
// Lines keep their numbers in the copy, and the copies' paths in the binary's messages are
// mapped back to the user's files. Nothing is started beyond the check, which runs in a process
// group of its own, is killed on timeout, and the temp folder is always removed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ProxyKind } from '../../../protocol/bench';
import type { BinaryCheckResult, BinaryMessage, CheckSeverity } from '../../../protocol/binaryCheck';
import { cleanEnv, findBinary, freePorts, binaryVersion } from '../runner/proxy';
import {
  BACKEND_SLOTS,
  fillPorts,
  makeSandboxDir,
  makeTlsPair,
  looksLikeDirective,
  editorLineEnds,
  warningFromRewrite,
  mapMessages,
  redactForeignWords,
  removeSandboxDir,
  SandboxRefusal,
  writeText,
  visibleReads,
  nearProductWord,
} from '../runner/sandbox/common';
import { binaryLayout, configTestArgs, copyToOriginal, detectKind, planSandbox, uncontainedNativeRefusal } from '../runner/sandbox/index';
import { Containment } from '../runner/contain';
import { checkReadable } from './safeRead';
import { MAX_READ_BYTES } from './nodeHost';

export type { BinaryCheckResult, BinaryMessage, CheckSeverity } from '../../../protocol/binaryCheck';

export interface BinaryCheckOptions {
  configPath: string;
  kind?: ProxyKind;
  /** An explicit binary path (settings); else found on PATH. */
  binary?: string;
  timeoutMs?: number;
}

const NGINX_LEVEL: Record<string, CheckSeverity> = {
  emerg: 'error',
  alert: 'error',
  crit: 'error',
  error: 'error',
  warn: 'warning',
  notice: 'information',
  info: 'information',
};

/** Messages of `nginx -t` (already mapped to the user's paths). */
export function parseNginxOutput(output: string): BinaryMessage[] {
  const out: BinaryMessage[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    const m = /^(?:nginx: )?(?:\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d )?\[(\w+)\](?: \d+#\d+:)? (.*)$/.exec(line);
    if (!m) continue;
    const severity = NGINX_LEVEL[m[1]] ?? 'information';
    let message = m[2];
    let file: string | undefined;
    let lineNo: number | undefined;
    const at = / in (\S.*?):(\d+)$/.exec(message);
    if (at) {
      file = at[1];
      lineNo = Number(at[2]);
      message = message.slice(0, at.index);
    }
    if (!out.some((o) => o.message === message && o.file === file && o.line === lineNo))
      out.push({ severity, message, file, line: lineNo });
  }
  return out;
}

/** Messages of `haproxy -c` (already mapped). */
export function parseHaproxyOutput(output: string): BinaryMessage[] {
  const out: BinaryMessage[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    const m = /^\[(ALERT|WARNING|NOTICE)\]\s+(?:\(\d+\)\s+)?:\s*(.*)$/.exec(line);
    if (!m) continue;
    const severity: CheckSeverity = m[1] === 'ALERT' ? 'error' : m[1] === 'WARNING' ? 'warning' : 'information';
    let message = m[2].replace(/^config\s*:\s*/, '');
    let file: string | undefined;
    let lineNo: number | undefined;
    const at = /\[(\/[^\]]*?):(\d+)\]/.exec(message);
    if (at) {
      file = at[1];
      lineNo = Number(at[2]);
      message = message.replace(/^parsing \[[^\]]*\]\s*:\s*/, '');
    }
    // the closing summaries say nothing the lines above have not said
    if (/^Fatal errors found in configuration\.?$|^Error\(s\) found in configuration file/.test(message)) continue;
    if (severity === 'information' && !file) continue; // version and path notices
    out.push({ severity, message: message.trim(), file, line: lineNo });
  }
  return out;
}

function run(binary: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    // a clean environment: nothing of ours (tokens, the user's settings) for `.warning "${VAR}"` to print
    const child = spawn(binary, args, { cwd, env: cleanEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (b: Buffer) => {
      if (output.length < 256 * 1024) output += b.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const timer = setTimeout(() => {
      output += `\n(the check did not finish within ${timeoutMs} ms and was stopped)`;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}\n${e.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * An included file that is no config (`include secret.txt;`): nginx quotes its first word as an
 * unknown directive; that word is the file's content, so it is not shown.
 */
function redactForeign(m: BinaryMessage, configPath: string): BinaryMessage {
  if (!m.file || path.resolve(m.file) === configPath) return m;
  const r = /^unknown directive "(.*)"\s*$/s.exec(m.message);
  if (!r || (looksLikeDirective(r[1]) && nearProductWord(r[1], 'nginx'))) return m;
  return { ...m, message: 'unknown directive (the included file does not look like an nginx config; its content is not shown)' };
}

/** Runs `nginx -t` / `haproxy -c` on a sandboxed copy of `configPath` (the file as saved on disk). */
export async function checkWithBinary(opts: BinaryCheckOptions): Promise<BinaryCheckResult> {
  const configPath = path.resolve(opts.configPath);
  const kind = opts.kind ?? detectKind(configPath);
  // the file as resolved: a regular file outside /proc, /sys, /dev (a device or a FIFO would hang or grow the copy)
  const readable = checkReadable(configPath, MAX_READ_BYTES);
  if (!readable.ok) {
    const message = `not checked with ${kind === 'nginx' ? 'nginx -t' : 'haproxy -c'}: ${'message' in readable ? readable.message : configPath}`;
    return {
      kind,
      binary: opts.binary ?? kind,
      version: '',
      status: 'refused',
      messages: [{ severity: 'information', message, file: configPath }],
      output: message,
    };
  }
  const binary = findBinary(kind, opts.binary);
  if (!binary) return { kind, binary: opts.binary ?? kind, version: '', status: 'missing', messages: [], output: '' };
  const version = binaryVersion(kind, binary);
  const dir = makeSandboxDir();
  const jail = await Containment.open(dir);
  const base = { kind, binary, version, sandboxDir: dir, containment: jail.mode };
  try {
    const { files, mainCopy, portCount, reads } = planSandbox(kind, {
      configPath,
      dir,
      backend: BACKEND_SLOTS,
      tls: makeTlsPair(dir, 'ecdsa'),
      layout: binaryLayout(kind, binary),
      contained: jail.contained,
      refuseUncontainedNative: uncontainedNativeRefusal(jail),
    });
    if (jail.contained) jail.showReadOnly(visibleReads(reads, configPath, dir).binds);
    const ports = await freePorts(portCount + 3);
    const backend = { http: ports[portCount], https: ports[portCount + 1], tcp: ports[portCount + 2] };
    for (const f of files) writeText(f.copy, editorLineEnds(fillPorts(f.text, ports, backend)));
    const w = jail.wrap(binary, configTestArgs(kind, dir, mainCopy));
    const r = await run(w.cmd, w.args, dir, opts.timeoutMs ?? 20_000);
    const output = redactForeignWords(mapMessages(r.output.trim(), copyToOriginal(files)), configPath, {
      kind,
      ownFiles: files.map((f) => f.original),
    });
    const originals = files.map((f) => {
      try {
        return readFileSync(f.original, 'utf8');
      } catch {
        return '';
      }
    });
    const messages = (kind === 'nginx' ? parseNginxOutput(output) : parseHaproxyOutput(output))
      .filter((m) => m.severity === 'error' || !warningFromRewrite(kind, m.message, originals))
      .map((m) => redactForeign(m, configPath));
    const status = r.code === 0 ? 'ok' : 'error';
    if (status === 'error' && !messages.some((m) => m.severity === 'error')) {
      messages.push({ severity: 'error', message: output.split('\n').filter(Boolean).pop() ?? `${kind} rejected the config` });
    }
    return { ...base, status, messages, output };
  } catch (e) {
    if (e instanceof SandboxRefusal) {
      const message = e.message.replace(/^.*?:\d+: /, '');
      return {
        ...base,
        status: 'refused',
        messages: [
          {
            severity: 'information',
            message: `not checked with ${kind === 'nginx' ? 'nginx -t' : 'haproxy -c'}: ${message}`,
            file: e.file ?? configPath,
            line: e.line,
          },
        ],
        output: e.message,
      };
    }
    throw e;
  } finally {
    await jail.dispose();
    removeSandboxDir(dir);
  }
}
