// The command-line contract of the workspace's scripts (bench.cjs, run-app.cjs, settings.cjs): `node:util`
// parseArgs with positionals and -h/--help; a bad option prints the message and the usage and exits 64 (EX_USAGE),
// --help prints the usage and exits 0, and the positionals must match `valid` (the usage and 64 otherwise).
const { parseArgs } = require('node:util');

/**
 * @param {string} usage the script's usage text
 * @param {{ options?: import('node:util').ParseArgsConfig['options'], valid: (positionals: string[]) => boolean }} spec
 * @returns {{ values: Record<string, unknown>, positionals: string[] }}
 */
function parseCli(usage, { options = {}, valid }) {
  let args;
  try {
    args = parseArgs({ allowPositionals: true, options: { ...options, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    process.stderr.write(`${error.message}\n\n${usage}`);
    process.exit(64);
  }
  if (args.values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  if (!valid(args.positionals)) {
    process.stderr.write(usage);
    process.exit(64);
  }
  return args;
}

module.exports = { parseCli };
