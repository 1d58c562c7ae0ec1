/**
 * The agent's Helm chart (k8s/helm/agent) rendered with the real helm binary, without a cluster: `helm lint`, the
 * values schema refusing bad values (a values file without a mnemonic source first), and `helm template` for the
 * example values files, each object validated against the Kubernetes schemas (`kubernetes-models`, as
 * deployment.int-spec.ts does) and each container environment passed through the agent's own settings validation.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkSettings, describeSettings, renderHelmReadme } from '@rp/dev';
import { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { IPod } from 'kubernetes-models/v1/Pod';
import { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { ISecret } from 'kubernetes-models/v1/Secret';
import { IService } from 'kubernetes-models/v1/Service';
import { parse } from 'yaml';
import { helmChart } from './support/helm-chart';
import { K8sObject, kubernetesModel } from './support/kubernetes-models';

const root = resolve(__dirname, '../../..');
const chart = resolve(root, 'k8s/helm/agent');
const example = (name: string) => join(chart, 'ci', `${name}-values.yaml`);
const MNEMONIC = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';

/** The spec's agent settings table ("Agent settings"): each is a chart value or comes from a Secret. */
const SPEC_SETTINGS = [
  'LEDGER_MNEMONIC',
  'CONTRACT_RPC_URL',
  'POLL_INTERVAL_MS',
  'SLIPPAGE',
  'CLOSE_COOLDOWN_TTL',
  'SERVICE_BASE_URL',
  'SERVICE_EMAIL',
  'SERVICE_PROJECT_NAME',
  'SERVICE_MOCK',
  'PORT',
];
/** DECISIONS.md's further agent settings. */
const DECISIONS_SETTINGS = ['ACT_AT_RISK_LEVEL', 'CLOSE_STRATEGY', 'TARGET_HEALTH_FACTOR', 'STATUS_TOKEN'];
/** Set by the chart from Secrets or fixed (HOST), never a plain value. */
const CHART_MANAGED = ['LEDGER_MNEMONIC', 'DATABASE_URL', 'REDIS_URL', 'STATUS_TOKEN', 'NOTIFY_WEBHOOK_URL', 'HOST'];
/** Agent settings the chart leaves to `extraEnv` on purpose: the image fixes NODE_ENV, URLs replace the parts. */
const LEFT_TO_EXTRA_ENV = [
  'NODE_ENV',
  'BODY_LIMIT',
  'DATABASE_DRIVER',
  'DATABASE_HOST',
  'DATABASE_PORT',
  'DATABASE_USER',
  'DATABASE_PASSWORD',
  'DATABASE_NAME',
  'REDIS_HOST',
  'REDIS_PORT',
  'REDIS_PASSWORD',
  'REDIS_DB',
];
/** What the example values files' Secrets would hold. */
const SECRET_SAMPLES: Record<string, string> = {
  LEDGER_MNEMONIC: MNEMONIC,
  DATABASE_URL: 'mongodb://agent:password@mongo:27017/agent',
  REDIS_URL: 'redis://:password@redis:6379',
  STATUS_TOKEN: 'status-token-0123456789abcdef',
  NOTIFY_WEBHOOK_URL: 'https://discord.com/api/webhooks/1/owner-token',
};

const { helm, valuesFile, render, cleanUp } = helmChart(chart);
afterAll(cleanUp);

const chartValues = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as { settings: Record<string, unknown> };
const schema = JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8')) as {
  properties: { settings: { properties: Record<string, unknown> } };
};
const settingValues = Object.keys(schema.properties.settings.properties);

describe('the agent chart', () => {
  it.each(['minimal', 'existing-secret', 'external-database'])('passes helm lint --strict with %s values', (name) => {
    const result = helm('lint', '--strict', chart, '-f', example(name));
    expect({ status: result.status, output: result.stdout + result.stderr }).toMatchObject({ status: 0 });
  });

  it('refuses a values file without a mnemonic source, and lint of the bare chart, with a clear message', () => {
    const settings = { CONTRACT_RPC_URL: 'https://rpc.example.com', SERVICE_BASE_URL: 'https://gateway.example.com' };
    const none = helm('template', 'agent-alice', chart, '-f', valuesFile({ settings }));
    expect(none.status).not.toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain("values don't meet the specifications of the schema");
    expect(none.stderr).toContain("missing property 'mnemonic'");
    const empty = helm('template', 'agent-alice', chart, '-f', valuesFile({ settings, mnemonic: {} }));
    expect(empty.status).not.toBe(0);
    expect(empty.stderr).toMatch(/at '\/mnemonic'.*\n.*missing property 'existingSecret'\n.*missing property 'value'/);
    const lint = helm('lint', chart);
    expect(lint.status).not.toBe(0);
    expect(lint.stdout).toContain("missing property 'mnemonic'");
  });

  const minimal = parse(readFileSync(example('minimal'), 'utf8')) as Record<string, Record<string, unknown>>;
  const withSettings = (settings: Record<string, unknown>) => ({
    ...minimal,
    settings: { ...minimal['settings'], ...settings },
  });
  it.each<[string, unknown, RegExp]>([
    [
      'both mnemonic sources',
      { ...minimal, mnemonic: { value: MNEMONIC, existingSecret: { name: 'x' } } },
      /at '\/mnemonic': 'oneOf' failed/,
    ],
    ['a malformed mnemonic', { ...minimal, mnemonic: { value: 'not a mnemonic' } }, /at '\/mnemonic\/value'/],
    ['a Secret without a name', { ...minimal, mnemonic: { existingSecret: { key: 'K' } } }, /missing property 'name'/],
    ['no RPC', { ...minimal, settings: { SERVICE_MOCK: true } }, /missing property 'CONTRACT_RPC_URL'/],
    ['no service outside mock mode', withSettings({ SERVICE_BASE_URL: null }), /SERVICE_BASE_URL/],
    [
      'a plain http:// service off loopback',
      withSettings({ SERVICE_BASE_URL: 'http://gateway:3000' }),
      /at '\/settings\/SERVICE_BASE_URL'/,
    ],
    [
      'a plain http:// RPC off loopback',
      withSettings({ CONTRACT_RPC_URL: 'http://rpc.example.com' }),
      /at '\/settings\/CONTRACT_RPC_URL'/,
    ],
    [
      'a plain http:// RPC off loopback second in a list',
      withSettings({ CONTRACT_RPC_URL: 'https://rpc.example.com/KEY,http://rpc.example.org' }),
      /at '\/settings\/CONTRACT_RPC_URL'/,
    ],
    ['a negative slippage', withSettings({ SLIPPAGE: -1 }), /at '\/settings\/SLIPPAGE'/],
    ['a poll interval in text', withSettings({ POLL_INTERVAL_MS: '5s' }), /at '\/settings\/POLL_INTERVAL_MS'/],
    ['an unknown strategy', withSettings({ CLOSE_STRATEGY: 'sell' }), /at '\/settings\/CLOSE_STRATEGY'/],
    ['deleverage without a target', withSettings({ CLOSE_STRATEGY: 'deleverage' }), /TARGET_HEALTH_FACTOR/],
    ['a target health factor of 1', withSettings({ TARGET_HEALTH_FACTOR: 1 }), /TARGET_HEALTH_FACTOR/],
    ['an unknown risk level', withSettings({ ACT_AT_RISK_LEVEL: 'severe' }), /ACT_AT_RISK_LEVEL/],
    ['a port out of range', withSettings({ PORT: 70000 }), /at '\/settings\/PORT'/],
    ['a mistyped setting', withSettings({ POLL_INTERVAL: 1000 }), /POLL_INTERVAL/],
    ['a key price of zero', withSettings({ SERVICE_MAX_PRICE: '0' }), /at '\/settings\/SERVICE_MAX_PRICE'/],
    ['a receiver that is no account', withSettings({ SERVICE_PAY_TO: 'CBGG' }), /at '\/settings\/SERVICE_PAY_TO'/],
    [
      'the webhook URL as a plain setting',
      withSettings({ NOTIFY_WEBHOOK_URL: 'https://discord.com/x' }),
      /NOTIFY_WEBHOOK_URL/,
    ],
    [
      'a fee cap below the minimum fee',
      withSettings({ MAX_CLOSE_FEE_STROOPS: 99 }),
      /at '\/settings\/MAX_CLOSE_FEE_STROOPS'/,
    ],
    [
      'a pool factory that is no contract',
      withSettings({ BLEND_POOL_FACTORY: 'GB3J' }),
      /at '\/settings\/BLEND_POOL_FACTORY'/,
    ],
    ['a chat id that is not one', withSettings({ NOTIFY_TELEGRAM_CHAT_ID: 'chat' }), /NOTIFY_TELEGRAM_CHAT_ID/],
    ['a secret as a plain setting', withSettings({ LEDGER_MNEMONIC: MNEMONIC }), /LEDGER_MNEMONIC/],
    ['HOST through extraEnv', { ...minimal, extraEnv: { HOST: '127.0.0.1' } }, /invalid propertyName 'HOST'/],
    ['two replicas', { ...minimal, replicas: 2 }, /at '\/replicas'/],
    ['no memory limit', { ...minimal, resources: { limits: null } }, /at '\/resources'/],
  ])('refuses %s', (_case, values, message) => {
    const result = helm('template', 'agent-alice', chart, '-f', valuesFile(values));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });

  it('passes numbers through as written (YAML numbers reach templates as floats: no 3.6e+06)', () => {
    const settings = {
      ...minimal['settings'],
      POLL_INTERVAL_MS: 3_600_000,
      LOW_FEE_BALANCE_XLM: 5.5,
      MAX_CLOSE_FEE_STROOPS: 100_000_000,
    };
    const objects = render(valuesFile({ ...minimal, settings }));
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as IDeployment;
    const env = new Map(deployment.spec!.template.spec!.containers[0].env!.map((e) => [e.name, e.value]));
    expect([env.get('POLL_INTERVAL_MS'), env.get('LOW_FEE_BALANCE_XLM'), env.get('MAX_CLOSE_FEE_STROOPS')]).toEqual([
      '3600000',
      '5.5',
      '100000000',
    ]);
  });

  it("keeps the owner's webhook URL given as a value in its Secret, never in the pod spec", () => {
    const url = 'https://discord.com/api/webhooks/1/owner-token';
    const objects = render(valuesFile({ ...minimal, notifyWebhookUrl: { value: url } }));
    const secret = objects.find((o) => o.kind === 'Secret') as unknown as ISecret;
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as IDeployment;
    expect(secret.stringData).toEqual({ LEDGER_MNEMONIC: MNEMONIC, NOTIFY_WEBHOOK_URL: url });
    const env = deployment.spec!.template.spec!.containers[0].env!.find((e) => e.name === 'NOTIFY_WEBHOOK_URL');
    expect(env).toEqual({
      name: 'NOTIFY_WEBHOOK_URL',
      valueFrom: { secretKeyRef: { name: secret.metadata!.name, key: 'NOTIFY_WEBHOOK_URL' } },
    });
    expect(JSON.stringify(deployment)).not.toContain('owner-token');
  });

  it("offers every setting of the spec's table, DECISIONS.md's and the agent's as a value or a Secret", () => {
    const offered = new Set([...settingValues, ...CHART_MANAGED]);
    expect([...SPEC_SETTINGS, ...DECISIONS_SETTINGS].filter((name) => !offered.has(name))).toEqual([]);
    const declared = describeSettings('agent').map((setting) => setting.name);
    expect(declared.filter((name) => !offered.has(name) && !LEFT_TO_EXTRA_ENV.includes(name))).toEqual([]);
    // Every value names a setting of the agent (DECISIONS.md's until the agent declares them all).
    const known = new Set([...declared, ...DECISIONS_SETTINGS]);
    expect(settingValues.filter((name) => !known.has(name))).toEqual([]);
  });

  it('has maintainers and sources in Chart.yaml, and a README generated from values.yaml as committed', () => {
    const meta = parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as {
      maintainers?: { name: string }[];
      sources?: string[];
    };
    expect(meta.maintainers?.length).toBeGreaterThan(0);
    expect(meta.sources?.every((source) => /^https:\/\//.test(source))).toBe(true);
    const committed = readFileSync(join(chart, 'README.md'), 'utf8');
    // A difference: run `node tools/dev/bin/helm-readme.cjs k8s/helm/agent` and commit the README.
    expect(committed).toBe(renderHelmReadme(chart));
    for (const value of Object.keys(schema.properties.settings.properties)) {
      expect({ value, documented: committed.includes(`\`settings.${value}\``) }).toEqual({ value, documented: true });
    }
  });

  it("defaults every setting it sets to the agent's own default", () => {
    const defaults = new Map(describeSettings('agent').map((setting) => [setting.name, setting.default]));
    const differing = Object.entries(chartValues.settings)
      .filter(([name, value]) => value !== null && defaults.has(name) && String(defaults.get(name)) !== String(value))
      .map(([name, value]) => ({ name, chart: value, agent: defaults.get(name) }));
    expect(differing).toEqual([]);
  });
});

describe.each([
  ['minimal', { database: 'embedded', ownSecret: true }],
  ['existing-secret', { database: 'embedded', ownSecret: false }],
  ['external-database', { database: 'external', ownSecret: false }],
])('the chart rendered with the %s values', (name, expected) => {
  const values = parse(readFileSync(example(name), 'utf8')) as { settings: Record<string, unknown> };
  const port = Number(values.settings['PORT'] ?? 8080);
  const objects = render(example(name));
  const find = <T>(kind: string) => objects.find((o) => o.kind === kind) as unknown as (T & K8sObject) | undefined;
  const deployment = find<IDeployment>('Deployment')!;
  const pod = deployment.spec!.template.spec!;
  const container = pod.containers[0];

  it('renders objects that are valid against the Kubernetes schemas, named after the release', () => {
    const kinds = ['Deployment', 'NetworkPolicy', 'Pod', 'Service'];
    if (expected.database === 'embedded') kinds.push('PersistentVolumeClaim');
    if (expected.ownSecret) kinds.push('Secret');
    expect(objects.map((o) => o.kind).sort()).toEqual(kinds.sort());
    for (const object of objects) {
      const model = kubernetesModel(object);
      expect({ object: object.kind, known: model !== undefined }).toEqual({ object: object.kind, known: true });
      expect(() => model!.validate()).not.toThrow();
      expect(object.metadata.name).toMatch(/^agent-alice(-data|-test-health)?$/);
      expect(object.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'agent-alice' });
    }
  });

  it('runs one pod, replaced with the Recreate strategy (never two agents for the wallet)', () => {
    expect(deployment.spec!.replicas).toBe(1);
    expect(deployment.spec!.strategy).toEqual({ type: 'Recreate' });
    expect(deployment.spec!.template.metadata!.labels).toMatchObject(deployment.spec!.selector.matchLabels!);
  });

  it('runs the agent non-root with a read-only root filesystem, a writable /tmp and its data volume', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    expect(pod.securityContext?.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.command).toEqual([
      'node',
      '--disable-optimizing-compilers',
      '--memory-saver-mode',
      '--optimize-for-size',
      'main.js',
    ]);
    expect(container.image).toBe('risk-protection/agent:0.1.0');
    const mounts = Object.fromEntries((container.volumeMounts ?? []).map((m) => [m.mountPath, m.name]));
    const volumes = Object.fromEntries((pod.volumes ?? []).map((v) => [v.name, v]));
    expect(volumes[mounts['/tmp']].emptyDir).toBeDefined();
    if (expected.database === 'embedded') {
      const claim = find<IPersistentVolumeClaim>('PersistentVolumeClaim')!;
      expect(volumes[mounts['/data']].persistentVolumeClaim?.claimName).toBe(claim.metadata.name);
      expect(claim.spec?.accessModes).toEqual(['ReadWriteOnce']);
      expect(claim.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    } else {
      expect(Object.keys(mounts)).toEqual(['/tmp']);
    }
  });

  it('limits memory to what the agent needs (it runs in 150 MB) and requests it', () => {
    const bytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)?.[1]) * 2 ** 20;
    const limit = bytes(String(container.resources?.limits?.['memory']));
    expect(limit).toBeGreaterThanOrEqual(150e6);
    expect(limit).toBeLessThanOrEqual(192 * 2 ** 20);
    expect(bytes(String(container.resources?.requests?.['memory']))).toBeLessThanOrEqual(limit);
  });

  it('probes /health on the port from PORT, serves it through a ClusterIP Service', () => {
    expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
    expect(container.startupProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    const service = find<IService>('Service')!;
    expect(service.spec?.type).toBe('ClusterIP');
    expect(service.spec?.selector).toEqual(deployment.spec!.selector.matchLabels);
    expect(service.spec?.ports).toEqual([{ name: 'http', port, targetPort: 'http' }]);
    const shutdownMs = Number(values.settings['SHUTDOWN_TIMEOUT_MS'] ?? 10_000);
    expect(pod.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(shutdownMs);
  });

  it('has a `helm test` pod that asks the Service for /health, run like the agent and let in by the NetworkPolicy', () => {
    const test = objects.find((o) => o.kind === 'Pod') as unknown as IPod & K8sObject;
    expect(test.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'test' });
    const testPod = test.spec!;
    expect(testPod.restartPolicy).toBe('Never');
    expect(testPod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const probe = testPod.containers[0];
    expect(probe.image).toBe(container.image);
    expect(probe.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    const service = find<IService>('Service')!;
    const url = probe.env?.find((e) => e.name === 'HEALTH_URL')?.value;
    expect(url).toBe(`http://${service.metadata.name}:${port}/health`);
    expect(probe.command?.slice(0, 2)).toEqual(['node', '-e']);
    expect(probe.command?.[2]).toContain('process.env.HEALTH_URL');
    expect(probe.command?.[2]).toContain('r.status === 200 ? 0 : 1');
    const policy = find<INetworkPolicy>('NetworkPolicy')!;
    const admitted = policy.spec!.ingress!.flatMap((rule) => rule.from ?? []);
    expect(
      admitted.some(
        (peer) =>
          Object.entries(peer.podSelector?.matchLabels ?? {}).every(([k, v]) => test.metadata.labels?.[k] === v) &&
          peer.namespaceSelector === undefined &&
          Object.keys(peer.podSelector?.matchLabels ?? {}).length > 0,
      ),
    ).toBe(true);
  });

  it('lets only the listed peers reach /status, on its port', () => {
    const policy = find<INetworkPolicy>('NetworkPolicy')!;
    expect(policy.spec?.podSelector).toEqual(deployment.spec!.selector);
    expect(policy.spec?.policyTypes).toEqual(['Ingress']);
    expect(policy.spec?.ingress).toHaveLength(1);
    expect(policy.spec?.ingress?.[0].ports).toEqual([{ port: 'http' }]);
    expect(policy.spec?.ingress?.[0].from).toContainEqual({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
    });
  });

  it('takes the mnemonic (and the stores, the status token) from Secrets, never as a plain value', () => {
    const env = new Map((container.env ?? []).map((e) => [e.name, e]));
    expect(env.get('HOST')?.value).toBe('0.0.0.0');
    const mnemonic = env.get('LEDGER_MNEMONIC')!;
    expect(mnemonic.value).toBeUndefined();
    expect(mnemonic.valueFrom?.secretKeyRef?.key).toBe('LEDGER_MNEMONIC');
    const database = env.get('DATABASE_URL')!;
    if (expected.database === 'embedded') {
      expect(database.value).toBe('sqlite:///data/agent.sqlite');
      expect(env.has('REDIS_URL')).toBe(false);
    } else {
      expect(database.valueFrom?.secretKeyRef).toEqual({ name: 'agent-bob-stores', key: 'DATABASE_URL' });
      expect(env.get('REDIS_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'agent-bob-stores', key: 'REDIS_URL' });
    }
    const secret = find<ISecret>('Secret');
    if (expected.ownSecret) {
      expect(mnemonic.valueFrom?.secretKeyRef?.name).toBe(secret?.metadata.name);
      expect(secret?.stringData).toEqual({ LEDGER_MNEMONIC: MNEMONIC });
      expect(deployment.spec!.template.metadata!.annotations?.['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
    } else {
      expect(secret).toBeUndefined();
    }
    if (name === 'existing-secret') {
      expect(env.get('NOTIFY_WEBHOOK_URL')?.valueFrom?.secretKeyRef).toEqual({
        name: 'agent-alice-secrets',
        key: 'NOTIFY_WEBHOOK_URL',
      });
    }
    const plain = (container.env ?? []).filter((e) => e.value !== undefined && e.name in SECRET_SAMPLES);
    const embedded =
      expected.database === 'embedded' ? [{ name: 'DATABASE_URL', value: 'sqlite:///data/agent.sqlite' }] : [];
    expect(plain).toEqual(embedded);
  });

  it("gives the agent an environment its settings validation accepts, with the values file's settings", () => {
    const secret = find<ISecret>('Secret');
    // The image sets NODE_ENV=production (docker/Dockerfile).
    const env: Record<string, string> = { NODE_ENV: 'production' };
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      env[variable.name] = ref
        ? ((ref.name === secret?.metadata.name ? secret?.stringData?.[ref.key] : SECRET_SAMPLES[variable.name]) ?? '')
        : (variable.value ?? '');
    }
    expect(() => checkSettings('agent', env)).not.toThrow();
    for (const [setting, value] of Object.entries(values.settings)) expect(env[setting]).toBe(String(value));
  });
});
