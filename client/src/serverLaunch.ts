// How the language server process is started, shared by the VS Code client (extension.ts) and
// the benchmark (scripts/bench-lsp.mjs), so that what is measured is what the editor runs.
// No `vscode` import: plain data.

/**
 * Node options for the server process. `--max-semi-space-size=8` caps V8's young generation at
 * 2 x 8 MB: by default it doubles to 2 x 16 MB during the first minutes of editing (each
 * validation allocates a file's worth of tokens and nodes), which alone added ~17 MB (~18%) to
 * the server's RSS on a 5,000-line file. Scavenges stay short and the validations' garbage
 * still dies young at this size (edit-to-diagnostics latency unchanged in bench:lsp).
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=8'];
