import { type Server, type Socket, connect, createServer } from 'node:net';
import { LedgerRpc } from '@rp/ledger';
import { UNIT, startSandbox } from '@rp/sandbox';
import { type LedgerSandbox, freePort, startLedgerSandbox } from '../../test/service-processes.int-support';
import { LedgerView } from './ledger-view';

/** A plain TCP forwarder on loopback in front of `targetPort`: an RPC endpoint the test can take away. */
async function forwarder(targetPort: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * RPC failover against the real sandbox (issue 18 §3): a dead endpoint before it, a sandbox whose ledger stands
 * still before one whose ledger moves on, and the agent's catch-up when the endpoint it used goes away.
 */
describe('RPC failover on the sandbox', () => {
  let ledger: LedgerSandbox;

  beforeAll(async () => {
    ledger = await startLedgerSandbox();
  }, 120_000);

  afterAll(async () => {
    await ledger?.close();
  });

  const sandboxRpc = () => ledger.sandbox.rpcUrl;

  it('reads positions through the next endpoint when the first refuses connections, and names it by origin', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/rpc/PATH-KEY`;
    const owner = ledger.scenario.wallets[0].address;
    const view = new LedgerView(`${dead},${sandboxRpc()}`, owner, undefined);
    const [found] = await view.positions([ledger.scenario.pool]);
    expect(found.position.poolAddress).toBe(ledger.scenario.pool);
    expect(view.rpc.originInUse()).toBe(new URL(sandboxRpc()).origin);
    expect(view.rpc.endpoints()).toEqual([
      expect.objectContaining({ origin: new URL(dead).origin, inUse: false, resting: 'failure' }),
      expect.objectContaining({ origin: new URL(sandboxRpc()).origin, inUse: true, resting: null }),
    ]);
    expect(JSON.stringify(view.rpc.endpoints())).not.toContain('PATH-KEY');
  });

  it('moves off an endpoint whose latest ledger stands still while the other one moves on', async () => {
    const stalled = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    try {
      const rpc = new LedgerRpc({ rpcUrl: `${stalled.rpcUrl},${sandboxRpc()}`, staleAfterMs: 1000, backoffMs: 10 });
      const deadline = Date.now() + 30_000;
      while (rpc.originInUse() !== new URL(sandboxRpc()).origin && Date.now() < deadline) {
        await rpc.getLatestLedger();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(rpc.originInUse()).toBe(new URL(sandboxRpc()).origin);
      expect(rpc.endpoints()[0]).toMatchObject({ origin: new URL(stalled.rpcUrl).origin, resting: 'stale' });
    } finally {
      await stalled.close();
    }
  }, 60_000);

  it('on a 429 with Retry-After, rests that endpoint for as long as it asked, not the 30 s cooldown', async () => {
    const limited = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    try {
      limited.faults.add({ kind: 'http-error', status: 429, retryAfter: 3600, count: Infinity });
      const rpc = new LedgerRpc({ rpcUrl: `${limited.rpcUrl},${sandboxRpc()}`, cooldownMs: 1, backoffMs: 10 });
      await rpc.getLatestLedger();
      // A 1 ms cooldown would let the first endpoint be tried again by now; its Retry-After keeps it out.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await rpc.getLatestLedger();
      await rpc.getLatestLedger();
      expect(limited.control.dump().rpcCalls['getLatestLedger']).toBe(1);
      expect(rpc.endpoints()[0]).toMatchObject({ origin: new URL(limited.rpcUrl).origin, resting: 'failure' });
      expect(rpc.originInUse()).toBe(new URL(sandboxRpc()).origin);
    } finally {
      await limited.close();
    }
  }, 60_000);

  it('after the endpoint in use goes away, reads the missed ledgers` pool events naming the wallet', async () => {
    const first = await forwarder(Number(new URL(sandboxRpc()).port));
    const wallet = ledger.sandbox.control.setup.newAddresses(1)[0];
    ledger.sandbox.control.setup.fund(wallet, 100n * UNIT);
    const view = new LedgerView(`http://127.0.0.1:${first.port}/rpc,${sandboxRpc()}`, wallet, undefined);
    expect(await view.catchUp.beforeDecision([ledger.scenario.pool])).toBeUndefined();
    const before = (await ledger.rpc.getLatestLedger()).sequence;
    expect(view.rpc.originInUse()).toBe(`http://127.0.0.1:${first.port}`);

    await first.close();
    // While the agent's endpoint is gone, the wallet's position changes in the pool.
    ledger.sandbox.control.setup.openPosition(ledger.scenario.pool, {
      user: wallet,
      supplyCollateral: [{ asset: ledger.scenario.xlm, amount: 1_000n * UNIT }],
      borrow: [{ asset: ledger.scenario.usdc, amount: 100n * UNIT }],
    });
    const changedAt = (await ledger.rpc.getLatestLedger()).sequence;
    while ((await ledger.rpc.getLatestLedger()).sequence <= changedAt + 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const missed = await view.catchUp.beforeDecision([ledger.scenario.pool]);
    expect(missed).toMatchObject({ reason: 'endpoint-changed', walletPools: [ledger.scenario.pool] });
    expect(missed?.fromLedger).toBeLessThanOrEqual(before + 1);
    expect(missed?.toLedger).toBeGreaterThan(changedAt);
    expect(missed?.events).toBeGreaterThan(0);
    expect(view.rpc.originInUse()).toBe(new URL(sandboxRpc()).origin);
    const [found] = await view.positions([ledger.scenario.pool]);
    expect(found.position.liabilityValueUsd).toBeGreaterThan(0);
  }, 60_000);
});
