#!/usr/bin/env node
// SIGHUP makes `vts serve` load its TLS certificate again. Its default action ends the process, so
// until the server's own handler is in place (after the imports below, the options and the start)
// a SIGHUP (`systemctl reload` right after a start) is ignored rather than fatal.
if (process.argv[2] === 'serve') process.on('SIGHUP', () => undefined);
const { run } = await import('./program.js');
const { endWorker } = await import('./workers.js');

const code = await run(process.argv);
if (code !== 0) process.exitCode = code;
// a worker of `vts serve --workers` ends here: its channel to the primary would keep it alive
endWorker(code);
