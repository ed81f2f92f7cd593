/**
 * The `sluice` command line: `sluice get|put [-r] SOURCE… DEST` over the same engine as the desktop app.
 * Exit codes: 0 all done and verified, 1 some transfer failed, 2 usage, 3 authentication, 4 host key
 * refused, 5 remote not found or permission denied, 6 local error, 7 host not found, 130 interrupted (SIGINT), 143
 * terminated (SIGTERM), 129 hangup (SIGHUP), 141 stdout's reader went away (SIGPIPE), 149 Ctrl+Break (Windows).
 *
 * The pieces live in ./cli/: the grammar (program.ts), URLs (remoteSpec.ts), prompts (prompt.ts), event output and
 * progress bar (output.ts, progressBar.ts), units (units.ts), the summary (summary.ts), fatal errors (fatal.ts),
 * signals (signals.ts), the resume journal (resume.ts) and the tries after a transient failure (retry.ts).
 *
 * Start-up: `--version` alone loads nothing beyond cli/version.ts. Otherwise commander and get's and put's grammar
 * (cli/program.ts) load, and every other command's module, like get's and put's run (cli/transferCommand.ts, the
 * engine behind it), is imported when that command runs ({@link LAZY_COMMANDS}): `sluice --version` or `sluice queue
 * list` never load ssh2 or zod (CONTRIBUTING.md "A new CLI command"). `--help` and an unknown command load them all.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { toFatal, wantsJson, writeFatal, type FatalError } from './cli/fatal';
import type { RunCommand } from './cli/program';
import { quietOnClosedPipe } from './cli/closedPipe';
import { packageVersion } from './cli/version';

/** Adds one module's commands to the program. */
type AddCommands = (program: Command) => void;

/**
 * The commands beside get and put, in the order `sluice --help` lists them: their names and how to load the module
 * that adds them. A command's module is imported only when that command runs (or for the whole help).
 */
export const LAZY_COMMANDS: readonly { names: readonly string[]; load: () => Promise<AddCommands> }[] = [
  { names: ['queue'], load: async () => (await import('./cli/queueCommands')).addQueueCommands },
  { names: ['sites'], load: async () => (await import('./cli/sitesCommands')).addSitesCommands },
  {
    names: ['ls', 'stat', 'mkdir', 'rm', 'mv', 'chmod', 'ln', 'df'],
    load: async () => (await import('./cli/fileCommands')).addFileCommands,
  },
  { names: ['sync'], load: async () => (await import('./cli/syncCommand')).addSyncCommand },
  { names: ['bench-ciphers'], load: async () => (await import('./cli/benchCiphers')).addBenchCiphersCommand },
];

/** get and put, with their run (and the engine) loaded when one of them runs. */
const runTransfer: RunCommand = async (direction, operands, opts) =>
  (await import('./cli/transferCommand')).run(direction, operands, opts);

/**
 * The modules a command line needs: none beyond get and put for those and for `--version`, the one module of a
 * named command, every one for `--help`, `help` and anything unknown (commander's help and suggestions list them all).
 */
function commandsFor(first: string | undefined): readonly (typeof LAZY_COMMANDS)[number][] {
  if (first === 'get' || first === 'put' || first === '--version' || first === '-V') return [];
  const named = LAZY_COMMANDS.find((c) => first !== undefined && c.names.includes(first));
  return named ? [named] : LAZY_COMMANDS;
}

/**
 * Runs the CLI.
 * @param argv process.argv-style (node, script, args…)
 * @returns the exit code
 */
export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipe();
  // `sluice --version` alone is answered before commander and the grammar load (what commander would print).
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const [{ CommanderError }, { buildProgram, helpHintPerCommand }] = await Promise.all([
    import('commander'),
    import('./cli/program'),
  ]);
  const program = buildProgram(runTransfer);
  try {
    for (const add of await Promise.all(commandsFor(argv[2]).map((c) => c.load()))) add(program);
    helpHintPerCommand(program);
    if (argv.length <= 2) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync(argv);
    return (program.getOptionValue('exitCode') as number | undefined) ?? 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0;
      // Commander has printed its message (and the usage hint) on stderr.
      const f: FatalError = { type: 'error', code: 'USAGE', message: e.message.replace(/^error: /, ''), exitCode: 2 };
      return writeFatal(f, wantsJson(argv), { humanAlreadyShown: true });
    }
    return writeFatal(toFatal(e), wantsJson(argv));
  }
}

/** The path of the compiled CLI, for tests and benchmarks that spawn it. */
export const CLI_BIN = path.join(__dirname, '..', '..', '..', 'bin', 'sluice.js');
