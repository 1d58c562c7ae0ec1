import { bootstrap } from '@rp/platform';
import { agentApp } from './agent.app';

void bootstrap(agentApp);
