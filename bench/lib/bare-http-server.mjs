// A bare node:http server for the HTTP benchmark: it answers every request with the one answer
// given on stdin as JSON ({statusCode, reason, headers: [[name, value], ...], body: base64}),
// the one vts gave, with Date (and Expires, which vts sets equal to it) of now. Prints
// {"port": n} once it listens. Plain JavaScript: no loader, nothing between node and the answer.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const answer = JSON.parse(input);
const body = Buffer.from(answer.body, 'base64');
// node adds Connection and Keep-Alive itself, as it does for vts
const own = new Set(['connection', 'keep-alive', 'transfer-encoding']);
const headers = answer.headers.filter(([k]) => !own.has(k.toLowerCase()));
const clocked = headers.map(([k]) => /^(date|expires)$/i.test(k));
const flat = headers.flat();

let second = 0;
let date = '';
const server = createServer((_req, res) => {
  const now = Math.floor(Date.now() / 1000);
  if (now !== second) {
    second = now;
    date = new Date(now * 1000).toUTCString();
    for (let k = 0; k < clocked.length; k++) if (clocked[k]) flat[2 * k + 1] = date;
  }
  res.writeHead(answer.statusCode, answer.reason, flat);
  res.end(body);
});
server.keepAliveTimeout = answer.keepAliveTimeout ?? 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
