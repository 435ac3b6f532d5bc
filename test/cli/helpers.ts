// Running the built CLI in a subprocess, for the command-line tests.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO } from './build';

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export const BIN = join(REPO, 'bin', 'proxy-tuner.js');

/** `proxy-tuner ARGS` in `cwd`, no local binaries asked (reproducible versions) unless `env` says. */
export function runCli(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    input: opts.input,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, PROXY_TUNER_NO_LOCAL_VERSION: '1', ...opts.env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A temp folder with `files` (relative path -> text) written into it. */
export function tree(files: Record<string, string>, root = mkdtempSync(join(tmpdir(), 'proxy-tuner-cli-'))): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

/** Seed 002's config: proxy_pass to a literal address, nginx 1.22 opens a connection per request. */
export const SEED002 = `events {}
http {
    access_log off;
    server {
        listen 1990;
        location / {
            proxy_pass http://127.0.0.1:1980;
        }
    }
}
`;
