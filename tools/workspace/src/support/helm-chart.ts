import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { kubeTool } from './kube-tools';
import type { K8sObject } from './kubernetes-models';

export interface HelmChart {
  /** Runs helm with its config, cache and data folders in a temporary place. */
  helm(...args: string[]): { status: number | null; stdout: string; stderr: string };
  /** A values file written from an object, for the refusal cases. */
  valuesFile(values: unknown): string;
  /** `helm template` of the chart with a values file, as objects. */
  render(valuesPath: string, release?: string): K8sObject[];
  /** Removes the temporary folders. */
  cleanUp(): void;
}

/** The real helm binary (kube-tools) on one chart, without a cluster. */
export function helmChart(chart: string, namespace = 'wallets'): HelmChart {
  const home = mkdtempSync(join(tmpdir(), 'rp-helm-'));
  const binary = kubeTool('helm');
  const helm = (...args: string[]) => {
    const result = spawnSync(binary, args, {
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH'],
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  return {
    helm,
    valuesFile(values) {
      const path = join(home, `values-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(path, stringify(values));
      return path;
    },
    render(valuesPath, release = 'agent-alice') {
      const result = helm('template', release, chart, '--namespace', namespace, '-f', valuesPath);
      if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
      return parseAllDocuments(result.stdout)
        .map((document) => document.toJSON() as K8sObject | null)
        .filter((object): object is K8sObject => object !== null);
    },
    cleanUp: () => rmSync(home, { recursive: true, force: true }),
  };
}
