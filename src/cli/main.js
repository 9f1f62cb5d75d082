// main.js: posenc's command line. Parses argv by hand (no dependencies), runs
// one subcommand and writes its tensor as a torch-style table, CSV, JSON, raw
// little-endian bytes or NumPy .npy, a piece at a time. Every failure is one
// line on stderr and one of the exit statuses in EXIT; nothing is thrown.
import { constants } from '../../build/abi.js';
import { optionText } from '../js/core/option-text.js';
import { SPECS } from '../js/specs.js';
import { COMMANDS, UsageError, optionOf } from './commands.js';
import { BINARY, FORMATS, formatOfPath } from './formats.js';
import { PipeClosed, writeToFile, writeToStream } from './output.js';
import { closest } from '../js/core/suggest.js';

// the header's version: package.json states the same (tests/consumers/c-install.test.js)
const VERSION = `${constants.VERSION_MAJOR}.${constants.VERSION_MINOR}.${constants.VERSION_PATCH}`;

/** The exit statuses, as `posenc --help` and docs/cli.md list them. */
export const EXIT = {
  ok: 0, // written (also when the reader of stdout closed it early, as `head` does)
  failed: 1, // a file could not be read or written, or the machine ran out of memory
  usage: 2, // a bad command line: unknown command or flag, a missing or bad value (the library's message)
};

const COMMON = {
  format: `table (torch's repr, the default), csv, json, raw (little-endian float32/int32/float64) or npy`,
  out: 'write to this file instead of stdout (the format follows a .npy, .csv, .json, .bin or .txt name)',
  help: 'show this help',
};

const has = (object, key) => Object.hasOwn(object, key);
const commandList = () => Object.keys(COMMANDS).join(', ');
/** "unknown command 'x' (did you mean 'y'? commands: ...": the closest command, when one is close. */
const unknownCommand = (name) => {
  const close = closest(name, Object.keys(COMMANDS));
  return `unknown command '${name}' (${close ? `did you mean '${close}'? ` : ''}commands: ${commandList()}`;
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
    'exit status:',
    `  ${EXIT.ok}  written (also when the reader closes the pipe early: posenc ... | head)`,
    `  ${EXIT.failed}  a file could not be read or written, or memory ran out`,
    `  ${EXIT.usage}  bad command line: an unknown command or flag, a missing or bad value`,
    '',
  ].join('\n');
}

/**
 * A flag's help: its own words, then what the option allows and its default
 * as the API states them (C's parameter table, the spec: option-text.js).
 */
function flagHelp(command, name, flag) {
  const checker = SPECS[command.calls]?.[optionOf(name, flag)];
  const text = checker ? optionText(checker) : '';
  return text ? `${flag.help} (${text})` : flag.help;
}

function commandHelp(name) {
  const c = COMMANDS[name];
  const rows = [
    ...Object.entries(c.flags).map(([f, spec]) => [`--${f}${spec.kind === 'bool' ? ` | --no-${f}` : ''}`, flagHelp(c, f, spec)]),
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
const isBoolean = (text) => has(BOOLEANS, text.toLowerCase());

// A flag's text as the API value. Text that is not of the flag's kind goes to
// the library as it is, so the library's message ("must be an integer ...,
// got "ten"") explains it.
function readValue(name, kind, text) {
  if (kind === 'number') return NUMBER.test(text) ? Number(text) : text;
  if (kind === 'bool') return isBoolean(text) ? BOOLEANS[text.toLowerCase()] : text;
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

function unknownFlag(command, name) {
  const known = Object.keys({ ...COMMANDS[command].flags, ...COMMON });
  const close = closest(name, known);
  const hint = close ? `did you mean --${close}?` : `known: ${known.map((k) => `--${k}`).join(', ')}`;
  return new UsageError(`unknown flag --${name} for '${command}' (${hint})`);
}

/** Parses the flags after the command: { options, format, out, help }. */
export function parseFlags(command, args) {
  const { flags } = COMMANDS[command];
  // own flags only: --constructor or --to-string name no flag, whatever Object.prototype holds
  const flagOf = (name) => (has(flags, name) ? flags[name] : undefined);
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
    let spec = flagOf(name);
    if (!spec && name.startsWith('no-') && flagOf(name.slice(3))?.kind === 'bool' && text === undefined) {
      name = name.slice(3);
      spec = flagOf(name);
      text = 'false';
    }
    if (!spec && !has(COMMON, name)) throw unknownFlag(command, name);
    if (seen.has(name)) throw new UsageError(`--${name} is given twice`);
    seen.add(name);
    if (text === undefined) {
      const next = args[i + 1];
      if (spec?.kind === 'bool' && (next === undefined || next.startsWith('--') || !isBoolean(next))) {
        text = 'true';
      } else if (next === undefined || (next.startsWith('--') && next !== '--')) {
        throw new UsageError(`--${name} needs a value`);
      } else {
        text = next;
        i++;
      }
    }
    if (name === 'format') {
      if (!has(FORMATS, text)) throw new UsageError(`--format must be one of ${Object.keys(FORMATS).join(', ')}, got '${text}'`);
      parsed.format = text;
    } else if (name === 'out') {
      parsed.out = text;
    } else {
      parsed.options[optionOf(name, spec)] = readValue(name, spec.kind, text);
    }
  }
  return parsed;
}

// A message on one line (a library message never spans lines; this makes sure).
const oneLine = (text) => String(text).replace(/\s*\n\s*/g, ' ').trim();

/** The exit status and the one line that explain an error from running a command. */
function explain(command, error) {
  const help = `see 'posenc ${command} --help'`;
  if (error instanceof UsageError) return [EXIT.usage, `posenc ${command}: ${error.message} (${help})`];
  if ((error instanceof TypeError || error instanceof RangeError) && /^posenc\.\w+: /.test(error.message)) {
    // the library's own message, and the flag of the option it names
    const option = /^posenc\.\w+: (?:unknown option ')?([A-Za-z]+)/.exec(error.message)?.[1];
    const flag = Object.entries(COMMANDS[command].flags).find(([name, spec]) => optionOf(name, spec) === option)?.[0];
    return [EXIT.usage, `${error.message} (${flag ? `${option} is --${flag}; ` : ''}${help})`];
  }
  // a system error (ENOENT, EISDIR, ENOSPC, ...) names its file; anything else is out of memory or a fault
  return [EXIT.failed, `posenc ${command}: ${error.message}`];
}

/**
 * Runs the CLI: argv without `node posenc`; io = { stdout, stderr } streams
 * (stdout.isTTY is honoured). Resolves to the exit status; never rejects.
 */
export async function main(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  const say = (stream, text) => stream.write(text.endsWith('\n') ? text : `${text}\n`);
  const fail = (status, text) => {
    say(io.stderr, oneLine(text));
    return status;
  };
  const [command, ...rest] = argv;
  if (command === undefined) {
    return fail(EXIT.usage, `posenc ${VERSION}: a command is needed: posenc <command> [flags] (commands: ${commandList()}; see posenc --help)`);
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    if (rest[0] !== undefined && !has(COMMANDS, rest[0])) {
      return fail(EXIT.usage, `posenc: ${unknownCommand(rest[0])})`);
    }
    say(io.stdout, rest[0] !== undefined ? commandHelp(rest[0]) : mainHelp());
    return EXIT.ok;
  }
  if (command === '--version' || command === '-v') {
    say(io.stdout, VERSION);
    return EXIT.ok;
  }
  if (!has(COMMANDS, command)) {
    return fail(EXIT.usage, `posenc: ${unknownCommand(command)}; see posenc --help)`);
  }
  let tensor;
  let parsed;
  try {
    parsed = parseFlags(command, rest);
    if (parsed.help) {
      say(io.stdout, commandHelp(command));
      return EXIT.ok;
    }
    const posenc = await import('../js/index.js');
    await posenc.init();
    tensor = COMMANDS[command].run(posenc, parsed.options);
  } catch (error) {
    return fail(...explain(command, error));
  }
  const format = parsed.format ?? (parsed.out !== undefined ? formatOfPath(parsed.out) : undefined) ?? 'table';
  if (BINARY.has(format) && parsed.out === undefined && io.stdout.isTTY) {
    return fail(EXIT.usage, `posenc ${command}: refusing to write ${format} bytes to a terminal: add --out FILE or redirect stdout`);
  }
  try {
    const pieces = FORMATS[format](tensor);
    if (parsed.out !== undefined) writeToFile(parsed.out, pieces);
    else await writeToStream(io.stdout, pieces);
  } catch (error) {
    if (error instanceof PipeClosed) return EXIT.ok;
    if (error.code) return fail(EXIT.failed, `posenc ${command}: cannot write ${parsed.out ?? 'stdout'}: ${error.message}`);
    return fail(...explain(command, error));
  }
  return EXIT.ok;
}
