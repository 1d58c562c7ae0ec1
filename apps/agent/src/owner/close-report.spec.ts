import pino from 'pino';
import type { LedgerPosition } from '../ledger/ledger-view';
import type { RiskSnapshot } from '../store/agent-store';
import { CloseReport } from './close-report';
import { NO_OWNER_EVENTS, type OwnerEvent, type OwnerEvents } from './owner-events';

const POOL = 'CAQCFVLOBK5GIULPNZRGATJJMIZL5BSP7X5YJVMGCPTUEPFM4AVSRCJU';
const OTHER_POOL = 'CBJGPJBZYM4L2FYEK34YL5XAKVZDYU7U3ZEK6LE5UJ2PD5UCQKW7Q6FR';
const HASH = 'a'.repeat(64);
const QUIET_MS = 300_000;
const snapshot: RiskSnapshot = {
  positions: [
    { poolAddress: OTHER_POOL, healthFactor: 3, riskLevel: 'low', collateralValueUsd: 10, liabilityValueUsd: 1 },
    { poolAddress: POOL, healthFactor: 1.04, riskLevel: 'critical', collateralValueUsd: 100, liabilityValueUsd: 90 },
  ],
  prices: {},
  ledger: 10,
  source: 'service',
};

function recording(): OwnerEvents & { events: OwnerEvent[] } {
  const events: OwnerEvent[] = [];
  return { events, emit: async (event) => void events.push(event) };
}

const at = (healthFactor: number | null | 'error') => ({
  position: async (): Promise<LedgerPosition | undefined> => {
    if (healthFactor === 'error') throw new Error('rpc down');
    return healthFactor === null ? undefined : ({ position: { healthFactor } } as LedgerPosition);
  },
});

describe("the owner's close events", () => {
  const logger = pino({ level: 'silent' });

  it('close_sent carries the pool, the health factor the decision was taken at and the hash', async () => {
    const owner = recording();
    await new CloseReport(owner, at(null), logger, QUIET_MS).sent({ poolAddress: POOL, riskSnapshot: snapshot, txHash: HASH });
    expect(owner.events).toEqual([{ type: 'close_sent', poolAddress: POOL, healthFactorBefore: 1.04, txHash: HASH }]);
  });

  it('close_confirmed reads the health factor after from the ledger: null once no debt is left', async () => {
    const closed = recording();
    await new CloseReport(closed, at(null), logger, QUIET_MS).confirmed({ poolAddress: POOL, riskSnapshot: snapshot, txHash: HASH });
    expect(closed.events).toEqual([
      { type: 'close_confirmed', poolAddress: POOL, healthFactorBefore: 1.04, healthFactorAfter: null, txHash: HASH },
    ]);
    const deleveraged = recording();
    await new CloseReport(deleveraged, at(1.5), logger, QUIET_MS).confirmed({ poolAddress: POOL, riskSnapshot: snapshot, txHash: HASH });
    expect(deleveraged.events[0]).toMatchObject({ healthFactorAfter: 1.5 });
  });

  it('leaves the health factor after out when the ledger cannot be read (never a made-up value)', async () => {
    const owner = recording();
    await new CloseReport(owner, at('error'), logger, QUIET_MS).confirmed({ poolAddress: POOL, riskSnapshot: snapshot, txHash: HASH });
    expect(owner.events).toHaveLength(1);
    expect(owner.events[0]).not.toHaveProperty('healthFactorAfter');
  });

  it('close_failed says why in one printable sentence of at most 300 characters, without a hash when none was sent', async () => {
    const owner = recording();
    await new CloseReport(owner, at(null), logger, QUIET_MS).failed(
      { poolAddress: POOL, riskSnapshot: snapshot, txHash: null },
      `SUBMISSION_FAILED\ntxBadSeq\u0007 ${'x'.repeat(400)}`,
    );
    const [event] = owner.events;
    expect(event).toMatchObject({ type: 'close_failed', poolAddress: POOL, healthFactorBefore: 1.04 });
    expect(event).not.toHaveProperty('txHash');
    const detail = (event as { detail: string }).detail;
    expect(detail.startsWith('SUBMISSION_FAILED txBadSeq ')).toBe(true);
    expect(detail).toHaveLength(300);
  });

  it('a pool missing from the snapshot has no health factor before (null)', async () => {
    const owner = recording();
    await new CloseReport(owner, at(null), logger, QUIET_MS).sent({
      poolAddress: POOL,
      riskSnapshot: { ...snapshot, positions: [] },
      txHash: HASH,
    });
    expect(owner.events[0]).toMatchObject({ healthFactorBefore: null });
  });

  it('reads nothing from the ledger when no channel is set', async () => {
    const ledger = { position: jest.fn() };
    await new CloseReport(NO_OWNER_EVENTS, ledger, logger, QUIET_MS).confirmed({ poolAddress: POOL, riskSnapshot: snapshot });
    expect(ledger.position).not.toHaveBeenCalled();
  });

  it('tells a streak of failures of one pool once, until a close of it confirms or the quiet time passed', async () => {
    const owner = recording();
    let clock = 1_000_000;
    const report = new CloseReport(owner, at(null), logger, QUIET_MS, () => clock);
    const close = { poolAddress: POOL, riskSnapshot: snapshot, txHash: HASH };
    const other = { poolAddress: OTHER_POOL, riskSnapshot: snapshot, txHash: HASH };
    await report.sent(close);
    await report.failed(close, 'txBadSeq');
    // The next polls decide again and fail again: nothing more for this pool; another pool is told.
    clock += 2000;
    await report.sent(close);
    await report.failed(close, 'txBadSeq');
    await report.failed(other, 'txTooLate');
    expect(owner.events.map((event) => [event.type, (event as { poolAddress: string }).poolAddress])).toEqual([
      ['close_sent', POOL],
      ['close_failed', POOL],
      ['close_failed', OTHER_POOL],
    ]);
    // Once the quiet time has passed, a failure is told again.
    clock += QUIET_MS;
    await report.failed(close, 'txBadSeq');
    expect(owner.events.filter((event) => event.type === 'close_failed')).toHaveLength(3);
    // A confirmed close is always told, and ends the streak.
    await report.confirmed(close);
    await report.sent(close);
    expect(owner.events.slice(-2).map((event) => event.type)).toEqual(['close_confirmed', 'close_sent']);
  });

  it('a refused transaction is told once per pool, source and reason within the quiet time, then again', async () => {
    const owner = recording();
    let now = 1_000;
    const report = new CloseReport(owner, at(null), logger, QUIET_MS, () => now);
    const refusal = { source: 'service' as const, reason: 'wrong_address', pool: POOL, detail: 'transfer to a stranger' };
    await report.refused(refusal);
    await report.refused(refusal);
    await report.refused({ ...refusal, reason: 'fee_above_cap' });
    now += QUIET_MS;
    await report.refused(refusal);
    expect(owner.events).toEqual([
      { type: 'refused', source: 'service', reason: 'wrong_address', poolAddress: POOL, detail: 'transfer to a stranger' },
      { type: 'refused', source: 'service', reason: 'fee_above_cap', poolAddress: POOL, detail: 'transfer to a stranger' },
      { type: 'refused', source: 'service', reason: 'wrong_address', poolAddress: POOL, detail: 'transfer to a stranger' },
    ]);
  });
});
