#!/usr/bin/env node
import { run } from './program.js';
import { endWorker } from './workers.js';

const code = await run(process.argv);
if (code !== 0) process.exitCode = code;
// a worker of `vts serve --workers` ends here: its channel to the primary would keep it alive
endWorker(code);
