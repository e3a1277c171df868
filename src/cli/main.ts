#!/usr/bin/env node
// SIGHUP makes `vts serve` load its TLS certificate again. Its default action ends the process, so
// until the server's own handler is in place (after the imports below, the options and the start)
// a SIGHUP (`systemctl reload` right after a start) is ignored rather than fatal.
if (process.argv[2] === 'serve') process.on('SIGHUP', () => undefined);
// A server holds many small long-lived objects per car: with V8's --optimize-for-size its heap
// grows less eagerly (19,000 parked cars: 12.3 -> 9.1 KiB of RSS per car at the same ingest rate,
// docs/capacity.md). Set before anything else is loaded (NODE_OPTIONS cannot carry this flag);
// VTS_V8_OPTIMIZE_FOR_SIZE=0 keeps V8's default.
if (process.argv[2] === 'serve' && process.env.VTS_V8_OPTIMIZE_FOR_SIZE !== '0') (await import('node:v8')).setFlagsFromString('--optimize-for-size');
const { run } = await import('./program.js');
const { endWorker } = await import('./workers.js');

const code = await run(process.argv);
if (code !== 0) process.exitCode = code;
// a worker of `vts serve --workers` ends here: its channel to the primary would keep it alive
endWorker(code);
