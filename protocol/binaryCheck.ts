// "Validate with nginx -t / haproxy -c": the request the editor client sends to the language
// server, which runs the real binary on a sandboxed copy of the saved file (server/src/host/binaryCheck.ts)
// and publishes its messages as diagnostics (source `nginx -t` / `haproxy -c`) on the files and
// lines they name; and the runner's result. Plain data only.
import type { ProxyKind } from './bench';

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

export type CheckSeverity = 'error' | 'warning' | 'information';

/** One message of the binary, with the user's file and 1-based line when it named one. */
export interface BinaryMessage {
  severity: CheckSeverity;
  message: string;
  file?: string;
  line?: number;
}

export interface BinaryCheckResult {
  kind: ProxyKind;
  binary: string;
  version: string;
  /** ok / error: the binary's verdict; refused: the copy could not be made safe (see messages); missing: no binary. */
  status: 'ok' | 'error' | 'refused' | 'missing';
  messages: BinaryMessage[];
  /** The binary's output with the copies' paths replaced by the user's. */
  output: string;
  /** The temp folder the copy was made in (removed before the result is returned). */
  sandboxDir?: string;
  /**
   * How the check ran: namespace (no network but loopback, file system read-only except the
   * temp folder: a `load_module` constructor cannot reach out or write) or rewrite-only.
   */
  containment?: 'namespace' | 'rewrite-only';
}
