import type { SignedPayment } from '@rp/ledger';
import type { AgentStore, StoredPayment } from '../store/agent-store';
import { KeyVault } from './key-vault';

/**
 * The payments the agent signed for its key, in its database. A payment is written (sealed) before it is first
 * sent, so after a restart the same payment is sent again rather than a new one signed; each counts toward the
 * 30-day spend cap from the moment it is signed, whatever became of it (whoever holds it could settle it until its
 * authorization expires).
 */
export class KeptPayments {
  private readonly vault: KeyVault;

  constructor(
    private readonly store: AgentStore,
    private readonly wallet: string,
    mnemonic: string,
  ) {
    this.vault = new KeyVault(mnemonic, wallet, 'payment');
  }

  async keep(payment: SignedPayment, at: number): Promise<StoredPayment> {
    return this.store.payments.insert({
      id: payment.id,
      wallet: this.wallet,
      sealedPayment: this.vault.seal(JSON.stringify(payment.headers)),
      amount: payment.amount,
      asset: payment.asset,
      payTo: payment.payTo,
      network: payment.network,
      authExpiresLedger: payment.authExpiresLedger,
      signedAt: new Date(at).toISOString(),
      signedAtMs: at,
      state: 'signed',
    });
  }

  /** The signed payment as it was first sent (throws when sealed under another mnemonic or altered). */
  open(record: StoredPayment): SignedPayment {
    return {
      id: record.id,
      headers: JSON.parse(this.vault.open(record.sealedPayment)) as Record<string, string>,
      amount: record.amount,
      asset: record.asset,
      payTo: record.payTo,
      network: record.network,
      authExpiresLedger: record.authExpiresLedger,
    };
  }

  /** Payments that may still settle (sent and not collected, or refused but not expired), oldest first. */
  async unsettled(): Promise<StoredPayment[]> {
    const found = await Promise.all(
      (['signed', 'refused'] as const).map((state) => this.store.payments.find({ wallet: this.wallet, state })),
    );
    return found.flat().sort((a, b) => a.signedAtMs - b.signedAtMs);
  }

  /** What the payments signed since `since` (epoch ms) cost together, in base units. */
  async spentSince(since: number): Promise<bigint> {
    const signed = await this.store.payments.find({ wallet: this.wallet, signedAtMs: { $gte: since } });
    return signed.reduce((sum, payment) => sum + BigInt(payment.amount), 0n);
  }

  async mark(
    id: string,
    state: StoredPayment['state'],
    details: Pick<StoredPayment, 'lastAnswer' | 'txHash'> = {},
  ): Promise<void> {
    await this.store.payments.updateOne({ id }, { set: { state, ...details } });
  }

  async answered(id: string, lastAnswer: string): Promise<void> {
    await this.store.payments.updateOne({ id }, { set: { lastAnswer } });
  }
}
