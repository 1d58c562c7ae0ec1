export const PROPOSAL_STATUSES = ['pending', 'signed', 'submitted', 'confirmed', 'failed'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/**
 * pending -> signed -> submitted -> confirmed | failed; pending or signed -> failed when the proposal expires.
 * Terminal states have no way out.
 */
export const PROPOSAL_TRANSITIONS: Readonly<Record<ProposalStatus, readonly ProposalStatus[]>> = {
  pending: ['signed', 'failed'],
  signed: ['submitted', 'failed'],
  submitted: ['confirmed', 'failed'],
  confirmed: [],
  failed: [],
};

export function canTransition(from: ProposalStatus, to: ProposalStatus): boolean {
  return PROPOSAL_TRANSITIONS[from].includes(to);
}

export function isTerminalStatus(status: ProposalStatus): boolean {
  return PROPOSAL_TRANSITIONS[status].length === 0;
}
