#!/usr/bin/env node
// Buys an API key over x402 from a running stack (npm start) and prints it:
//   npm run buy-key -- --email you@example.com [--wallet healthy|endangered|"<mnemonic>"] [--project "My app"]
//                      [--max-price 0.50] [--pay-to G...] [--gateway http://127.0.0.1:3000]
//                      [--rpc https://127.0.0.1:4443/rpc]
const path = require('node:path');
const { parseArgs } = require('node:util');

const USAGE = `usage: npm run buy-key -- --email you@example.com [options]

Buys an API key with the direct x402 flow and prints it on stdout. The 402's offer is checked before anything is
signed: scheme exact, the network's USDC, a price within --max-price, the receiver --pay-to when given.

  --email <address>      email the key is bought with (required)
  --wallet <name>        healthy (default), endangered, or a BIP-39 mnemonic in quotes
  --project <name>       project name sent with the purchase
  --max-price <usd>      the most the key may cost, decimal USD (default 0.50)
  --pay-to <G-address>   pay only this receiver
  --gateway <url>        the gateway (default $GATEWAY_URL or http://127.0.0.1:3000)
  --rpc <url>            Soroban RPC, https (default $SANDBOX_RPC_URL or https://127.0.0.1:4443/rpc)
  --help                 this text
`;

const fail = (message) => {
  process.stderr.write(`buy-key: ${message}\n\n${USAGE}`);
  process.exit(64);
};

let values;
try {
  ({ values } = parseArgs({
    options: {
      email: { type: 'string' },
      wallet: { type: 'string', default: 'healthy' },
      project: { type: 'string' },
      'max-price': { type: 'string' },
      'pay-to': { type: 'string' },
      gateway: { type: 'string', default: process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000' },
      rpc: { type: 'string', default: process.env.SANDBOX_RPC_URL ?? 'https://127.0.0.1:4443/rpc' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  fail(error.message);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!values.email) fail('--email is required');
if (values['max-price'] !== undefined && !/^(0|[1-9]\d{0,8})(\.\d{1,7})?$/.test(values['max-price'])) {
  fail(`--max-price must be a USD amount with at most 7 decimals (got "${values['max-price']}")`);
}
if (values['pay-to'] !== undefined && !/^G[A-Z2-7]{55}$/.test(values['pay-to'])) {
  fail(`--pay-to must be a G-address (got "${values['pay-to']}")`);
}

process.env.SWC_NODE_PROJECT ??= path.resolve(__dirname, '../../../tsconfig.base.json');
require('@swc-node/register');
const { buyKey, describeKey, mnemonicFor, trustSandbox } = require('../src/buy-key.ts');

trustSandbox();
// The x402 libraries log verbose errors of their own; the outcome is printed below.
console.error = () => undefined;
buyKey({
  gatewayUrl: values.gateway,
  rpcUrl: values.rpc,
  mnemonic: mnemonicFor(values.wallet),
  email: values.email,
  projectName: values.project,
  maxPriceUsd: values['max-price'],
  payTo: values['pay-to'],
}).then(
  async ({ grant, txHash }) => {
    // The key first: it is paid for and shown once, whatever happens next.
    process.stdout.write(`${grant.apiKey}\n`);
    try {
      const key = await describeKey(values.gateway, grant.apiKey);
      process.stderr.write(
        `tier ${key.tier}, ${key.rateLimit} requests/min (bursts of ${key.burst}), expires ${key.expiresAt}, ` +
          `account ${key.account}, paid in transaction ${txHash}\n`,
      );
    } catch (error) {
      process.stderr.write(
        `buy-key: bought in transaction ${txHash}, but GET /api/v1/keys/me failed: ${error.message}\n`,
      );
      process.exitCode = 1;
    }
  },
  (error) => {
    process.stderr.write(`buy-key: ${error.message}\n`);
    process.exit(1);
  },
);
