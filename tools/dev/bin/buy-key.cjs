#!/usr/bin/env node
// Buys an API key over x402 from a running stack (npm start) and prints it:
//   npm run buy-key -- --email you@example.com [--wallet healthy|endangered|"<mnemonic>"] [--project "My app"]
//                      [--gateway http://127.0.0.1:3000] [--rpc https://127.0.0.1:4443/rpc]
const path = require('node:path');
const { parseArgs } = require('node:util');

process.env.SWC_NODE_PROJECT ??= path.resolve(__dirname, '../../../tsconfig.base.json');
require('@swc-node/register');
const { buyKey, mnemonicFor, trustSandbox } = require('../src/buy-key.ts');

const { values } = parseArgs({
  options: {
    email: { type: 'string' },
    wallet: { type: 'string', default: 'healthy' },
    project: { type: 'string' },
    gateway: { type: 'string', default: process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000' },
    rpc: { type: 'string', default: process.env.SANDBOX_RPC_URL ?? 'https://127.0.0.1:4443/rpc' },
  },
});
if (!values.email) {
  process.stderr.write('usage: npm run buy-key -- --email you@example.com [--wallet healthy] [--project name]\n');
  process.exit(64);
}
trustSandbox();
// The x402 libraries log verbose errors of their own; the outcome is printed below.
console.error = () => undefined;
buyKey({
  gatewayUrl: values.gateway,
  rpcUrl: values.rpc,
  mnemonic: mnemonicFor(values.wallet),
  email: values.email,
  projectName: values.project,
}).then(
  ({ grant, txHash }) => {
    process.stdout.write(`${grant.apiKey}\n`);
    process.stderr.write(
      `tier ${grant.tier}, ${grant.rateLimit} requests/min, expires ${grant.expiresAt}, paid in transaction ${txHash}\n`,
    );
  },
  (error) => {
    process.stderr.write(`buy-key: ${error.message}\n`);
    process.exit(1);
  },
);
