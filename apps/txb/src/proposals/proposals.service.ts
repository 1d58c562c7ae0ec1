import { Injectable } from '@nestjs/common';
import type { ProposalView } from '@rp/contracts';
import { viewOf } from './proposal';
import { ProposalRepository } from './proposal.repository';

/** The calling account's proposals for a wallet. A pending proposal past its lifetime is failed on the way out. */
@Injectable()
export class ProposalsService {
  constructor(private readonly proposals: ProposalRepository) {}

  async list(accountId: string, wallet: string): Promise<ProposalView[]> {
    const now = Date.now();
    const records = await this.proposals.listFor(accountId, wallet);
    const views: ProposalView[] = [];
    for (const record of records) {
      if (record.status === 'pending' && record.expiresAt < now) {
        await this.proposals.expire(record.id, now);
        const current = await this.proposals.get(record.id);
        if (current) views.push(viewOf(current));
        continue;
      }
      views.push(viewOf(record));
    }
    return views;
  }

  countLive(now = Date.now()): Promise<number> {
    return this.proposals.countLive(now);
  }
}
