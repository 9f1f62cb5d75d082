#!/usr/bin/env node
// posenc's command line (`npx posenc --help`); the work is in src/cli/, built
// into dist/cli.mjs (tools/bundle.mjs).
// main() answers every failure itself with one line and an exit status; the
// handler below only keeps a fault in posenc itself to one line too.
import { EXIT, main } from '../dist/cli.mjs';

process.on('uncaughtException', (error) => {
  process.stderr.write(`posenc: internal error: ${String(error?.message ?? error).replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(EXIT.failed);
});

process.exitCode = await main(process.argv.slice(2));
