import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_NODE_FLAGS, WORKSPACE_ROOT } from './app-process';

const read = (path: string) => readFileSync(join(WORKSPACE_ROOT, path), 'utf8');

/**
 * The agent runs with the same Node flags wherever it is started (issue 17: <= 100 MB after an hour): the launcher,
 * tests and benches take `APP_NODE_FLAGS`; the Helm chart and the compose file spell them out, the young generation
 * in NODE_OPTIONS and the V8 flags NODE_OPTIONS refuses on the command line.
 */
describe('the agent Node flags', () => {
  const agentFlags = APP_NODE_FLAGS['agent'] ?? [];
  const commandLineFlags = agentFlags.filter((flag) => !flag.startsWith('--max-semi-space-size'));

  it('keep a small young generation and no optimizing compilers', () => {
    expect(agentFlags).toEqual(expect.arrayContaining(['--max-semi-space-size=2', '--disable-optimizing-compilers']));
  });

  it('are the ones the Helm chart starts the agent with', () => {
    const chart = read('k8s/helm/agent/templates/deployment.yaml');
    const quoted = ['node', ...commandLineFlags, 'main.js'].map((part) => `"${part}"`).join(', ');
    expect(chart).toContain(`command: [${quoted}]`);
    expect(chart).toContain('value: "--max-semi-space-size=2"');
  });

  it('are the ones the compose file starts the agent with', () => {
    const compose = read('docker/compose.yaml');
    const quoted = ['node', ...commandLineFlags, 'main.js'].map((part) => `'${part}'`).join(', ');
    expect(compose).toContain(`command: [${quoted}]`);
    expect(compose).toContain('NODE_OPTIONS: --max-semi-space-size=2');
  });
});

/**
 * The gateway runs without V8's allocation-site pretenuring wherever it is started (ADR 037): the launcher, tests and
 * benches take `APP_NODE_FLAGS`; the Kubernetes base and the compose file spell the flag out on the command line
 * (NODE_OPTIONS refuses it).
 */
describe('the gateway Node flags', () => {
  const gatewayFlags = APP_NODE_FLAGS['gateway'] ?? [];

  it('turn allocation-site pretenuring off', () => {
    expect(gatewayFlags).toEqual(['--no-allocation-site-pretenuring']);
  });

  it('are the ones the Kubernetes deployment starts the gateway with', () => {
    const deployment = read('k8s/base/gateway/deployment.yaml');
    const quoted = ['node', ...gatewayFlags, 'main.js'].map((part) => `"${part}"`).join(', ');
    expect(deployment).toContain(`command: [${quoted}]`);
  });

  it('are the ones the compose file starts the gateway with', () => {
    const compose = read('docker/compose.yaml');
    const quoted = ['node', ...gatewayFlags, 'main.js'].map((part) => `'${part}'`).join(', ');
    expect(compose).toContain(`command: [${quoted}]`);
  });
});
