/**
 * `POST /api/v1/txb/submit` in-process against the sandbox and the test Redis: a signed proposal goes to the network
 * and on to `confirmed`; every way a submission is refused, each with its status; the RPCs a caller may name;
 * TRY_AGAIN_LATER retried; an answer lost after the ledger took the transaction.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { CallerIdentity } from '@rp/contracts';
import { type LedgerWallet, networkPassphrase, parseEnvelope } from '@rp/ledger';
import { createApp, initApp, loadConfig, signInternalRequest } from '@rp/platform';
import { UNIT } from '@rp/sandbox';
import request from 'supertest';
import { type TxbHarness, redisDatabase, startTxbHarness } from '../../test/txb.int-support';
import { TxbConfig } from '../config/txb.config';
import { txbApp } from '../txb.app';

const TOKEN = 'internal-token-for-txb-integration-tests';
const TESTNET = networkPassphrase('ledger:testnet');
const PUBNET = networkPassphrase('ledger:pubnet');
const hashOf = (envelope: string) => {
  const parsed = parseEnvelope(envelope, TESTNET);
  if (!parsed.ok) throw new Error('not an envelope');
  return parsed.hash;
};

/** An HTTP server that counts the RPC methods it is asked for and forwards them to `target()` when it names one. */
async function countingRpc(
  target: () => string | undefined,
): Promise<{ url: string; calls: string[]; server: Server }> {
  const calls: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      calls.push((JSON.parse(body.toString() || '{}') as { method?: string }).method ?? '?');
      const to = target();
      if (!to) {
        res.writeHead(500).end();
        return;
      }
      void fetch(to, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) =>
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
        )
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`, calls, server };
}

describe('submitting signed proposals', () => {
  let h: TxbHarness;
  /** An RPC provider on the allowed list (forwarding to the sandbox), and one that is not (answering nothing). */
  let allowed: Awaited<ReturnType<typeof countingRpc>>;
  let stranger: Awaited<ReturnType<typeof countingRpc>>;
  let shortLived: NestFastifyApplication;
  let expiring: { caller: CallerIdentity; wallet: LedgerWallet; id: string; signed: string; expiresAt: number };

  beforeAll(async () => {
    stranger = await countingRpc(() => undefined);
    allowed = await countingRpc(() => h?.sandbox.rpcUrl);
    h = await startTxbHarness({ redisDb: 12, env: { TXB_ALLOWED_RPC_URLS: allowed.url } });

    // A second replica whose proposals live 30 s: one is built now and submitted once it has expired.
    const config = loadConfig(TxbConfig, {
      REDIS_URL: redisDatabase(12),
      CONTRACT_RPC_URL: h.sandbox.rpcUrl,
      PROPOSAL_TTL_SECONDS: '30',
      INTERNAL_TOKEN: TOKEN,
      LOG_LEVEL: 'silent',
    });
    shortLived = await initApp(await createApp(txbApp, config));
    const caller = h.caller();
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const path = '/api/v1/txb/build';
    const body = JSON.stringify({
      action: 'REPAY',
      walletAddress: wallet.address,
      poolAddress: h.scenario.pool,
      tokenId: h.scenario.usdc,
    });
    const built = await request(shortLived.getHttpServer())
      .post(path)
      .set({
        ...signInternalRequest({
          token: TOKEN,
          method: 'POST',
          path,
          requestId: 'short-lived',
          identity: caller,
          body,
        }),
        'x-request-id': 'short-lived',
        'content-type': 'application/json',
      })
      .send(body);
    expect(built.status).toBe(200);
    expiring = {
      caller,
      wallet,
      id: built.body.proposal.id,
      signed: h.sign(wallet, built.body.transaction.transactionXdr),
      expiresAt: Date.parse(built.body.proposal.expiresAt),
    };
  }, 90_000);

  afterAll(async () => {
    await shortLived?.close();
    await h?.close();
    stranger?.server.close();
    allowed?.server.close();
  });

  const submit = (caller: CallerIdentity, body: object) => h.call('POST', '/api/v1/txb/submit', caller, body);
  const buildRepay = async (caller: CallerIdentity, wallet: LedgerWallet, extra: object = {}) => {
    const built = await h.call('POST', '/api/v1/txb/build', caller, {
      action: 'REPAY',
      walletAddress: wallet.address,
      poolAddress: h.scenario.pool,
      tokenId: h.scenario.usdc,
      ...extra,
    });
    expect(built.status).toBe(200);
    return built.body as { transaction: { transactionXdr: string }; proposal: { id: string } };
  };
  const sendCount = () => h.sandbox.control.dump().rpcCalls['sendTransaction'] ?? 0;

  it('sends the signed proposal; the tracker reports it confirmed; the debt is gone and the excess refunded', async () => {
    const caller = h.caller();
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const usdcBefore = h.sandbox.control.setup.balance(h.scenario.usdc, wallet.address);
    const built = await buildRepay(caller, wallet);
    const signed = h.sign(wallet, built.transaction.transactionXdr);
    const answer = await submit(caller, { transactionXdr: signed });
    expect(answer.status).toBe(200);
    const hash = hashOf(signed);
    expect(answer.body).toEqual({ success: true, txHash: hash });
    const confirmed = await h.proposalIn(caller, wallet.address, built.proposal.id, ['confirmed', 'failed']);
    expect(confirmed).toMatchObject({ status: 'confirmed', txHash: hash });
    expect((await h.rpc.getTransaction(hash)).status).toBe('SUCCESS');
    const paid = usdcBefore - h.sandbox.control.setup.balance(h.scenario.usdc, wallet.address);
    const sent = (BigInt(1_000n * UNIT) * 10_050n) / 10_000n;
    expect(paid).toBeGreaterThanOrEqual(1_000n * UNIT);
    expect(paid).toBeLessThan(sent); // the pool kept the debt and refunded the rest of what was sent

    // Submitting it again is answered from the proposal, without a second send.
    const sends = sendCount();
    expect((await submit(caller, { transactionXdr: signed })).body).toEqual({ success: true, txHash: hash });
    expect(sendCount()).toBe(sends);
  });

  it('keeps proposals to the account: another of its keys lists and submits one, another account none', async () => {
    const account = `partner:team-${Date.now().toString(36)}`;
    const builder = { ...h.caller(account), email: 'team@example.com' };
    const colleague = h.caller(account);
    // Another account whose key carries the same email: the email is a contact, never an account.
    const stranger = { ...h.caller(), email: 'team@example.com' };
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await buildRepay(builder, wallet);
    const list = (who: CallerIdentity) => h.call('GET', `/api/v1/txb/proposals?wallet=${wallet.address}`, who);
    expect((await list(colleague)).body.proposals.map((p: { id: string }) => p.id)).toEqual([built.proposal.id]);
    expect((await list(stranger)).body).toMatchObject({ proposals: [], total: 0 });

    const signed = h.sign(wallet, built.transaction.transactionXdr);
    const sends = sendCount();
    const refused = await submit(stranger, { transactionXdr: signed });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 404, code: 'PROPOSAL_NOT_FOUND' });
    expect(sendCount()).toBe(sends);
    const accepted = await submit(colleague, { transactionXdr: signed });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ success: true, txHash: hashOf(signed) });
  });

  it('refuses what is not a signed envelope of a proposal of yours, with a clear 4xx and nothing sent', async () => {
    const caller = h.caller();
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await buildRepay(caller, wallet);
    const unsigned = built.transaction.transactionXdr;
    const forPubnet = wallet.signTransactionXdr(unsigned, PUBNET);
    const sends = sendCount();
    const cases: [string, CallerIdentity, object, number, string][] = [
      ['garbage', caller, { transactionXdr: 'bm90IGFuIGVudmVsb3Bl' }, 400, 'VALIDATION_FAILED'],
      ['not base64', caller, { transactionXdr: '%%%' }, 400, 'VALIDATION_FAILED'],
      ['unsigned', caller, { transactionXdr: unsigned }, 400, 'TRANSACTION_UNSIGNED'],
      ['signed for another network', caller, { transactionXdr: forPubnet }, 400, 'WRONG_NETWORK'],
      ["someone else's", h.caller(), { transactionXdr: h.sign(wallet, unsigned) }, 404, 'PROPOSAL_NOT_FOUND'],
    ];
    for (const [name, who, body, status, code] of cases) {
      const answer = await submit(who, body);
      expect({ name, status: answer.status, code: answer.body.code }).toEqual({ name, status, code });
    }
    const garbage = await submit(caller, { transactionXdr: 'bm90IGFuIGVudmVsb3Bl' });
    expect(garbage.body.details).toEqual([{ field: 'transactionXdr', message: expect.any(String) }]);
    expect(sendCount()).toBe(sends);
    const listed = await h.call('GET', `/api/v1/txb/proposals?wallet=${wallet.address}`, caller);
    expect(listed.body.proposals[0].status).toBe('pending');
  });

  it('refuses an RPC that is not allowed without calling it, and submits through one that is', async () => {
    const caller = h.caller();
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await buildRepay(caller, wallet);
    const signed = h.sign(wallet, built.transaction.transactionXdr);
    const refused = await submit(caller, { transactionXdr: signed, rpcUrl: stranger.url });
    expect([refused.status, refused.body.code]).toEqual([400, 'RPC_URL_NOT_ALLOWED']);
    expect(refused.body.details).toEqual([{ field: 'rpcUrl', message: expect.any(String) }]);
    expect(stranger.calls).toEqual([]);

    const through = await submit(caller, { transactionXdr: signed, rpcUrl: allowed.url });
    expect(through.status).toBe(200);
    expect(allowed.calls).toContain('sendTransaction');
    await h.proposalIn(caller, wallet.address, built.proposal.id, ['confirmed']);
    expect(stranger.calls).toEqual([]);
  });

  it('answers 422 SUBMISSION_FAILED with the result code when the network refuses the transaction', async () => {
    const caller = h.caller();
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    // Two proposals on the same sequence number: once one is in, the other can never be.
    const first = await buildRepay(caller, wallet, { amount: String(100n * UNIT) });
    const second = await buildRepay(caller, wallet, { amount: String(200n * UNIT) });
    expect((await submit(caller, { transactionXdr: h.sign(wallet, first.transaction.transactionXdr) })).status).toBe(
      200,
    );
    await h.proposalIn(caller, wallet.address, first.proposal.id, ['confirmed']);
    const refused = await submit(caller, { transactionXdr: h.sign(wallet, second.transaction.transactionXdr) });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'SUBMISSION_FAILED', resultCode: 'txBadSeq' });
    const failed = await h.proposalIn(caller, wallet.address, second.proposal.id, ['failed']);
    expect(failed.failure).toMatchObject({ reason: 'rejected', resultCode: 'txBadSeq' });

    // Signed by a key that is not the wallet's: the network says txBadAuth.
    const third = await buildRepay(
      caller,
      h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT }),
    );
    const forged = h.stranger().signTransactionXdr(third.transaction.transactionXdr, TESTNET);
    const badAuth = await submit(caller, { transactionXdr: forged });
    expect([badAuth.status, badAuth.body.resultCode]).toEqual([422, 'txBadAuth']);
  });

  it('retries TRY_AGAIN_LATER with backoff until the network takes the transaction', async () => {
    const caller = h.caller();
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await buildRepay(caller, wallet);
    h.sandbox.faults.add({ kind: 'try-again-later', count: 3 });
    const sends = sendCount();
    const answer = await submit(caller, { transactionXdr: h.sign(wallet, built.transaction.transactionXdr) });
    expect(answer.status).toBe(200);
    expect(sendCount() - sends).toBe(4);
    await h.proposalIn(caller, wallet.address, built.proposal.id, ['confirmed']);
  });

  it('finds the transaction confirmed when the answer was lost after the ledger took it', async () => {
    const caller = h.caller();
    const wallet = h.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 10n * UNIT });
    const built = await buildRepay(caller, wallet);
    const signed = h.sign(wallet, built.transaction.transactionXdr);
    // The ledger takes the transaction, but every answer to our sendTransaction is lost.
    expect(h.sandbox.ledger.submit(signed).status).toBe('PENDING');
    h.sandbox.faults.add({ method: 'sendTransaction', kind: 'http-error', count: Number.POSITIVE_INFINITY });
    let answer;
    try {
      answer = await submit(caller, { transactionXdr: signed });
    } finally {
      h.sandbox.faults.clear();
    }
    expect([answer.status, answer.body.code]).toEqual([502, 'LEDGER_UNAVAILABLE']);
    const confirmed = await h.proposalIn(caller, wallet.address, built.proposal.id, ['confirmed', 'failed']);
    expect(confirmed.status).toBe('confirmed');
  });

  it('refuses an expired proposal with 410 and lists it as failed', async () => {
    const { caller, wallet, id, signed, expiresAt } = expiring;
    // Waits out whatever is left of the 30 s lifetime (the suite's other cases ran meanwhile).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 50)));
    const answer = await submit(caller, { transactionXdr: signed });
    expect([answer.status, answer.body.code]).toEqual([410, 'PROPOSAL_EXPIRED']);
    const listed = await h.call('GET', `/api/v1/txb/proposals?wallet=${wallet.address}`, caller);
    expect(listed.body.proposals.find((p: { id: string }) => p.id === id)).toMatchObject({
      status: 'failed',
      failure: { reason: 'expired' },
    });
  }, 60_000);
});
