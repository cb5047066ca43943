// serve.mjs — a static file server on the loopback for the page tests:
// URL prefixes mapped to folders, the MIME types a browser insists on
// (text/javascript for modules, application/wasm for streaming
// compilation), nothing outside the folders, GET only.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css', '.png': 'image/png',
};

/* Start serving { '/prefix/': '/folder' }: resolves to { url, close() }. */
export function serve(routes) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const prefix = Object.keys(routes).filter((p) => url.pathname.startsWith(p))
      .sort((a, b) => b.length - a.length)[0];
    let file = null;
    if (req.method === 'GET' && prefix !== undefined) {
      const root = path.resolve(routes[prefix]);
      const rest = decodeURIComponent(url.pathname.slice(prefix.length)) || 'index.html';
      const candidate = path.resolve(root, rest);
      if (candidate.startsWith(root + path.sep) && fs.existsSync(candidate) && fs.statSync(candidate).isFile())
        file = candidate;
    }
    if (file === null) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`not found: ${url.pathname}\n`);
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() });
    });
  });
}
