// How the language server process is started, shared by the VS Code client (extension.ts) and
// the benchmark (scripts/bench-lsp.mjs), so that what is measured is what the editor runs.
// No `vscode` import: plain data.
//
// Measured on a 5,000-line nginx file, 2,000 edits (RSS after the first diagnostics -> end; the
// server's own --heap-growing-percent was 30 for these rows; main.ts sets 10):
//   default young generation (2 x 16 MB once grown)      84 -> 107-108 MB
//   --max-semi-space-size=4                               83-85 -> 100-103 MB
//   --max-semi-space-size=4, MALLOC_ARENA_MAX=2           79-80 -> 91-93 MB
// With the server's warm-up after open (server.ts) and 10,000 edits in bursts of 50
// (`node --import tsx scripts/bench-lsp.mjs --parts 5`, two or three runs each):
//   --max-semi-space-size=4: growth 5.5-7.6%, edit->diagnostics p50 28 ms, p99 62-64 ms
//   --max-semi-space-size=8: growth 5.8-8.1%, p50 25-26 ms, p99 53-60 ms
//   --max-semi-space-size=16: growth 17-23%, p50 20 ms, p99 49-65 ms
// 2 x 8 MB then: a validation's garbage mostly died young (fewer full collections in the middle of
// typing) without the young generation's growth showing in the server's memory.
// Since the nginx re-parse takes over the statements after an edit (parser.ts) and the warm-up
// types into a copy (server.ts), a keystroke allocates ~2 MB instead of ~3.5 and the young
// generation has grown before the first edit; the same session, 10,000 edits, three runs each
// alternated in the same minutes (2026-12-02, quiet machine):
//   --max-semi-space-size=8:  server CPU 2.49-3.29 s, p50 10.2-12.0 ms, p90 18.0-19.8 ms, RSS 109-114 MB at the end
//   --max-semi-space-size=16: server CPU 1.98-2.12 s, p50 9.2-9.4 ms,  p90 14.3-14.8 ms, RSS 124-126 MB at the end
// 2 x 16 MB: a keystroke's garbage dies young, a third less CPU while typing for ~15 MB more.

/**
 * Node options for the server process. `--max-semi-space-size=16` caps V8's young generation at
 * 2 x 16 MB (V8's own cap on 64-bit machines is larger), reached during the warm-up after open.
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=16'];

/**
 * Environment added for the server process. glibc gives each thread that allocates its own
 * malloc arena and keeps their memory; V8's compiler and collector threads made the server's
 * memory outside the JS heap grow by ~10 MB while typing. Two arenas are plenty for one JS
 * thread. A value the user already set wins.
 */
export function serverEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, MALLOC_ARENA_MAX: base.MALLOC_ARENA_MAX ?? '2' };
}
