import { Address, rpc, xdr } from '@stellar/stellar-sdk';
import { createEd25519Signer } from '@x402/stellar';
import { ExactStellarScheme as ExactStellarClient } from '@x402/stellar/exact/client';
import { ExactStellarScheme as ExactStellarFacilitator } from '@x402/stellar/exact/facilitator';
import { LedgerWallet } from '@rp/ledger';
import { address } from './contracts/scval';
import { DEMO_WALLETS, startSandbox, trustSandboxCertificate, type RunningSandbox } from './index';

/**
 * The official x402 stack on the sandbox, unmodified: `@x402/stellar`'s client builds and signs a payment with a
 * SEP-5 wallet, its facilitator verifies and settles it with the sponsor account paying the fee.
 */
describe('x402 exact scheme on the sandbox ledger', () => {
  let sandbox: RunningSandbox;
  let server: rpc.Server;
  const payer = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic);

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 250 });
    trustSandboxCertificate(sandbox.tlsCertificate);
    server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
  });

  afterAll(() => sandbox.close());

  const scenario = () => {
    if (!sandbox.scenario) throw new Error('demo scenario missing');
    return sandbox.scenario;
  };
  const requirements = () => ({
    scheme: 'exact',
    network: 'stellar:testnet' as const,
    amount: '2026000',
    asset: scenario().usdc,
    payTo: scenario().paymentReceiver,
    maxTimeoutSeconds: 600,
    extra: { areFeesSponsored: true },
  });
  const usdcBalance = (owner: string) => sandbox.control.setup.balance(scenario().usdc, owner);
  const facilitator = () =>
    new ExactStellarFacilitator([createEd25519Signer(scenario().sponsor.secret, 'stellar:testnet')], {
      rpcConfig: { url: sandbox.rpcUrl },
    });

  async function pay() {
    // The client builds through the SDK without allowHttp, so it talks to the HTTPS endpoint.
    const signer = { address: payer.address, signAuthEntry: payer.signAuthEntry };
    const client = new ExactStellarClient(signer, { url: sandbox.secureRpcUrl });
    const created = await client.createPaymentPayload(2, requirements());
    return { ...created, accepted: requirements(), resource: { url: 'http://localhost/api/v1/keys/subscribe' } };
  }

  it('verifies, settles for exactly the amount with the sponsor paying the fee, and refuses a replay', async () => {
    const payment = await pay();
    const before = {
      payer: usdcBalance(payer.address),
      receiver: usdcBalance(scenario().paymentReceiver),
      payerNative: sandbox.ledger.account(payer.address)?.balance,
      sponsorNative: sandbox.ledger.account(scenario().sponsor.address)?.balance ?? 0n,
    };

    const verdict = await facilitator().verify(payment as never, requirements() as never);
    expect(verdict).toEqual({ isValid: true, payer: payer.address });

    const settlement = await facilitator().settle(payment as never, requirements() as never);
    expect(settlement).toMatchObject({ success: true, payer: payer.address, network: 'stellar:testnet' });
    const settled = await server.getTransaction(settlement.transaction);
    expect(settled.status).toBe('SUCCESS');
    const feeCharged = BigInt(settled.status === 'SUCCESS' ? settled.resultXdr.feeCharged().toString() : 0);
    expect(feeCharged).toBeGreaterThan(0n);

    expect(usdcBalance(scenario().paymentReceiver) - before.receiver).toBe(2_026_000n);
    expect(before.payer - usdcBalance(payer.address)).toBe(2_026_000n);
    expect(sandbox.ledger.account(payer.address)?.balance).toBe(before.payerNative);
    expect(before.sponsorNative - (sandbox.ledger.account(scenario().sponsor.address)?.balance ?? 0n)).toBe(feeCharged);

    // The transfer event is on the ledger, from the payer to the receiver.
    const events = await server.getEvents({
      startLedger: settled.status === 'SUCCESS' ? settled.ledger : 1,
      filters: [
        {
          type: 'contract',
          contractIds: [scenario().usdc],
          topics: [['*', address(payer.address).toXDR('base64'), '*']],
        },
      ],
    });
    expect(events.events.map((event) => Address.fromScVal(event.topic[2]).toString())).toContain(
      scenario().paymentReceiver,
    );

    // Replaying the same signed payment: the auth nonce is spent, so verification fails and nothing moves.
    const replay = await facilitator().settle(payment as never, requirements() as never);
    expect(replay.success).toBe(false);
    expect(replay.errorReason).toBe('invalid_exact_stellar_payload_simulation_failed');
    expect(usdcBalance(scenario().paymentReceiver) - before.receiver).toBe(2_026_000n);
  });

  it('rejects a payment whose amount differs from the requirement before anything is sent', async () => {
    const payment = await pay();
    const verdict = await facilitator().verify(payment as never, { ...requirements(), amount: '2026001' } as never);
    expect(verdict).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_stellar_payload_wrong_amount' });
  });

  it('answers simulation of the unsigned transfer with a recorded, unsigned address credential', async () => {
    const payment = await pay();
    const envelope = xdr.TransactionEnvelope.fromXDR(payment.payload.transaction as string, 'base64');
    const auth = envelope.v1().tx().operations()[0].body().invokeHostFunctionOp().auth();
    expect(auth).toHaveLength(1);
    const credentials = auth[0].credentials().address();
    expect(Address.fromScAddress(credentials.address()).toString()).toBe(payer.address);
    expect(credentials.signature().switch().name).toBe('scvVec');
    expect(credentials.signatureExpirationLedger()).toBeGreaterThan(sandbox.ledger.latest.sequence);
  });
});
