import type { LedgerWallet } from '@rp/ledger';
import type { Logger } from 'pino';
import type { CloseAudit } from './close/close-audit';
import type { ClosePath } from './close/close-path';
import type { PresignedCache } from './close/presigned-cache';
import type { SigningRefusals } from './close/signing-refusals';
import type { AgentConfig } from './config/agent.config';
import type { AgentMetrics } from './metrics/agent-metrics';
import type { CloseReport } from './owner/close-report';
import type { OwnerEvents } from './owner/owner-events';
import type { AgentService } from './service/agent-service';
import type { AgentStore } from './store/agent-store';
import type { Subscription } from './subscription/subscription';

/** What differs between the modes, chosen once at start: the service, the subscription, how decisions are carried out. */
export interface AgentModeParts {
  readonly service: AgentService;
  readonly subscription: Subscription;
  readonly closes: ClosePath;
}

/** What every mode is made from. */
export interface AgentParts {
  readonly config: AgentConfig;
  readonly wallet: LedgerWallet;
  readonly store: AgentStore;
  readonly logger: Logger;
  readonly metrics: AgentMetrics;
  readonly presigned: PresignedCache;
  readonly audit: CloseAudit;
  readonly owner: OwnerEvents;
  readonly refusals: SigningRefusals;
  readonly report: CloseReport;
}
