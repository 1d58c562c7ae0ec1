/** Self-contained (no imports): the memory probe compiles this file alone and runs it without the workspace. */
export interface Payment {
  id: string;
  email: string;
  payer: string;
  amount: string;
  txHash: string;
  status: string;
  paidAt: Date;
  grant: { tier: string; rateLimit: number; burst: number; expiresAt: Date };
}

/** A payment record about the size of the subscription service's (about 400 bytes of JSON). */
export function payment(n: number): Omit<Payment, 'id'> {
  const at = new Date(Date.UTC(2026, 10, 22) + n * 1000);
  return {
    email: `user${n}@example.com`,
    payer: `G${String(n).padStart(55, 'A')}`,
    amount: '2026000',
    txHash: n.toString(16).padStart(64, '0'),
    status: n % 10 === 0 ? 'pending' : 'settled',
    paidAt: at,
    grant: { tier: 'standard', rateLimit: 60, burst: 120, expiresAt: new Date(at.getTime() + 30 * 86_400_000) },
  };
}
