// The configs both editor-level tests (our own JSON-RPC client and Neovim's) open, with what
// the real language modules must answer on them. `<|...|>` marks the expected diagnostic,
// `<|>` the completion cursor; the hover position is the first occurrence of `hoverAt`.
import { parseMarkers, positionOf } from './markers';
import type { Position, Range } from 'vscode-languageserver-types';

export interface EditorFixture {
  language: 'nginx' | 'haproxy';
  fileName: string;
  text: string;
  /** The diagnostic the module must report, and where. */
  diagnostic: { code: string; range: Range; severity: number };
  /** A line edit that removes that diagnostic (0-based line, new line text); the module's own
   *  suggestion (a quick fix whose title matches `suggestion`) makes the same edit. */
  fix: { line: number; text: string; suggestion: RegExp };
  completion: { position: Position; mustInclude: string[] };
  hover: { position: Position; mustMatch: RegExp };
}

function fixture(
  language: EditorFixture['language'],
  fileName: string,
  marked: string,
  rest: {
    code: string;
    severity: number;
    fixLine: string;
    suggestion: RegExp;
    complete: string[];
    hoverAt: string;
    hoverDelta?: number;
    hoverMatch: RegExp;
  },
): EditorFixture {
  const m = parseMarkers(marked);
  if (!m.cursor || m.ranges.length !== 1) throw new Error(`fixture ${fileName} needs one <|> and one <|...|>`);
  return {
    language,
    fileName,
    text: m.text,
    diagnostic: { code: rest.code, range: m.ranges[0], severity: rest.severity },
    fix: { line: m.ranges[0].start.line, text: rest.fixLine, suggestion: rest.suggestion },
    completion: { position: m.cursor, mustInclude: rest.complete },
    hover: { position: positionOf(m.text, rest.hoverAt, rest.hoverDelta ?? 1), mustMatch: rest.hoverMatch },
  };
}

export const NGINX_FIXTURE = fixture(
  'nginx',
  'nginx.conf',
  `events {}
http {
  upstream app {
    server 127.0.0.1:9000;
    keepalive 32;
  }
  server {
    listen 127.0.0.1:8080;
    <|listn|> 8081;
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
    location /api/ {
      proxy_<|>
    }
  }
}
`,
  {
    code: 'nginx/unknown-directive',
    severity: 1,
    fixLine: '    listen 8081;',
    suggestion: /listen/,
    complete: ['proxy_pass', 'proxy_set_header'],
    hoverAt: 'proxy_pass',
    hoverMatch: /proxy_pass/,
  },
);

export const HAPROXY_FIXTURE = fixture(
  'haproxy',
  'haproxy.cfg',
  `global
    maxconn 1000

defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend web
    bind 127.0.0.1:8080
    <|bnd|> 127.0.0.1:8081
    default_backend app

backend app
    balance <|>
    server app1 127.0.0.1:9000 check
`,
  {
    code: 'haproxy/unknown-keyword',
    severity: 1,
    fixLine: '    bind 127.0.0.1:8081',
    suggestion: /'bind'/,
    complete: ['roundrobin', 'leastconn'],
    hoverAt: 'default_backend',
    hoverMatch: /default_backend/,
  },
);

export const FIXTURES = [NGINX_FIXTURE, HAPROXY_FIXTURE];
