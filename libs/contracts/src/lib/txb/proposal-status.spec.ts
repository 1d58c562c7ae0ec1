import { PROPOSAL_STATUSES, canTransition, isTerminalStatus } from './proposal-status';

describe('proposal statuses', () => {
  it('follows pending -> signed -> submitted -> confirmed', () => {
    expect(canTransition('pending', 'signed')).toBe(true);
    expect(canTransition('signed', 'submitted')).toBe(true);
    expect(canTransition('submitted', 'confirmed')).toBe(true);
  });

  it('lets a live proposal fail and refuses skipping or leaving a terminal state', () => {
    expect(canTransition('pending', 'failed')).toBe(true);
    expect(canTransition('pending', 'submitted')).toBe(false);
    expect(canTransition('confirmed', 'failed')).toBe(false);
    expect(canTransition('failed', 'pending')).toBe(false);
  });

  it('has exactly two terminal states', () => {
    expect(PROPOSAL_STATUSES.filter(isTerminalStatus)).toEqual(['confirmed', 'failed']);
  });
});
