// How the language server process is started, shared by the VS Code client (extension.ts) and
// the benchmark (scripts/bench-lsp.mjs), so that what is measured is what the editor runs.
// No `vscode` import: plain data.
//
// Measured on a 5,000-line nginx file, 2,000 edits (RSS after the first diagnostics -> end; the
// server itself sets --heap-growing-percent=30, see server.ts):
//   default young generation (2 x 16 MB once grown)      84 -> 107-108 MB
//   --max-semi-space-size=4                               83-85 -> 100-103 MB
//   --max-semi-space-size=4, MALLOC_ARENA_MAX=2           79-80 -> 91-93 MB
// with the same edit-to-diagnostics latency (p50 51-55 ms in each setting).

/**
 * Node options for the server process. `--max-semi-space-size=4` caps V8's young generation at
 * 2 x 4 MB: by default it doubles up to 2 x 16 MB while typing (each validation allocates a
 * file's worth of tokens and nodes), memory the server then keeps. The validations' garbage
 * still dies young at this size; scavenges stay short.
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=4'];

/**
 * Environment added for the server process. glibc gives each thread that allocates its own
 * malloc arena and keeps their memory; V8's compiler and collector threads made the server's
 * memory outside the JS heap grow by ~10 MB while typing. Two arenas are plenty for one JS
 * thread. A value the user already set wins.
 */
export function serverEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, MALLOC_ARENA_MAX: base.MALLOC_ARENA_MAX ?? '2' };
}
