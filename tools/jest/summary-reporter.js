// Writes one small JSON file per Jest run under reports/jest/ so `.ci/run` can print "N passed, N failed"
// across every project and tier. A suite that crashed before running its tests counts as one failure.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const crashedSuites = results.testResults.filter((suite) => suite.testExecError && suite.numFailingTests === 0);
    const summary = {
      project: path.basename(this.rootDir),
      passed: results.numPassedTests,
      failed: results.numFailedTests + crashedSuites.length,
      skipped: results.numPendingTests + results.numTodoTests,
      suites: results.numTotalTestSuites,
    };
    const dir = path.join(__dirname, '../../reports/jest');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${summary.project}-${process.pid}-${Date.now()}.json`);
    fs.writeFileSync(file, JSON.stringify(summary));
  }
}

module.exports = SummaryReporter;
