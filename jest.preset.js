// Shared Jest setup for every project: SWC transforms (decorator metadata for Nest), the @rp/* path aliases,
// and a reporter that records pass/fail counts for `.ci/run`.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const aliases = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace('/', '\\/')}$`,
    path.join(__dirname, target),
  ]),
);

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(ts|js|mjs|cjs)$': ['@swc/jest', swc] },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper: aliases,
  testMatch: ['**/?(*.)+(spec|int-spec|e2e-spec).ts'],
  reporters: ['default', path.join(__dirname, 'tools/jest/summary-reporter.js')],
  testTimeout: 30000,
};
