// The editor's file system as the language server reads it when it runs without a disk of its
// own (the web worker of vscode.dev and github.dev, server/src/lsp/browserMain.ts): requests from
// the server to the client, which answers them with `workspace.fs` (client/src/browserExtension.ts).
// Plain data only; every answer is null when the uri cannot be read.

/** Request method (server → client): a file's text, UTF-8. */
export const READ_FILE_REQUEST = 'proxyTuner/fs/readFile';
/** Request method (server → client): a file's or folder's kind, size and modification time. */
export const STAT_REQUEST = 'proxyTuner/fs/stat';
/** Request method (server → client): the names in a folder. */
export const READ_DIRECTORY_REQUEST = 'proxyTuner/fs/readDirectory';

export interface FsParams {
  uri: string;
}

export type ReadFileResult = { text: string } | null;

export type StatResult = { isFile: boolean; isDirectory: boolean; size: number; mtimeMs: number } | null;

export type ReadDirectoryResult = string[] | null;
