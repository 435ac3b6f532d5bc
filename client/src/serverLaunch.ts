// How the language server process is started, shared by the VS Code client (extension.ts) and
// the benchmark (scripts/bench-lsp.mjs), so that what is measured is what the editor runs.
// No `vscode` import: plain data.
//
// Measured on a 5,000-line nginx file, 2,000 edits (RSS after the first diagnostics -> end; the
// server itself set --heap-growing-percent=30 then; it sets 10 now, see server.ts):
//   default young generation (2 x 16 MB once grown)      84 -> 107-108 MB
//   --max-semi-space-size=4                               83-85 -> 100-103 MB
//   --max-semi-space-size=4, MALLOC_ARENA_MAX=2           79-80 -> 91-93 MB
// With the server's warm-up after open (server.ts) and 10,000 edits in bursts of 50
// (`node --import tsx scripts/bench-lsp.mjs --parts 5`, two or three runs each):
//   --max-semi-space-size=4: growth 5.5-7.6%, edit->diagnostics p50 28 ms, p99 62-64 ms
//   --max-semi-space-size=8: growth 5.8-8.1%, p50 25-26 ms, p99 53-60 ms
//   --max-semi-space-size=16: growth 17-23%, p50 20 ms, p99 49-65 ms
// 2 x 8 MB: a validation's garbage mostly dies young (fewer full collections in the middle of
// typing) without the young generation's growth showing in the server's memory.

/**
 * Node options for the server process. `--max-semi-space-size=8` caps V8's young generation at
 * 2 x 8 MB: by default it doubles up to 2 x 16 MB while typing (each validation allocates a
 * file's worth of tokens and nodes), memory the server then keeps.
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=8'];

/**
 * Environment added for the server process. glibc gives each thread that allocates its own
 * malloc arena and keeps their memory; V8's compiler and collector threads made the server's
 * memory outside the JS heap grow by ~10 MB while typing. Two arenas are plenty for one JS
 * thread. A value the user already set wins.
 */
export function serverEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, MALLOC_ARENA_MAX: base.MALLOC_ARENA_MAX ?? '2' };
}
