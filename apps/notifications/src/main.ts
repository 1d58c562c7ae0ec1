import { bootstrap } from '@rp/platform';
import { notificationsApp } from './notifications.app';

void bootstrap(notificationsApp);
