// Source maps for the processes run from dist/dev (run-app.cjs): stack traces name the TypeScript file and line of
// our code. Not for node_modules: their maps (class-validator alone ships about 400) were read and kept by every
// process, about 3 MB of the agent's 100 (issue 17, docs/benchmarks.md), for frames that name sources the packages
// do not ship.
const { setSourceMapsSupport } = require('node:module');

function enableOwnSourceMaps() {
  setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
}

module.exports = { enableOwnSourceMaps };
