// main.js: posenc's command line. Parses argv by hand (no dependencies), runs
// one subcommand and writes its tensor as a torch-style table, CSV, JSON, raw
// little-endian bytes or NumPy .npy. Exit codes: 0 done, 2 bad arguments
// (usage or a value the library rejects), 1 anything else (I/O).
import { readFileSync, writeFileSync } from 'node:fs';
import { COMMANDS, UsageError, optionOf } from './commands.js';
import { BINARY, FORMATS, formatOfPath } from './formats.js';

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

const COMMON = {
  format: `table (torch's repr, the default), csv, json, raw (little-endian float32/int32/float64) or npy`,
  out: 'write to this file instead of stdout (the format follows a .npy, .csv, .json, .bin or .txt name)',
  help: 'show this help',
};

function mainHelp() {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    `posenc ${VERSION}: positional encodings for transformers, exact to float32`,
    '',
    'usage: posenc <command> [--flag value ...] [--format table|csv|json|raw|npy] [--out FILE]',
    '',
    'commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    "Flags are the JS API's option names in kebab-case (dModel is --d-model); `posenc <command> --help`",
    'lists them. Example: posenc sinusoidal --length 10 --d-model 6',
    '',
  ].join('\n');
}

function commandHelp(name) {
  const c = COMMANDS[name];
  const rows = [
    ...Object.entries(c.flags).map(([f, spec]) => [`--${f}${spec.kind === 'bool' ? ` | --no-${f}` : ''}`, spec.help]),
    ...Object.entries(COMMON).map(([f, help]) => [`--${f}`, help]),
  ];
  const width = Math.max(...rows.map(([f]) => f.length));
  return [
    `usage: posenc ${name} [flags]`,
    '',
    `${c.summary}; calls ${c.calls}() of the JS API.`,
    '',
    ...rows.map(([f, help]) => `  ${f.padEnd(width)}  ${help}`),
    '',
  ].join('\n');
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;
const BOOLEANS = { true: true, false: false, yes: true, no: false, 1: true, 0: false };

// A flag's text as the API value. Text that is not of the flag's kind goes to
// the library as it is, so the library's message ("must be an integer ...,
// got "ten"") explains it.
function readValue(name, kind, text) {
  if (kind === 'number') return NUMBER.test(text) ? Number(text) : text;
  if (kind === 'bool') return text.toLowerCase() in BOOLEANS ? BOOLEANS[text.toLowerCase()] : text;
  // a list of numbers: 0,500.5,999 (or a JSON array); entries that are not numbers go as text
  if (kind === 'list') {
    if (text.trim().startsWith('[')) return readValue(name, 'json', text);
    return text.trim() === '' ? [] : text.split(',').map((item) => readValue(name, 'number', item.trim()));
  }
  if (kind === 'json') {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--${name} must be JSON (${error.message}), got ${text}`);
    }
  }
  return text;
}

const squash = (s) => s.replace(/[-_]/g, '').toLowerCase();

function unknownFlag(command, name) {
  const known = Object.keys({ ...COMMANDS[command].flags, ...COMMON });
  const close = known.find((k) => squash(k) === squash(name));
  const hint = close ? `did you mean --${close}?` : `known: ${known.map((k) => `--${k}`).join(', ')}`;
  return new UsageError(`unknown flag --${name} for '${command}' (${hint})`);
}

/** Parses the flags after the command: { options, format, out, help }. */
export function parseFlags(command, args) {
  const { flags } = COMMANDS[command];
  const parsed = { options: {}, format: undefined, out: undefined, help: false };
  const seen = new Set();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-h' || arg === '--help') {
      parsed.help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') throw new UsageError(`unexpected argument '${arg}' (flags start with --)`);
    let [name, text] = arg.slice(2).split(/=(.*)/s, 2);
    let spec = flags[name];
    if (!spec && name.startsWith('no-') && flags[name.slice(3)]?.kind === 'bool' && text === undefined) {
      name = name.slice(3);
      spec = flags[name];
      text = 'false';
    }
    if (!spec && !(name in COMMON)) throw unknownFlag(command, name);
    if (seen.has(name)) throw new UsageError(`--${name} is given twice`);
    seen.add(name);
    if (text === undefined) {
      const next = args[i + 1];
      if (spec?.kind === 'bool' && (next === undefined || next.startsWith('--') || !(next.toLowerCase() in BOOLEANS))) {
        text = 'true';
      } else if (next === undefined || (next.startsWith('--') && next !== '--')) {
        throw new UsageError(`--${name} needs a value`);
      } else {
        text = next;
        i++;
      }
    }
    if (name === 'format') {
      if (!(text in FORMATS)) throw new UsageError(`--format must be one of ${Object.keys(FORMATS).join(', ')}, got '${text}'`);
      parsed.format = text;
    } else if (name === 'out') {
      parsed.out = text;
    } else {
      parsed.options[optionOf(name, spec)] = readValue(name, spec.kind, text);
    }
  }
  return parsed;
}

/**
 * Runs the CLI: argv without `node posenc`; io = { stdout, stderr } streams
 * (stdout.isTTY is honoured). Resolves to the exit code.
 */
export async function main(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  const say = (stream, text) => stream.write(text.endsWith('\n') ? text : `${text}\n`);
  const [command, ...rest] = argv;
  if (command === undefined) {
    say(io.stderr, mainHelp());
    return 2;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    if (rest[0] !== undefined && !(rest[0] in COMMANDS)) {
      say(io.stderr, `posenc: unknown command '${rest[0]}' (commands: ${Object.keys(COMMANDS).join(', ')})`);
      return 2;
    }
    say(io.stdout, rest[0] !== undefined ? commandHelp(rest[0]) : mainHelp());
    return 0;
  }
  if (command === '--version' || command === '-v') {
    say(io.stdout, VERSION);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    say(io.stderr, `posenc: unknown command '${command}' (commands: ${Object.keys(COMMANDS).join(', ')}; see posenc --help)`);
    return 2;
  }
  let tensor;
  let parsed;
  try {
    parsed = parseFlags(command, rest);
    if (parsed.help) {
      say(io.stdout, commandHelp(command));
      return 0;
    }
    const posenc = await import('../../dist/posenc.mjs');
    await posenc.init();
    tensor = COMMANDS[command].run(posenc, parsed.options);
  } catch (error) {
    if (error instanceof UsageError) {
      say(io.stderr, `posenc ${command}: ${error.message}\nsee 'posenc ${command} --help'`);
      return 2;
    }
    if (error instanceof TypeError || error instanceof RangeError) {
      // the library's own message, and the flag of the option it names
      const option = /^posenc\.\w+: (?:unknown option ')?([A-Za-z]+)/.exec(error.message)?.[1];
      const flag = Object.entries(COMMANDS[command].flags).find(([name, spec]) => optionOf(name, spec) === option)?.[0];
      say(io.stderr, error.message);
      say(io.stderr, `${flag ? `(${option} is --${flag}) ` : ''}see 'posenc ${command} --help'`);
      return 2;
    }
    say(io.stderr, `posenc ${command}: ${error.message}`);
    return 1;
  }
  const format = parsed.format ?? (parsed.out !== undefined ? formatOfPath(parsed.out) : undefined) ?? 'table';
  if (BINARY.has(format) && parsed.out === undefined && io.stdout.isTTY) {
    say(io.stderr, `posenc ${command}: refusing to write ${format} bytes to a terminal: add --out FILE or redirect stdout`);
    return 2;
  }
  const output = FORMATS[format](tensor);
  try {
    if (parsed.out !== undefined) writeFileSync(parsed.out, output);
    else await new Promise((resolve, reject) => io.stdout.write(output, (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    say(io.stderr, `posenc ${command}: cannot write ${parsed.out ?? 'stdout'}: ${error.message}`);
    return 1;
  }
  return 0;
}
