import {
  Account,
  Contract,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
  authorizeEntry,
  hash,
  nativeToScVal,
  rpc,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import { LedgerWallet } from '@rp/ledger';
import { DEMO_WALLETS, startSandbox, type RunningSandbox } from '../index';

/**
 * The rules the real network enforces, checked through the unmodified SDK over JSON-RPC: envelope signatures and
 * network passphrase, sequence numbers, fees, time bounds, and Soroban authorization (signature, nonce, expiry).
 */
describe('sandbox ledger rules', () => {
  let sandbox: RunningSandbox;
  let server: rpc.Server;
  const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic);
  const other = Keypair.random();
  const walletSigner = async (preimage: xdr.HashIdPreimage) => ({
    signature: wallet.signHash(hash(preimage.toXDR())),
    publicKey: wallet.address,
  });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
    server = new rpc.Server(sandbox.rpcUrl, { allowHttp: true });
    sandbox.control.setup.fund(other.publicKey(), 1_000n * 10_000_000n);
  });

  afterAll(() => sandbox.close());

  const usdc = () => sandbox.scenario?.usdc ?? '';
  const balance = (owner: string) => sandbox.control.setup.balance(usdc(), owner);
  const transfer = (from: string, to: string, amount: bigint) =>
    new Contract(usdc()).call(
      'transfer',
      nativeToScVal(from, { type: 'address' }),
      nativeToScVal(to, { type: 'address' }),
      nativeToScVal(amount, { type: 'i128' }),
    );

  async function prepared(source: string, op: xdr.Operation, passphrase = Networks.TESTNET): Promise<Transaction> {
    const account = await server.getAccount(source);
    const tx = new TransactionBuilder(account, { fee: '100', networkPassphrase: passphrase })
      .addOperation(op)
      .setTimeout(60)
      .build();
    return server.prepareTransaction(tx);
  }

  async function submitAndClose(tx: Transaction) {
    const sent = await server.sendTransaction(tx);
    if (sent.status !== 'PENDING') return sent;
    sandbox.ledger.closeLedger();
    return server.getTransaction(sent.hash);
  }

  const resultCode = (sent: rpc.Api.SendTransactionResponse) => sent.errorResult?.result().switch().name;

  it('applies a transfer signed by the SEP-5 wallet and charges the fee to the source', async () => {
    const before = { sender: balance(wallet.address), native: sandbox.ledger.account(wallet.address)?.balance ?? 0n };
    const tx = await prepared(wallet.address, transfer(wallet.address, other.publicKey(), 1_000n));
    wallet.signTransaction(tx);
    const outcome = await submitAndClose(tx);
    expect(outcome.status).toBe('SUCCESS');
    expect(before.sender - balance(wallet.address)).toBe(1_000n);
    const feeCharged = BigInt((outcome as rpc.Api.GetSuccessfulTransactionResponse).resultXdr.feeCharged().toString());
    expect(feeCharged).toBeGreaterThan(100n);
    expect(before.native - (sandbox.ledger.account(wallet.address)?.balance ?? 0n)).toBe(feeCharged);
  });

  it('rejects a tampered envelope signature with txBadAuth', async () => {
    const tx = await prepared(wallet.address, transfer(wallet.address, other.publicKey(), 1n));
    wallet.signTransaction(tx);
    const signature = tx.signatures[0].signature();
    signature[0] ^= 0xff;
    const sent = await server.sendTransaction(tx);
    expect(sent.status).toBe('ERROR');
    expect(resultCode(sent)).toBe('txBadAuth');
  });

  it('rejects an envelope signed for another network (wrong passphrase) with txBadAuth', async () => {
    const account = await server.getAccount(wallet.address);
    const prepared = await server.prepareTransaction(
      new TransactionBuilder(account, { fee: '100', networkPassphrase: Networks.TESTNET })
        .addOperation(transfer(wallet.address, other.publicKey(), 1n))
        .setTimeout(60)
        .build(),
    );
    const forPubnet = TransactionBuilder.fromXDR(prepared.toXDR(), Networks.PUBLIC) as Transaction;
    forPubnet.sign(Keypair.fromSecret(Keypair.random().secret()));
    const signedByWallet = TransactionBuilder.fromXDR(forPubnet.toXDR(), Networks.PUBLIC) as Transaction;
    signedByWallet.signatures.length = 0;
    wallet.signTransaction(signedByWallet);
    const sent = await server.sendTransaction(signedByWallet);
    expect(resultCode(sent)).toBe('txBadAuth');
  });

  it('rejects a bad sequence, an insufficient fee and expired time bounds with their result codes', async () => {
    const account = await server.getAccount(wallet.address);
    const stale = new Account(wallet.address, (BigInt(account.sequenceNumber()) - 1n).toString());
    const badSeq = await server.prepareTransaction(
      new TransactionBuilder(stale, { fee: '100', networkPassphrase: Networks.TESTNET })
        .addOperation(transfer(wallet.address, other.publicKey(), 1n))
        .setTimeout(60)
        .build(),
    );
    wallet.signTransaction(badSeq);
    expect(resultCode(await server.sendTransaction(badSeq))).toBe('txBadSeq');

    const good = await prepared(wallet.address, transfer(wallet.address, other.publicKey(), 1n));
    const underpaid = TransactionBuilder.cloneFrom(good, {
      fee: '50',
      sorobanData: good.toEnvelope().v1().tx().ext().sorobanData(),
    }).build();
    const cheap = TransactionBuilder.fromXDR(underpaid.toXDR(), Networks.TESTNET) as Transaction;
    const envelope = cheap.toEnvelope();
    envelope.v1().tx().fee(150);
    const lowFee = TransactionBuilder.fromXDR(envelope.toXDR('base64'), Networks.TESTNET) as Transaction;
    wallet.signTransaction(lowFee);
    expect(resultCode(await server.sendTransaction(lowFee))).toBe('txInsufficientFee');

    const expired = await server.prepareTransaction(
      new TransactionBuilder(await server.getAccount(wallet.address), {
        fee: '100',
        networkPassphrase: Networks.TESTNET,
        timebounds: { minTime: 0, maxTime: 1_000 },
      })
        .addOperation(transfer(wallet.address, other.publicKey(), 1n))
        .build(),
    );
    wallet.signTransaction(expired);
    expect(resultCode(await server.sendTransaction(expired))).toBe('txTooLate');
  });

  it('fails simulation of a transfer above the balance with the token contract error #10', async () => {
    const account = await server.getAccount(wallet.address);
    const tx = new TransactionBuilder(account, { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(transfer(wallet.address, other.publicKey(), balance(wallet.address) + 1n))
      .setTimeout(60)
      .build();
    const simulation = await server.simulateTransaction(tx);
    expect(rpc.Api.isSimulationError(simulation)).toBe(true);
    expect((simulation as rpc.Api.SimulateTransactionErrorResponse).error).toContain('Error(Contract, #10)');
  });

  describe('address credentials (a payment signed by the payer, submitted by someone else)', () => {
    const payment = () => transfer(wallet.address, other.publicKey(), 5n);

    async function signedPayment(expirationOffset: number, passphrase = Networks.TESTNET) {
      const recorded = await server.simulateTransaction(
        new TransactionBuilder(await server.getAccount(other.publicKey()), {
          fee: '100',
          networkPassphrase: Networks.TESTNET,
        })
          .addOperation(payment())
          .setTimeout(60)
          .build(),
      );
      if (!rpc.Api.isSimulationSuccess(recorded) || !recorded.result) throw new Error('simulation failed');
      const expiration = sandbox.ledger.latest.sequence + expirationOffset;
      return Promise.all(
        recorded.result.auth.map((entry) => authorizeEntry(entry, walletSigner, expiration, passphrase)),
      );
    }

    /** The payment as submitted by `other`, carrying the payer's signed authorization entries. */
    async function paymentWithAuth(auth: xdr.SorobanAuthorizationEntry[], fee = '100') {
      const func = xdr.HostFunction.hostFunctionTypeInvokeContract(
        payment().body().invokeHostFunctionOp().hostFunction().invokeContract(),
      );
      return new TransactionBuilder(await server.getAccount(other.publicKey()), {
        fee,
        networkPassphrase: Networks.TESTNET,
      })
        .addOperation(Operation.invokeHostFunction({ func, auth }))
        .setTimeout(60)
        .build();
    }

    const simulationError = async (auth: xdr.SorobanAuthorizationEntry[], fee?: string) =>
      ((await server.simulateTransaction(await paymentWithAuth(auth, fee))) as rpc.Api.SimulateTransactionErrorResponse)
        .error;

    it('accepts a valid signature once and fails the reuse of its nonce', async () => {
      const auth = await signedPayment(20);
      const tx = await server.prepareTransaction(await paymentWithAuth(auth));
      tx.sign(other);
      expect((await submitAndClose(tx)).status).toBe('SUCCESS');
      const before = balance(wallet.address);
      expect(await simulationError(auth, '100000')).toContain('nonce already exists');
      expect(balance(wallet.address)).toBe(before);
    });

    it('rejects an expired authorization', async () => {
      const auth = await signedPayment(1);
      sandbox.ledger.closeLedger();
      sandbox.ledger.closeLedger();
      expect(await simulationError(auth)).toContain('signature has expired');
    });

    it('rejects an authorization signed for another network', async () => {
      const pubnetSigned = await signedPayment(10, Networks.PUBLIC);
      expect(await simulationError(pubnetSigned)).toContain('signature verification failed');
    });
  });

  it('accepts a fee bump: the fee source pays and the inner transaction applies', async () => {
    const tx = await prepared(wallet.address, transfer(wallet.address, other.publicKey(), 7n));
    wallet.signTransaction(tx);
    const bump = TransactionBuilder.buildFeeBumpTransaction(
      other,
      (BigInt(tx.fee) * 2n).toString(),
      tx,
      Networks.TESTNET,
    );
    bump.sign(other);
    const before = {
      wallet: sandbox.ledger.account(wallet.address)?.balance,
      other: sandbox.ledger.account(other.publicKey())?.balance ?? 0n,
    };
    const sent = await server.sendTransaction(bump);
    expect(sent.status).toBe('PENDING');
    sandbox.ledger.closeLedger();
    const applied = await server.getTransaction(sent.hash);
    expect(applied.status).toBe('SUCCESS');
    expect(sandbox.ledger.account(wallet.address)?.balance).toBe(before.wallet);
    expect((sandbox.ledger.account(other.publicKey())?.balance ?? 0n) < before.other).toBe(true);
  });

  it('replaces a queued transaction by a fee bump of it bidding 10x its rate, as stellar-core does; only that applies', async () => {
    const tx = await prepared(wallet.address, transfer(wallet.address, other.publicKey(), 3n));
    wallet.signTransaction(tx);
    const resourceFee = BigInt(tx.fee) - 100n;
    const bump = (rate: bigint) => {
      // The outer fee is the rate for both operations (the inner one and the bump's) plus the resource fee.
      const envelope = TransactionBuilder.buildFeeBumpTransaction(other, rate.toString(), tx, Networks.TESTNET);
      envelope.sign(other);
      return envelope;
    };
    expect(resourceFee).toBeGreaterThan(0n);
    const first = await server.sendTransaction(tx);
    expect(first.status).toBe('PENDING');
    // 9x the queued rate is not enough, and a different transaction of the same source never replaces it.
    expect((await server.sendTransaction(bump(900n))).status).toBe('TRY_AGAIN_LATER');
    const replacement = await server.sendTransaction(bump(1000n));
    expect(replacement.status).toBe('PENDING');
    expect(sandbox.ledger.queued.map((queued) => queued.hash)).toContain(replacement.hash);
    expect(sandbox.ledger.queued.map((queued) => queued.hash)).not.toContain(first.hash);
    sandbox.ledger.closeLedger();
    expect((await server.getTransaction(replacement.hash)).status).toBe('SUCCESS');
    expect((await server.getTransaction(first.hash)).status).toBe('NOT_FOUND');
  });
});
