import type { SandboxSetup } from '../control/sandbox-setup';
import { loadDemoScenario, type LoadedScenario } from './demo';

export type ScenarioName = 'demo' | 'empty';
export const SCENARIOS: readonly ScenarioName[] = ['demo', 'empty'];

export { DEMO_ACCOUNTS, DEMO_WALLETS } from './demo-accounts';
export { DEMO_PRICES, loadDemoScenario } from './demo';
export type { DemoWallet, LoadedScenario } from './demo';

export function loadScenario(name: ScenarioName, setup: SandboxSetup): LoadedScenario | undefined {
  return name === 'demo' ? loadDemoScenario(setup) : undefined;
}
