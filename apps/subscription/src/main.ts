import { bootstrap } from '@rp/platform';
import { subscriptionApp } from './subscription.app';

void bootstrap(subscriptionApp);
