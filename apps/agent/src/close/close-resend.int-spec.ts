import { LedgerWallet, MIN_INCLUSION_FEE, inclusionFeeOf, signAhead } from '@rp/ledger';
import { loadConfig } from '@rp/platform-core';
import { DEMO_WALLETS, UNIT } from '@rp/sandbox';
import pino from 'pino';
import type { LedgerSandbox } from '../../test/service-processes.int-support';
import { STORM, startStormLedger, stopStormLedger } from '../../test/storm-ledger.int-support';
import { AgentConfig } from '../config/agent.config';
import { LedgerView } from '../ledger/ledger-view';
import { AgentMetrics } from '../metrics/agent-metrics';
import { ServiceClient } from '../service/service-client';
import type { SentTransactions } from './close-audit';
import { CloseBuilder } from './close-builder';
import type { ChosenClose } from './close-choice';
import { CloseRepricer } from './close-repricer';
import { CloseResend } from './close-resend';
import { CloseSender } from './close-sender';
import { SigningGuard } from './signing-guard';
import { SigningRefusals } from './signing-refusals';

/**
 * A close the storm leaves out is re-priced (issue 18 §2), on the sandbox ledger: sent at the minimum fee, it waits
 * behind the storm; each ledger without it, the agent re-signs it (same sequence number) at the next step's bid, which
 * the network's queue takes once the first has timed out of it (4 ledgers, as stellar-core); the re-priced close lands
 * and both transactions are in `attempts`.
 */
describe('a close left out of the ledger is re-priced', () => {
  let ledger: LedgerSandbox;

  beforeAll(async () => {
    ledger = await startStormLedger();
  }, 180_000);

  afterAll(async () => {
    await stopStormLedger(ledger);
  });

  it('sends it again at a higher fee until it lands; attempts has the one left out and the one included', async () => {
    const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, {
      index: 7000 + Math.floor(Math.random() * 10_000),
    });
    const { setup } = ledger.sandbox.control;
    setup.fund(wallet.address, 100n * UNIT, 'resend wallet');
    setup.openPosition(ledger.scenario.pool, {
      user: wallet.address,
      supplyCollateral: [{ asset: ledger.scenario.xlm, amount: 10_000n * UNIT }],
      borrow: [{ asset: ledger.scenario.usdc, amount: 1_000n * UNIT }],
    });
    const view = new LedgerView(ledger.sandbox.rpcUrl, wallet.address, ledger.scenario.swapReceiver);
    const config = loadConfig(AgentConfig, {
      LEDGER_MNEMONIC: DEMO_WALLETS.healthy.mnemonic,
      CONTRACT_RPC_URL: ledger.sandbox.rpcUrl,
      UNWIND_RECEIVER: ledger.scenario.swapReceiver,
      WATCHED_POOLS: ledger.scenario.pool,
    });
    const logger = pino({ level: 'silent' });
    const guard = new SigningGuard(config, wallet.address, view, new SigningRefusals(logger, new AgentMetrics()));
    // Nothing here asks the service: the close is the agent's own build, sent to the ledger only.
    const sender = new CloseSender(view, new ServiceClient('http://127.0.0.1:9'), 250);
    const resend = new CloseResend(sender, new CloseRepricer(wallet, new CloseBuilder(config, view), guard), logger);

    // The first attempt at the minimum fee (a close signed ahead before the storm): the storm outbids it.
    const built = await view.buildClose(ledger.scenario.pool, 'unwind', 1.5, 50);
    expect(inclusionFeeOf(built.unsignedXdr)).toBe(MIN_INCLUSION_FEE);
    const checked = await guard.check(ledger.scenario.pool, built);
    if (!checked.ok) throw new Error(`refused: ${checked.reason}`);
    const signed = signAhead(wallet, built.unsignedXdr, await ledger.rpc.networkPassphrase());
    const first: ChosenClose = { signed, builtBy: 'ledger', rule: checked.context, path: 'rebuilt' };
    const sentAt = (await ledger.rpc.getLatestLedger()).sequence;
    expect(await sender.send(signed, undefined)).toMatchObject({ accepted: true });

    const reported: SentTransactions[] = [];
    const deadline = Date.now() + 90_000;
    const { final, sent } = await resend.follow(
      first,
      undefined,
      async (resent) => void reported.push(structuredClone(resent)),
      () => Date.now() > deadline,
    );

    expect(final.state).toBe('confirmed');
    expect(final.hash).not.toBe(signed.hash);
    expect(sent.txHash).toBe(final.hash);
    const [left, ...rest] = sent.attempts;
    expect(left).toMatchObject({ txHash: signed.hash, fee: '100', outcome: 'not_included' });
    const landed = rest[rest.length - 1];
    expect(landed).toMatchObject({ txHash: final.hash, outcome: 'included' });
    // The storm bids 1000: p95 + 25% of what it is charged; never above the cap.
    expect(BigInt(landed.fee)).toBeGreaterThan(BigInt(STORM.inclusionFee));
    expect(BigInt(landed.fee)).toBeLessThanOrEqual(BigInt(config.MAX_CLOSE_FEE_STROOPS));
    expect(reported[reported.length - 1].txHash).toBe(final.hash);
    // Same sequence number: the first is never included, and the re-priced one is in within a few ledgers of its send.
    expect((await ledger.rpc.getTransaction(signed.hash)).status).toBe('NOT_FOUND');
    const included = await ledger.rpc.getTransaction(final.hash);
    expect(included.status).toBe('SUCCESS');
    if (included.status === 'SUCCESS') expect(included.ledger).toBeLessThanOrEqual(sentAt + 8);
  }, 150_000);
});
