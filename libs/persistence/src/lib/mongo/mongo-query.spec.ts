import { parseFilter } from '../query';
import { mongoFilter, mongoSort, withExpiry } from './mongo-query';

describe('MongoDB query translation', () => {
  it('maps id to _id, dotted paths and ranges to their MongoDB form', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    expect(
      mongoFilter(
        parseFilter({ id: 'x', 'alert.level': 'high', hf: { $gte: 1, $lt: 2 }, at: { $gt: at }, note: null }),
      ),
    ).toEqual({
      _id: 'x',
      'alert.level': 'high',
      hf: { $gte: 1, $lt: 2 },
      at: { $gt: at },
      note: null,
    });
  });

  it('hides expired documents: a date in the TTL field that has passed; anything else never expires', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const alive = { $or: [{ expiresAt: { $gt: now } }, { expiresAt: { $not: { $type: 'date' } } }] };
    expect(withExpiry({}, 'expiresAt', now)).toEqual(alive);
    expect(withExpiry({ wallet: 'G' }, 'expiresAt', now)).toEqual({ $and: [{ wallet: 'G' }, alive] });
    expect(withExpiry({ wallet: 'G' }, undefined, now)).toEqual({ wallet: 'G' });
  });

  it('sorts on one field with _id as the tie-breaker', () => {
    expect(mongoSort(undefined)).toEqual({ _id: 1 });
    expect(mongoSort({ path: ['risk', 'score'], direction: 'desc' })).toEqual({ 'risk.score': -1, _id: 1 });
    expect(mongoSort({ path: ['id'], direction: 'desc' })).toEqual({ _id: -1 });
  });
});
