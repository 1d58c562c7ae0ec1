// Sums the Jest summaries under reports/jest: prints one line per project and target, then
// `N passed, N failed, N skipped` (skipped: cases declared but not run, e.g. a database driver the run cannot reach).
const fs = require('node:fs');
const path = require('node:path');

function summaries(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return summaries(full);
    return entry.name.endsWith('.json') ? [JSON.parse(fs.readFileSync(full, 'utf8'))] : [];
  });
}

function totals(reportsDir) {
  const runs = summaries(reportsDir);
  return {
    runs,
    passed: runs.reduce((sum, run) => sum + run.passed, 0),
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
    skipped: runs.reduce((sum, run) => sum + run.skipped, 0),
  };
}

module.exports = { totals };

if (require.main === module) {
  const { runs, passed, failed, skipped } = totals(path.join(__dirname, '../../reports/jest'));
  if (process.argv.includes('--by-project')) {
    for (const run of runs.sort((a, b) => `${a.project}:${a.target}`.localeCompare(`${b.project}:${b.target}`))) {
      process.stdout.write(
        `  ${`${run.project}:${run.target}`.padEnd(28)} ${run.passed} passed, ${run.failed} failed` +
          `${run.skipped > 0 ? `, ${run.skipped} skipped` : ''}\n`,
      );
    }
  }
  process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
}
