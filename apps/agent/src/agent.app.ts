import { AgentConfig } from './config/agent.config';

/**
 * The agent's definition as the tools read it (`npm run settings`, the README check): its name and settings. The
 * agent does not run on Nest (see `main.ts` and docs/adr/013-risk-agent.md), so there are no modules here.
 */
export const agentApp = { name: 'agent', config: AgentConfig } as const;
