import { cpus } from 'node:os';
import {
  Account,
  Contract,
  Keypair,
  Networks,
  TransactionBuilder,
  nativeToScVal,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { LedgerWallet, REQUEST_TYPES, encodeRequest, positionsKey } from '@rp/ledger';
import { DEMO_WALLETS, type LoadedScenario, type RunningSandbox, UNIT, startSandbox } from '@rp/sandbox';
import { measure, table } from './stats';

/** 200 borrowers in the demo pool, and the ledger keys of their positions. */
function seedPositions(sandbox: RunningSandbox, scenario: LoadedScenario) {
  const users = Array.from({ length: 200 }, () => Keypair.random().publicKey());
  for (const user of users) {
    sandbox.control.setup.fund(user, 10n * UNIT);
    sandbox.control.setup.openPosition(scenario.pool, {
      user,
      supplyCollateral: [{ asset: scenario.xlm, amount: 1_000n * UNIT }],
      borrow: [{ asset: scenario.usdc, amount: 100n * UNIT }],
    });
  }
  const positionKeys = users.map((user) =>
    xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Contract(scenario.pool).address().toScAddress(),
        key: positionsKey(user),
        durability: xdr.ContractDataDurability.persistent(),
      }),
    ),
  );
  return positionKeys;
}

/** A SEP-41 transfer and a Blend repay of the demo wallet, built (not signed). */
function builtTransactions(scenario: LoadedScenario, wallet: LedgerWallet) {
  const account = new Account(wallet.address, '0');
  const transferOperation = () =>
    new Contract(scenario.usdc).call(
      'transfer',
      nativeToScVal(wallet.address, { type: 'address' }),
      nativeToScVal(scenario.paymentReceiver, { type: 'address' }),
      nativeToScVal(2_026_000n, { type: 'i128' }),
    );
  const transfer = new TransactionBuilder(account, { fee: '100', networkPassphrase: Networks.TESTNET })
    .addOperation(transferOperation())
    .setTimeout(300)
    .build();
  const user = nativeToScVal(wallet.address, { type: 'address' });
  const repay = new TransactionBuilder(account, { fee: '100', networkPassphrase: Networks.TESTNET })
    .addOperation(
      new Contract(scenario.pool).call(
        'submit',
        user,
        user,
        user,
        xdr.ScVal.scvVec([encodeRequest({ requestType: REQUEST_TYPES.Repay, address: scenario.usdc, amount: UNIT })]),
      ),
    )
    .setTimeout(300)
    .build();
  return { transferOperation, transfer, repay };
}

/**
 * How fast the sandbox answers the calls the services make most, through the SDK over loopback HTTP, so later
 * benchmarks can show the sandbox is not their bottleneck: `simulateTransaction` of a token transfer and of a
 * pool repay, `getLedgerEntries` for 200 position keys (monitoring's batched read), and send-to-applied.
 */
async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
  const scenario = sandbox.scenario;
  if (!scenario) throw new Error('demo scenario missing');
  const server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
  const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic);

  const positionKeys = seedPositions(sandbox, scenario);
  const { transferOperation, transfer, repay } = builtTransactions(scenario, wallet);

  const timings = [
    await measure('simulateTransaction: SEP-41 transfer', 500, () => server.simulateTransaction(transfer)),
    await measure('simulateTransaction: Blend pool repay', 500, () => server.simulateTransaction(repay)),
    await measure('getLedgerEntries: 200 position keys', 200, async () => {
      const { entries } = await server.getLedgerEntries(...positionKeys);
      if (entries.length !== 200) throw new Error(`expected 200 entries, got ${entries.length}`);
    }),
    await measure('getLatestLedger', 500, () => server.getLatestLedger()),
    await measure(
      'sendTransaction + closeLedger + getTransaction (transfer)',
      100,
      async () => {
        const payer = await server.getAccount(wallet.address);
        const tx = await server.prepareTransaction(
          new TransactionBuilder(payer, { fee: '100', networkPassphrase: Networks.TESTNET })
            .addOperation(transferOperation())
            .setTimeout(300)
            .build(),
        );
        wallet.signTransaction(tx);
        const sent = await server.sendTransaction(tx);
        sandbox.ledger.closeLedger();
        const result = await server.getTransaction(sent.hash);
        if (result.status !== 'SUCCESS') throw new Error(`transfer ${result.status}`);
      },
      5,
    ),
  ];
  await sandbox.close();
  process.stdout.write(
    `\nSandbox benchmark, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'})\n\n`,
  );
  process.stdout.write(`${table(timings)}\n\n${JSON.stringify(timings)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
