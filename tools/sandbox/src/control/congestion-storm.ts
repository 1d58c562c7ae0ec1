import { Account, Keypair, Operation, TransactionBuilder, hash, xdr } from '@stellar/stellar-sdk';
import { TOKEN_CONTRACT } from '../contracts/token';
import { address, string, u32 } from '../contracts/scval';
import { sorobanDataFor } from '../ledger/execution';
import { BASE_FEE } from '../ledger/fees';
import type { SandboxLedger } from '../ledger/sandbox-ledger';
import type { ParsedEnvelope } from '../ledger/transactions/envelope';

export interface StormSettings {
  /** Storm transactions waiting for every ledger. */
  readonly transactionsPerLedger: number;
  /** Inclusion fee each storm transaction bids, in stroops. */
  readonly inclusionFee: bigint;
  /** Ledgers the storm lasts. */
  readonly ledgers: number;
}

export interface StormStatus extends Omit<StormSettings, 'inclusionFee'> {
  readonly inclusionFee: string;
  readonly ledgersLeft: number;
  readonly submitted: number;
}

/** Native funds a storm account starts with (1 000 XLM); topped up while the storm runs. */
const STORM_FUNDS = 1_000n * 10_000_000n;
/** Seconds a storm transaction may wait before its `maxTime` passes and the network drops it. */
const STORM_TX_TIMEOUT_SECONDS = 300;

/**
 * A flood of competing Soroban transactions from the sandbox's own accounts: real signed transactions (a read-only
 * call on a token of the storm's own) that enter through the same `submit` and queue as anyone's, so they compete
 * under surge pricing. Before every ledger the storm tops its waiting transactions up to `transactionsPerLedger`
 * (one per storm account, as the queue holds one per source), for `ledgers` ledgers; when it ends or is stopped its
 * waiting transactions leave the queue.
 */
export class CongestionStorm {
  private settings: StormSettings | undefined;
  private ledgersLeft = 0;
  private submitted = 0;
  /** Why the last storm stopped on its own before its ledgers were over, if it did. */
  private stoppedBecause: string | undefined;
  private contract: string | undefined;
  private sorobanData: xdr.SorobanTransactionData | undefined;
  private readonly accounts: Keypair[] = [];
  private readonly stormHashes = new Set<string>();

  constructor(private readonly ledger: SandboxLedger) {
    ledger.on('close', () => this.afterClose());
  }

  get lastError(): string | undefined {
    return this.stoppedBecause;
  }

  get status(): StormStatus | null {
    if (!this.settings) return null;
    return {
      ...this.settings,
      inclusionFee: this.settings.inclusionFee.toString(),
      ledgersLeft: this.ledgersLeft,
      submitted: this.submitted,
    };
  }

  /** Whether a queued transaction is one of the storm's. */
  isStorm(parsed: ParsedEnvelope): boolean {
    return this.stormHashes.has(parsed.hash);
  }

  start(settings: StormSettings): StormStatus {
    this.withdraw();
    this.settings = settings;
    this.stoppedBecause = undefined;
    this.ledgersLeft = settings.ledgers;
    this.submitted = 0;
    this.topUp();
    return this.status as StormStatus;
  }

  stop(): void {
    this.settings = undefined;
    this.ledgersLeft = 0;
    this.withdraw();
  }

  /** After a reset the ledger is empty: the storm's contract and accounts are gone. */
  forget(): void {
    this.stop();
    this.contract = undefined;
    this.sorobanData = undefined;
    this.accounts.length = 0;
  }

  private afterClose(): void {
    if (!this.settings) return;
    this.ledgersLeft -= 1;
    if (this.ledgersLeft <= 0) return this.stop();
    try {
      this.topUp();
    } catch (error) {
      // Runs inside a ledger close (a timer): a storm that cannot go on stops, the ledger keeps closing.
      this.stoppedBecause = (error as Error).message;
      this.stop();
    }
  }

  private withdraw(): void {
    this.ledger.withdraw((parsed) => this.stormHashes.has(parsed.hash));
    this.stormHashes.clear();
  }

  private topUp(): void {
    const settings = this.settings;
    if (!settings) return;
    const busy = new Set(this.ledger.queued.map((parsed) => parsed.inner.source));
    for (const hash of [...this.stormHashes]) {
      if (!this.ledger.queued.some((parsed) => parsed.hash === hash)) this.stormHashes.delete(hash);
    }
    const waiting = this.stormHashes.size;
    for (let i = 0, sent = waiting; sent < settings.transactionsPerLedger; i += 1) {
      const keypair = this.account(i, settings.inclusionFee);
      if (busy.has(keypair.publicKey())) continue;
      const outcome = this.ledger.submit(this.transaction(keypair, settings.inclusionFee));
      if (outcome.status !== 'PENDING') throw new Error(`a storm transaction was refused: ${outcome.status}`);
      this.stormHashes.add(outcome.hash);
      this.submitted += 1;
      sent += 1;
    }
  }

  /** The storm's `index`-th account, created or topped up so it can pay ten more fees. */
  private account(index: number, inclusionFee: bigint): Keypair {
    while (this.accounts.length <= index) {
      const keypair = Keypair.fromRawEd25519Seed(hash(Buffer.from(`rp-sandbox:storm:${this.accounts.length}`)));
      this.accounts.push(keypair);
    }
    const keypair = this.accounts[index];
    const balance = this.ledger.account(keypair.publicKey())?.balance;
    if (balance === undefined || balance < STORM_FUNDS / 2n + inclusionFee * 10n) {
      this.ledger.fundAccount(keypair.publicKey(), STORM_FUNDS + inclusionFee * 10n);
    }
    return keypair;
  }

  private transaction(keypair: Keypair, inclusionFee: bigint): string {
    const { call, data } = this.call(keypair);
    const account = this.ledger.account(keypair.publicKey());
    if (!account) throw new Error('storm account vanished');
    // The SDK's builder adds the Soroban data's resource fee to this inclusion fee.
    const tx = new TransactionBuilder(new Account(keypair.publicKey(), account.sequence.toString()), {
      fee: inclusionFee.toString(),
      networkPassphrase: this.ledger.passphrase,
    })
      .addOperation(call)
      .setSorobanData(data)
      .setTimebounds(0, Math.floor(Date.now() / 1000) + STORM_TX_TIMEOUT_SECONDS)
      .build();
    tx.sign(keypair);
    return tx.toEnvelope().toXDR('base64');
  }

  /** The storm's call, `decimals()` on its own token, and the resources it declares (simulated once). */
  private call(keypair: Keypair): { call: xdr.Operation; data: xdr.SorobanTransactionData } {
    if (!this.contract) {
      this.contract = this.ledger.deployContract(TOKEN_CONTRACT, {
        salt: 'storm-token',
        constructorArgs: [address(keypair.publicKey()), u32(7), string('Storm'), string('STORM')],
      });
    }
    const call = Operation.invokeContractFunction({ contract: this.contract, function: 'decimals', args: [] });
    if (!this.sorobanData) {
      const draft = new TransactionBuilder(new Account(keypair.publicKey(), '0'), {
        fee: BASE_FEE.toString(),
        networkPassphrase: this.ledger.passphrase,
      })
        .addOperation(call)
        .setTimeout(0)
        .build();
      const execution = this.ledger.simulate(draft.toEnvelope().toXDR('base64'));
      if (execution.error) throw new Error(`the storm's call fails: ${execution.error.message}`);
      this.sorobanData = sorobanDataFor(execution);
    }
    return { call, data: this.sorobanData };
  }
}
