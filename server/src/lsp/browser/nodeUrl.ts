// `node:url` for the web worker's bundle (esbuild.mjs maps it here): the two functions the
// service uses on file: URIs (workspaceIndex.ts), POSIX paths only.
export function fileURLToPath(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  if (u.protocol !== 'file:') throw new TypeError(`not a file URL: ${u.href}`);
  return decodeURIComponent(u.pathname);
}

export function pathToFileURL(path: string): URL {
  return new URL(`file://${path.split('/').map(encodeURIComponent).join('/')}`);
}
