import { Injectable, Logger } from '@nestjs/common';
import type { SubmitTransactionRequest } from '@rp/contracts';
import { type SignedTransaction, checkSignature, parseEnvelope } from '@rp/ledger';
import { TxbLedger } from '../ledger/txb-ledger';
import type { ProposalRecord } from '../proposals/proposal';
import { ProposalRepository } from '../proposals/proposal.repository';
import { TransactionSender } from './transaction-sender';
import type { SubmitOutcome } from './submission-outcome';

/**
 * A signed transaction is tracked from this long after it is recorded as signed, unless the submission itself
 * reports back first: a replica that dies between recording and sending leaves it to the others.
 */
export const SEND_GRACE_MS = 5000;
/** How soon the tracker first asks the ledger about an accepted transaction. */
export const FIRST_CHECK_MS = 1000;

/**
 * `submit`: only a signed envelope of one of the caller's live proposals is sent (this is not an open relay), through
 * the configured RPC or an allowed one the caller named. The signed copy is recorded, and put on the tracker's work
 * list, before it is sent, so that whatever happens to this process after the send, some replica finds out what
 * became of it.
 */
@Injectable()
export class SubmissionService {
  private readonly logger = new Logger(SubmissionService.name);

  constructor(
    private readonly ledger: TxbLedger,
    private readonly proposals: ProposalRepository,
    private readonly sender: TransactionSender,
  ) {}

  async submit(accountId: string, request: SubmitTransactionRequest): Promise<SubmitOutcome> {
    // Checked before anything else: a refused URL costs no call to anyone.
    if (request.rpcUrl !== undefined && !this.ledger.isAllowedRpcUrl(request.rpcUrl)) {
      return { ok: false, refusal: { code: 'RPC_URL_NOT_ALLOWED' } };
    }
    const passphrase = await this.ledger.passphrase();
    const parsed = parseEnvelope(request.transactionXdr, passphrase);
    if (!parsed.ok) {
      const message =
        parsed.problem === 'fee-bump'
          ? 'must be the signed transaction itself, not a fee bump'
          : 'must be a signed transaction envelope (base64 XDR)';
      return { ok: false, refusal: { code: 'MALFORMED_ENVELOPE', message } };
    }
    const record = await this.proposals.findByHash(parsed.hash);
    if (!record || record.accountId !== accountId) return { ok: false, refusal: { code: 'PROPOSAL_NOT_FOUND' } };
    const settled = this.answerFor(record);
    if (settled) return settled;

    const now = Date.now();
    if (record.status === 'pending' && now > record.expiresAt) {
      await this.proposals.expire(record.id, now);
      return expired(record);
    }
    const signature = checkSignature(parsed.transaction, record.walletAddress);
    if (signature === 'none') return { ok: false, refusal: { code: 'TRANSACTION_UNSIGNED' } };
    if (signature === 'other-network') return { ok: false, refusal: { code: 'WRONG_NETWORK', passphrase } };

    const signed = await this.proposals.transition({
      id: record.id,
      from: ['pending', 'signed'],
      to: 'signed',
      now,
      hash: record.hash,
      patch: { signedXdr: request.transactionXdr, txHash: parsed.hash, rpcUrl: request.rpcUrl },
      tracking: { kind: 'at', at: now + SEND_GRACE_MS },
    });
    if (!signed.applied) {
      // Another replica moved it meanwhile: answer from where it is now.
      const current = await this.proposals.get(record.id);
      return (current && this.answerFor(current)) ?? { ok: false, refusal: { code: 'PROPOSAL_NOT_FOUND' } };
    }
    return this.send(record, parsed.transaction, parsed.hash, request.rpcUrl);
  }

  private async send(
    record: ProposalRecord,
    transaction: SignedTransaction,
    hash: string,
    rpcUrl: string | undefined,
  ): Promise<SubmitOutcome> {
    const outcome = await this.sender.send(transaction, rpcUrl);
    const now = Date.now();
    switch (outcome.kind) {
      case 'accepted':
        await this.proposals.transition({
          id: record.id,
          from: ['signed'],
          to: 'submitted',
          now,
          hash: record.hash,
          patch: { submittedAt: now, lastSentAt: now },
          tracking: { kind: 'at', at: now + FIRST_CHECK_MS },
        });
        return { ok: true, txHash: hash };
      case 'rejected': {
        // A copy sent before (a lost answer, another path) may already be in a ledger: the ledger has the last word.
        const verdict = await this.sender.verdict(hash, rpcUrl).catch(() => undefined);
        if (verdict?.kind === 'confirmed') {
          await this.proposals.transition({
            id: record.id,
            from: ['signed', 'submitted'],
            to: 'confirmed',
            now,
            hash: record.hash,
            patch: { ledger: verdict.ledger, submittedAt: record.submittedAt ?? now },
          });
          return { ok: true, txHash: hash };
        }
        await this.proposals.transition({
          id: record.id,
          from: ['signed'],
          to: 'failed',
          now,
          hash: record.hash,
          patch: { failure: { reason: 'rejected', ...outcome.failure } },
        });
        this.logger.log(
          { proposal: record.id, txHash: hash, resultCode: outcome.failure.resultCode },
          'submission refused',
        );
        return { ok: false, refusal: { code: 'SUBMISSION_FAILED', txHash: hash, failure: outcome.failure } };
      }
      case 'busy':
        return { ok: false, refusal: { code: 'LEDGER_BUSY', txHash: hash } };
      case 'unreachable':
        this.logger.warn({ proposal: record.id, txHash: hash, err: outcome.error.message }, 'submission unanswered');
        return { ok: false, refusal: { code: 'LEDGER_UNAVAILABLE', txHash: hash } };
    }
  }

  /** The answer for a proposal that is past submission (idempotent), or undefined while it may still be sent. */
  private answerFor(record: ProposalRecord): SubmitOutcome | undefined {
    if (record.status === 'submitted' || record.status === 'confirmed') {
      return { ok: true, txHash: record.txHash ?? record.hash };
    }
    if (record.status !== 'failed') return undefined;
    if (record.failure?.reason === 'expired') return expired(record);
    return {
      ok: false,
      refusal: {
        code: 'SUBMISSION_FAILED',
        txHash: record.txHash ?? record.hash,
        failure: {
          resultCode: record.failure?.resultCode ?? 'unknown',
          ...(record.failure?.contractError && { contractError: record.failure.contractError }),
        },
      },
    };
  }
}

function expired(record: ProposalRecord): SubmitOutcome {
  return {
    ok: false,
    refusal: { code: 'PROPOSAL_EXPIRED', id: record.id, expiresAt: new Date(record.expiresAt).toISOString() },
  };
}
