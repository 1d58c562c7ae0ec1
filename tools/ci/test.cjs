#!/usr/bin/env node
// `npm test`: lint, type checks and unit tests of every project (two at a time), then integration and
// end-to-end tests one project at a time (they start real processes, databases and Redis clients on two cores).
// Exits non-zero if anything failed; ends with the per-project counts.
const { spawnSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const path = require('node:path');

require('../node/require-node-24.cjs').requireNode24('npm test');

const root = path.resolve(__dirname, '../..');
const nx = path.join(root, 'node_modules/.bin/nx');
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };

rmSync(path.join(root, 'reports/jest'), { recursive: true, force: true });

const phases = [
  ['run-many', '-t', 'lint', 'typecheck', 'test', '--parallel=2', '--outputStyle=static'],
  ['run-many', '-t', 'integration', 'e2e', '--parallel=1', '--outputStyle=static'],
];

let failed = false;
for (const args of phases) {
  const result = spawnSync(nx, args, { cwd: root, env, stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}

process.stdout.write('\nTest results by project:\n');
spawnSync(process.execPath, [path.join(__dirname, 'summary.cjs'), '--by-project'], { stdio: 'inherit' });
process.exit(failed ? 1 : 0);
