#!/usr/bin/env node
// posenc's command line (`npx posenc --help`); the work is in src/cli/.
import { main } from '../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
