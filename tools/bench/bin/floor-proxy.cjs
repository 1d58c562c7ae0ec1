#!/usr/bin/env node
// The floor any gateway can reach here: a bare keep-alive pass-through proxy, nothing else (no auth, no limits, no
// logging). The gateway benchmark runs it in front of the same service as the gateway:
//   node tools/bench/bin/floor-proxy.cjs <service url> <port>
const { createServer } = require('node:http');
const { Pool } = require('undici');

const [target, port] = process.argv.slice(2);
const pool = new Pool(target, { connections: 256, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 30_000 });
const HOP = ['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade', 'te', 'trailer'];

const server = createServer(async (req, res) => {
  const headers = { ...req.headers };
  for (const name of HOP) delete headers[name];
  try {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const answer = await pool.request({ method: req.method, path: req.url, headers, body: hasBody ? req : undefined });
    const back = { ...answer.headers };
    for (const name of HOP) delete back[name];
    res.writeHead(answer.statusCode, back);
    answer.body.pipe(res);
  } catch {
    res.writeHead(502).end();
  }
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => pool.close().then(() => process.exit(0))));
