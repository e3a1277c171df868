#!/usr/bin/env node
import { run } from './program.js';

const code = await run(process.argv);
if (code !== 0) process.exitCode = code;
