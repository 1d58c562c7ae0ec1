import { bootstrap } from '@rp/platform';
import { txbApp } from './txb.app';

void bootstrap(txbApp);
