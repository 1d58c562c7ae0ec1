import type { Subscription, SubscriptionView } from '../subscription/subscription';
import type { MockService } from './mock-service';

/** The mock's subscription: always active, no key, nothing bought. */
export class PlayedSubscription implements Subscription {
  constructor(private readonly mock: MockService) {}

  apiKey(): undefined {
    return undefined;
  }

  view(): SubscriptionView {
    return this.mock.subscription();
  }

  async checkIfDue(): Promise<void> {
    // Nothing to buy: the played subscription is always active.
  }

  async keyRejected(): Promise<void> {
    // The mock never refuses a key.
  }
}
