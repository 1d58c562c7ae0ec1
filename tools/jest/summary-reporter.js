// Writes one small JSON file per project and target, reports/jest/<project>/<target>/summary.json, so `.ci/run` can print
// "N passed, N failed" across every project and tier. The folder is the `test` target's declared output, so a
// cached unit run still counts. A suite that crashed before running its tests counts as one failure.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const crashedSuites = results.testResults.filter((suite) => suite.testExecError && suite.numFailingTests === 0);
    const project = process.env.NX_TASK_TARGET_PROJECT || path.basename(this.rootDir);
    const target = process.env.NX_TASK_TARGET_TARGET || 'jest';
    const summary = {
      project,
      target,
      passed: results.numPassedTests,
      failed: results.numFailedTests + crashedSuites.length,
      skipped: results.numPendingTests + results.numTodoTests,
      suites: results.numTotalTestSuites,
    };
    const dir = path.join(__dirname, '../../reports/jest', project, target);
    // One fixed name: the folder is a cached output, and files of earlier runs must not be counted again.
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
  }
}

module.exports = SummaryReporter;
