import type { AgentModeParts, AgentParts } from '../agent-parts';
import { MockService } from './mock-service';
import { PlayedCloses } from './played-closes';
import { PlayedService } from './played-service';
import { PlayedSubscription } from './played-subscription';

/** `SERVICE_MOCK=true`: the service's answers, the subscription and the closes played in process (no ledger, no key). */
export function playedMode(parts: AgentParts): AgentModeParts {
  const mock = new MockService(parts.wallet.address);
  const service = new PlayedService(parts.wallet.address, mock);
  return {
    service,
    subscription: new PlayedSubscription(mock),
    closes: new PlayedCloses(parts.wallet, service, mock, parts.audit, parts.presigned, parts.logger),
  };
}
