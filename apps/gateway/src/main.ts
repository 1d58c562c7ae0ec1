import { bootstrap } from '@rp/platform';
import { gatewayApp } from './gateway.app';

void bootstrap(gatewayApp);
