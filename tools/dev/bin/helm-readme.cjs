#!/usr/bin/env node
// Writes a Helm chart's README.md from its Chart.yaml and the comments of its values.yaml:
//   node tools/dev/bin/helm-readme.cjs [k8s/helm/agent]
const { writeFileSync } = require('node:fs');
const path = require('node:path');

process.env.SWC_NODE_PROJECT ??= path.resolve(__dirname, '../../../tsconfig.base.json');
require('@swc-node/register');
const { renderHelmReadme } = require('../src/helm-readme.ts');
const chartDir = path.resolve(process.argv[2] ?? path.resolve(__dirname, '../../../k8s/helm/agent'));
writeFileSync(path.join(chartDir, 'README.md'), renderHelmReadme(path.relative(process.cwd(), chartDir) || '.'));
process.stdout.write(`wrote ${path.join(chartDir, 'README.md')}\n`);
