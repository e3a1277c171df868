#!/usr/bin/env node
// SIGHUP makes `vts serve` load its TLS certificate again. Its default action ends the process, so
// until the server's own handler is in place (after the imports below, the options and the start)
// a SIGHUP (`systemctl reload` right after a start) is ignored rather than fatal.
if (process.argv[2] === 'serve') process.on('SIGHUP', () => undefined);
// VTS_V8_OPTIMIZE_FOR_SIZE=1 runs V8 with --optimize-for-size: its heap grows less eagerly, for a
// node whose limit is memory (19,000 parked cars: 14.1 -> 9.6 KiB of RSS per car), at a cost in
// CPU wherever much is allocated (the same fleet's reconnect storm: 1.5 -> 3.3 ms per car; a
// 5,000-record history answer's p99 doubles). Off by default (docs/operations.md, "Memory with
// many cars"). Set before anything else is loaded: NODE_OPTIONS cannot carry this flag.
if (process.argv[2] === 'serve' && process.env.VTS_V8_OPTIMIZE_FOR_SIZE === '1') (await import('node:v8')).setFlagsFromString('--optimize-for-size');
const { run } = await import('./program.js');
const { endWorker } = await import('./workers.js');

const code = await run(process.argv);
if (code !== 0) process.exitCode = code;
// a worker of `vts serve --workers` ends here: its channel to the primary would keep it alive
endWorker(code);
