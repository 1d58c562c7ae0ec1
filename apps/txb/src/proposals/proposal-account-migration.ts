import { Injectable, Logger } from '@nestjs/common';
import { HttpClient, StartupAccountMigration, provenOwners } from '@rp/platform';
import { TxbConfig } from '../config/txb.config';
import { ProposalRepository } from './proposal.repository';

/**
 * Gives proposals built before accounts existed (owned by the key id that built them) the account of that key, on
 * every start (idempotent; replicas may run it at once, each move is conditional). The subscription service says
 * each key's account; a key it does not know proves nothing and its proposals stay unreachable until they expire
 * from Redis (24 hours at most). Until it answers, those proposals belong to no account.
 */
@Injectable()
export class ProposalAccountMigration extends StartupAccountMigration {
  private readonly logger = new Logger(ProposalAccountMigration.name);

  constructor(
    private readonly proposals: ProposalRepository,
    config: TxbConfig,
    http: HttpClient,
  ) {
    super(config, http);
  }

  async migrate(): Promise<void> {
    const legacy = await this.proposals.ownedByKeyIds();
    if (legacy.length === 0) return;
    const proven = provenOwners(await this.directory.owners([...new Set(legacy.map((p) => p.keyId))], []));
    let moved = 0;
    for (const proposal of legacy) {
      const account = proven.keys.get(proposal.keyId);
      if (account && (await this.proposals.reassign(proposal, proposal.keyId, account))) moved += 1;
    }
    this.logger.log({ moved, unproven: legacy.length - moved }, 'proposals built before accounts given their account');
  }
}
