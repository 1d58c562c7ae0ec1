import { PROPOSAL_ID_PATTERN, type ProposalRecord, newProposalId, viewOf } from './proposal';

describe('proposals', () => {
  it('are named txp-<ms>-<6 base36>, differently each time', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newProposalId(1_795_365_167_002)));
    for (const id of ids) expect(id).toMatch(/^txp-1795365167002-[0-9a-z]{6}$/);
    expect(ids.size).toBe(200);
    expect(PROPOSAL_ID_PATTERN.test([...ids][0])).toBe(true);
  });

  it('show callers their transaction, metadata and outcome, never the account or the signed copy', () => {
    const record: ProposalRecord = {
      id: 'txp-1795365167002-ro9zdl',
      accountId: 'secret-key-id',
      walletAddress: 'GWALLET',
      action: 'REPAY',
      status: 'failed',
      createdAt: 1_795_365_167_002,
      expiresAt: 1_795_365_467_002,
      updatedAt: 1_795_365_200_000,
      hash: 'f'.repeat(64),
      transaction: {
        transactionXdr: 'AAA',
        sourceAddress: 'GWALLET',
        operations: 1,
        createdAt: '2026-11-22T16:32:47.002Z',
      },
      metadata: { poolAddress: 'CPOOL', tokenId: 'CUSDC', amount: '10', action: 'REPAY' },
      signedXdr: 'SIGNED',
      txHash: 'f'.repeat(64),
      ledger: 88,
      failure: { reason: 'failed', resultCode: 'txFailed' },
    };
    expect(viewOf(record)).toEqual({
      id: record.id,
      status: 'failed',
      createdAt: '2026-11-22T16:32:47.002Z',
      expiresAt: '2026-11-22T16:37:47.002Z',
      transaction: record.transaction,
      metadata: record.metadata,
      txHash: record.txHash,
      ledger: 88,
      failure: { reason: 'failed', resultCode: 'txFailed' },
    });
  });
});
