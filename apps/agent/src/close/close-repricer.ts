import { type LedgerWallet, signAhead, withInclusionFee } from '@rp/ledger';
import { CloseRefusedError } from './built-close';
import type { CloseBuilder } from './close-builder';
import type { ChosenClose } from './close-choice';
import type { SigningGuard } from './signing-guard';

/**
 * Re-prices a close the ledger left out: the same transaction (same operations, same sequence number, same time
 * bounds) at a higher inclusion fee, checked by the signing rule once more before it is signed (docs/agent.md,
 * Re-pricing). Never a fee bump: the rule signs plain transactions only.
 */
export class CloseRepricer {
  constructor(
    private readonly wallet: LedgerWallet,
    private readonly builder: CloseBuilder,
    private readonly guard: SigningGuard,
  ) {}

  /** The next bid after `last` (the newest re-signed close), or `undefined` at the cap. */
  nextBid(last: ChosenClose): Promise<bigint | undefined> {
    return this.builder.nextBid(last.signed.envelope);
  }

  /**
   * `close` re-signed bidding `inclusionFee`. The rule is applied with the context the close was first checked
   * under (its sequence number, now): a refusal (a fee above the cap, a time bound gone) is `CloseRefusedError`.
   */
  resigned(close: ChosenClose, inclusionFee: bigint): ChosenClose {
    if (!close.rule)
      throw new CloseRefusedError('TRANSACTION_REFUSED', 'a close the signing rule never checked is not re-signed');
    const unsigned = withInclusionFee(close.signed.envelope, inclusionFee);
    const verdict = this.guard.recheck(unsigned, close.rule, undefined, close.builtBy);
    if (!verdict.ok) throw new CloseRefusedError('TRANSACTION_REFUSED', `${verdict.reason}: ${verdict.detail}`);
    return { ...close, signed: signAhead(this.wallet, unsigned, close.rule.passphrase) };
  }
}
