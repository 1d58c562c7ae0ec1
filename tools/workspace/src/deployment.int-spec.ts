/**
 * Deployment files checked without a cluster or a Docker engine: the kustomize base and production overlay are
 * rendered (kubectl kustomize) and validated against the Kubernetes schemas; every container's environment and every
 * compose service's environment passes the app's own settings validation; the Dockerfile matches the apps.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { APP_SLOTS, checkSettings, describeSettings } from '@rp/dev';
import { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { IService } from 'kubernetes-models/v1/Service';
import { parse, parseAllDocuments } from 'yaml';
import { SAMPLE_SECRET_VALUES, documentedSecrets } from './support/deployment-secrets';
import { K8sObject, kubernetesModel } from './support/kubernetes-models';

const root = resolve(__dirname, '../../..');
const SERVICES = ['gateway', 'subscription', 'txb', 'notifications'];
/** The notifications image in its other roles: Deployments without a Service (workers autoscaled). */
const NOTIFICATION_ROLES = { 'notifications-worker': 'worker', 'notifications-monitor': 'monitor' } as const;
const DEPLOYMENTS = [...SERVICES, ...Object.keys(NOTIFICATION_ROLES)];
/** The services behind the gateway: only the gateway may reach them. */
const BEHIND_THE_GATEWAY = ['subscription', 'txb', 'notifications'];
const defaultPort = (app: string) => describeSettings(app).find((setting) => setting.name === 'PORT')?.default;

function render(path: string): K8sObject[] {
  let output: string;
  try {
    output = execFileSync('kubectl', ['kustomize', resolve(root, path)], { encoding: 'utf8' });
  } catch (error) {
    throw new Error(`kubectl kustomize ${path} failed (kubectl 1.27+ is needed for this test): ${String(error)}`);
  }
  return parseAllDocuments(output).map((document) => document.toJSON() as K8sObject);
}

describe.each(['k8s/base', 'k8s/overlays/production'])('the Kubernetes manifests of %s', (path) => {
  const objects = render(path);
  const secrets = documentedSecrets();
  const deployments = objects.filter((o) => o.kind === 'Deployment') as unknown as (IDeployment & K8sObject)[];
  const services = objects.filter((o) => o.kind === 'Service') as unknown as (IService & K8sObject)[];

  it('render objects that are valid against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      const model = kubernetesModel(object);
      expect({ object: `${object.kind}/${object.metadata.name}`, known: model !== undefined }).toEqual({
        object: `${object.kind}/${object.metadata.name}`,
        known: true,
      });
      expect(() => model!.validate()).not.toThrow();
    }
  });

  it('have a Deployment, a Service and a disruption budget for each service', () => {
    const names = (kind: string) =>
      objects
        .filter((o) => o.kind === kind)
        .map((o) => o.metadata.name)
        .sort();
    expect(names('Service')).toEqual([...SERVICES].sort());
    expect(names('Deployment')).toEqual([...DEPLOYMENTS].sort());
    expect(names('PodDisruptionBudget')).toEqual([...DEPLOYMENTS].sort());
  });

  it('run notifications as three Deployments of one image: the API, the autoscaled workers and the monitor', () => {
    const role = (name: string) =>
      deployments
        .find((d) => d.metadata.name === name)!
        .spec!.template.spec!.containers[0].env?.find((e) => e.name === 'NOTIFICATIONS_ROLE')?.value;
    expect(role('notifications')).toBe('api');
    const image = deployments.find((d) => d.metadata.name === 'notifications')!.spec!.template.spec!.containers[0]
      .image;
    for (const [name, value] of Object.entries(NOTIFICATION_ROLES)) {
      const deployment = deployments.find((d) => d.metadata.name === name)!;
      const pod = deployment.spec!.template.spec!;
      expect(role(name)).toBe(value);
      expect(pod.containers[0].image).toBe(image);
      expect(pod.containers[0].readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      // Different pod labels: the notifications Service never routes to workers or the monitor.
      expect(deployment.spec!.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': name });
      const policy = objects.find(
        (o) => o.kind === 'NetworkPolicy' && o.metadata.name === name,
      ) as unknown as INetworkPolicy;
      expect(policy.spec?.ingress?.flatMap((rule) => rule.from ?? [])).toEqual([
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
          podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
        },
      ]);
    }
    const hpa = objects.find(
      (o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'notifications-worker',
    ) as unknown as {
      spec: { scaleTargetRef: { name: string }; minReplicas: number; maxReplicas: number };
    };
    expect(hpa.spec.scaleTargetRef.name).toBe('notifications-worker');
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
  });

  it.each(SERVICES)('run %s hardened, probed on its own port, with time to drain', (app) => {
    const deployment = deployments.find((d) => d.metadata.name === app)!;
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0];
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    expect(env['PORT']).toBe(String(defaultPort(app)));
    expect(container.ports).toEqual([{ name: 'http', containerPort: defaultPort(app) }]);
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    const shutdownMs = Number(objects.find((o) => o.kind === 'ConfigMap')?.data?.['SHUTDOWN_TIMEOUT_MS']);
    const preStopSeconds = Number(container.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
    expect(pod.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(shutdownMs + preStopSeconds * 1000);
    const service = services.find((s) => s.metadata.name === app)!;
    expect(service.spec?.selector).toEqual(deployment.spec!.selector.matchLabels);
    expect(service.spec?.ports?.[0]).toMatchObject({ port: defaultPort(app), targetPort: 'http' });
  });

  it.each(DEPLOYMENTS)('give %s an environment its settings validation accepts', (name) => {
    const app = name.startsWith('notifications') ? 'notifications' : name;
    const container = deployments.find((d) => d.metadata.name === name)!.spec!.template.spec!.containers[0];
    const env: Record<string, string> = {};
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef) {
        Object.assign(
          env,
          objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef!.name)?.data,
        );
      }
      if (source.secretRef) {
        const name = source.secretRef.name ?? '';
        const secret = secrets.get(name);
        expect({ secret: name, documented: secret !== undefined }).toEqual({ secret: name, documented: true });
        Object.assign(env, secret);
      }
    }
    for (const variable of container.env ?? []) env[variable.name] = variable.value ?? '';
    expect(() => checkSettings(app, env)).not.toThrow();
  });

  it.each(SERVICES)('give %s the internal token from its Secret', (app) => {
    const container = deployments.find((d) => d.metadata.name === app)!.spec!.template.spec!.containers[0];
    const secrets = (container.envFrom ?? []).map((source) => source.secretRef?.name).filter(Boolean);
    expect(secrets).toContain('internal-token');
    expect(documentedSecrets().get('internal-token')).toHaveProperty('INTERNAL_TOKEN');
  });

  it('give subscription no Redis (it uses none)', () => {
    const container = deployments.find((d) => d.metadata.name === 'subscription')!.spec!.template.spec!.containers[0];
    expect((container.envFrom ?? []).map((source) => source.secretRef?.name)).not.toContain('redis-credentials');
    expect(describeSettings('subscription').map((setting) => setting.name)).not.toContain('REDIS_URL');
  });

  it.each(BEHIND_THE_GATEWAY)('let only the gateway (and Prometheus, for /metrics) reach %s', (app) => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy') as unknown as (INetworkPolicy & K8sObject)[];
    const deployment = deployments.find((d) => d.metadata.name === app)!;
    const policy = policies.find((p) => p.metadata.name === app)!;
    expect(policy.spec?.podSelector).toEqual(deployment.spec!.selector);
    expect(policy.spec?.policyTypes).toEqual(['Ingress']);
    const fromPods = (...names: string[]) => ({
      from: names.map((name) => ({ podSelector: { matchLabels: { 'app.kubernetes.io/name': name } } })),
      ports: [{ port: 'http' }],
    });
    expect(policy.spec?.ingress).toEqual([
      fromPods('gateway'),
      // The notifications API and txb ask subscription which accounts own their records made before accounts.
      ...(app === 'subscription' ? [fromPods('notifications', 'txb')] : []),
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
          },
        ],
        ports: [{ port: 'http' }],
      },
    ]);
    // The gateway's pods carry the label the policy admits.
    const gateway = deployments.find((d) => d.metadata.name === 'gateway')!;
    expect(gateway.spec!.template.metadata?.labels).toMatchObject({ 'app.kubernetes.io/name': 'gateway' });
  });

  it('give txb its own settings: the proposal lifetime, the RPCs callers may name, the UNWIND receiver', () => {
    const container = deployments.find((d) => d.metadata.name === 'txb')!.spec!.template.spec!.containers[0];
    const names = (container.envFrom ?? []).map((source) => source.configMapRef?.name).filter(Boolean);
    const settings = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('txb-settings'));
    expect(names).toContain(settings?.metadata.name);
    expect(Object.keys(settings?.data ?? {}).sort()).toEqual([
      'PROPOSAL_TTL_SECONDS',
      'TXB_ALLOWED_RPC_URLS',
      'TXB_UNWIND_RECEIVER',
    ]);
  });

  it('point the gateway at the services by their Service names and ports', () => {
    const env = Object.fromEntries(
      (deployments.find((d) => d.metadata.name === 'gateway')!.spec!.template.spec!.containers[0].env ?? []).map(
        (e) => [e.name, e.value],
      ),
    );
    expect(env).toMatchObject({
      SUBSCRIPTION_URL: `http://subscription:${defaultPort('subscription')}`,
      TXB_URL: `http://txb:${defaultPort('txb')}`,
      NOTIFICATIONS_URL: `http://notifications:${defaultPort('notifications')}`,
    });
  });
  it.each(['notifications', 'txb'])(
    'point %s at the subscription service (owners of records made before accounts)',
    (app) => {
      const container = deployments.find((d) => d.metadata.name === app)!.spec!.template.spec!.containers[0];
      const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
      expect(env['SUBSCRIPTION_URL']).toBe(`http://subscription:${defaultPort('subscription')}`);
    },
  );
});

describe('the production overlay', () => {
  const objects = render('k8s/overlays/production');
  const gateway = (
    objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway') as unknown as IDeployment
  ).spec!.template.spec!.containers[0];

  it('trusts exactly one proxy, the Ingress that routes to the gateway', () => {
    const env = Object.fromEntries((gateway.env ?? []).map((e) => [e.name, e.value]));
    expect(env['TRUST_PROXY']).toBe('1');
    const ingresses = objects.filter((o) => o.kind === 'Ingress') as unknown as (IIngress & K8sObject)[];
    expect(ingresses).toHaveLength(1);
    const paths = ingresses[0].spec!.rules!.flatMap((rule) => rule.http!.paths);
    expect(paths.map((path) => path.backend.service)).toEqual([{ name: 'gateway', port: { name: 'http' } }]);
  });

  it('routes only /api from outside: /metrics and /health/* (they name dependencies) stay internal', () => {
    const ingresses = objects.filter((o) => o.kind === 'Ingress') as unknown as (IIngress & K8sObject)[];
    const rules = ingresses.flatMap((ingress) => ingress.spec!.rules ?? []);
    expect(rules.length).toBeGreaterThan(0);
    const paths = rules.flatMap((rule) => rule.http!.paths);
    expect(paths.map(({ path, pathType }) => ({ path, pathType }))).toEqual([{ path: '/api', pathType: 'Prefix' }]);
    // No default backend either: a path outside /api is the controller's 404, never the gateway's.
    expect(ingresses.map((ingress) => ingress.spec!.defaultBackend)).toEqual([undefined]);
  });

  it('lets only the ingress controller (and Prometheus) reach the gateway, so no one else sets X-Forwarded-For', () => {
    const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'gateway') as unknown as
      | INetworkPolicy
      | undefined;
    expect(policy?.spec?.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'gateway' } });
    expect(policy?.spec?.ingress?.[0].from).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
      },
    ]);
    expect(policy?.spec?.ingress).toHaveLength(2);
  });
});

describe('the base', () => {
  it('trusts no proxy (no ingress is part of it)', () => {
    const objects = render('k8s/base');
    expect(objects.some((o) => o.kind === 'Ingress')).toBe(false);
    const gateway = (
      objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway') as unknown as IDeployment
    ).spec!.template.spec!.containers[0];
    expect((gateway.env ?? []).some((e) => e.name === 'TRUST_PROXY')).toBe(false);
  });

  it('starts the gateway without allocation-site pretenuring (ADR 037), on the command line', () => {
    const gateway = (
      render('k8s/base').find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway') as unknown as IDeployment
    ).spec!.template.spec!.containers[0];
    expect(gateway.command).toEqual(['node', '--no-allocation-site-pretenuring', 'main.js']);
  });
});

describe('the compose file', () => {
  const compose = parse(readFileSync(resolve(root, 'docker/compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<
      string,
      {
        build?: { args?: { APP?: string } };
        command?: string[];
        environment?: Record<string, string>;
        network_mode?: string;
        ports?: string[];
      }
    >;
  };

  /** Compose interpolation: `${X:-default}` becomes the default, `${X:?message}` a documented sample value. */
  function interpolate(value: string): string {
    return String(value).replace(
      /\$\{([A-Z0-9_]+)(?::-([^}]*)|:\?[^}]*)?\}/g,
      (_all, name: string, fallback?: string) =>
        fallback !== undefined ? fallback : (SAMPLE_SECRET_VALUES[name] ?? ''),
    );
  }

  it.each(APP_SLOTS.map((slot) => slot.app))('builds %s from its own app and gives it a valid environment', (app) => {
    const service = compose.services[app];
    expect(service.build?.args?.APP).toBe(app);
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(v)]));
    expect(env['PORT']).toBe(String(defaultPort(app)));
    expect(() => checkSettings(app, env)).not.toThrow();
  });

  it.each(SERVICES)('gives %s the required internal token, and subscription no Redis', (app) => {
    const environment = compose.services[app].environment ?? {};
    expect(environment['INTERNAL_TOKEN']).toMatch(/^\$\{INTERNAL_TOKEN:\?/);
    if (app === 'subscription') expect(environment).not.toHaveProperty('REDIS_URL');
  });

  it('keeps every database app on the recommended PostgreSQL, each in a schema of its own (ADR 001)', () => {
    expect(Object.keys(compose.services)).toContain('postgres');
    expect(Object.keys(compose.services)).not.toContain('mongo');
    for (const app of ['subscription', 'notifications', 'agent']) {
      const url = new URL(interpolate(compose.services[app].environment?.['DATABASE_URL'] ?? ''));
      expect([url.protocol, url.host, url.searchParams.get('schema')]).toEqual(['postgres:', 'postgres:5432', app]);
    }
  });

  it('points the gateway and the agent at the compose services', () => {
    expect(compose.services['gateway'].environment).toMatchObject({
      SUBSCRIPTION_URL: `http://subscription:${defaultPort('subscription')}`,
      TXB_URL: `http://txb:${defaultPort('txb')}`,
      NOTIFICATIONS_URL: `http://notifications:${defaultPort('notifications')}`,
    });
    // The agent reaches its service over https:// or loopback only: it shares the gateway's network namespace.
    expect(compose.services['agent'].environment?.['SERVICE_BASE_URL']).toBe(
      `http://127.0.0.1:${defaultPort('gateway')}`,
    );
    expect(compose.services['agent'].network_mode).toBe('service:gateway');
    // The V8 flags that keep the agent near 100 MB (issue 17) go on the command line: NODE_OPTIONS refuses them.
    expect(compose.services['agent'].command).toEqual([
      'node',
      '--disable-optimizing-compilers',
      '--memory-saver-mode',
      '--optimize-for-size',
      'main.js',
    ]);
    expect(compose.services['gateway'].ports).toContain('${AGENT_PORT:-8080}:8080');
    // The gateway runs without allocation-site pretenuring (ADR 037), a flag NODE_OPTIONS refuses.
    expect(compose.services['gateway'].command).toEqual(['node', '--no-allocation-site-pretenuring', 'main.js']);
    for (const app of ['notifications', 'txb']) {
      expect(compose.services[app].environment?.['SUBSCRIPTION_URL']).toBe(
        `http://subscription:${defaultPort('subscription')}`,
      );
    }
  });
});

describe('the Dockerfile', () => {
  const text = readFileSync(resolve(root, 'docker/Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').filter((line) => line.trim() && !line.trimStart().startsWith('#'));
  const stages = new Map<string, string[]>();
  let current = '';
  for (const line of lines) {
    const from = /^FROM \S+ AS (\S+)/.exec(line);
    if (from) current = from[1];
    stages.set(current, [...(stages.get(current) ?? []), line]);
  }

  it('builds the chosen app and runs it unprivileged, stopped by SIGTERM', () => {
    expect([...stages.keys()]).toEqual(['', 'deps', 'build', 'runtime']);
    expect(stages.get('build')!.some((line) => line.includes('npx nx build "${APP}"'))).toBe(true);
    const runtime = stages.get('runtime')!;
    expect(runtime).toContain('USER node');
    expect(runtime).toContain('STOPSIGNAL SIGTERM');
    expect(runtime.at(-1)).toBe('CMD ["node", "main.js"]');
  });

  it('installs without a compiler (better-sqlite3 13 is prebuilt) and ships the installed app folder', () => {
    const deps = stages.get('deps')!;
    expect(deps.some((line) => /apt-get install|\bg\+\+|node-gyp/.test(line))).toBe(false);
    expect(deps.some((line) => line.includes('npm install'))).toBe(true);
    expect(stages.get('build')!.some((line) => line.includes('npm install --omit=dev'))).toBe(true);
    expect(stages.get('runtime')).toContain('COPY --from=build --chown=node:node /workspace/dist/apps/${APP} ./');
  });

  it("checks health on each app's default port", () => {
    const ports = /const d=(\{[^}]+\})/.exec(text)?.[1];
    expect(ports).toBeDefined();
    const parsed = JSON.parse(ports!.replace(/(\w+):/g, '"$1":')) as Record<string, number>;
    expect(parsed).toEqual(Object.fromEntries(APP_SLOTS.map((slot) => [slot.app, defaultPort(slot.app)])));
  });
});
