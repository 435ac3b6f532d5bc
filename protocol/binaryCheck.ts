// "Validate with nginx -t / haproxy -c": the request the editor client sends to the language
// server, which runs the real binary on a sandboxed copy of the saved file (bench/src/check.ts)
// and publishes its messages as diagnostics (source `nginx -t` / `haproxy -c`) on the files and
// lines they name. Plain data only.

/** Request method (client → server). */
export const VALIDATE_WITH_BINARY_REQUEST = 'proxyTuner/validateWithBinary';

export interface ValidateWithBinaryParams {
  /** The document to check (its file as saved on disk is what the binary reads). */
  uri: string;
}

export interface ValidateWithBinaryResult {
  /** ok/error: the binary's verdict; refused: the copy could not be made safe to check; missing: no binary; unsupported: not a file on disk. */
  status: 'ok' | 'error' | 'refused' | 'missing' | 'unsupported';
  /** `nginx -t` or `haproxy -c`. */
  tool: string;
  binary?: string;
  version?: string;
  /** One line for the user. */
  summary: string;
  errors: number;
  warnings: number;
  /** Files that got diagnostics from this run. */
  files: string[];
}
