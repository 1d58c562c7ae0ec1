/** Kubernetes objects as rendered by kustomize or helm, and the `kubernetes-models` schemas that validate them. */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

const MODELS: Record<string, (object: K8sObject) => { validate(): void }> = {
  'apps/v1/Deployment': (o) => new Deployment(o as never),
  'v1/Service': (o) => new Service(o as never),
  'v1/ConfigMap': (o) => new ConfigMap(o as never),
  'v1/Secret': (o) => new Secret(o as never),
  'v1/PersistentVolumeClaim': (o) => new PersistentVolumeClaim(o as never),
  'v1/Namespace': (o) => new Namespace(o as never),
  'v1/Pod': (o) => new Pod(o as never),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o as never),
  'autoscaling/v2/HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o as never),
  'networking.k8s.io/v1/NetworkPolicy': (o) => new NetworkPolicy(o as never),
  'networking.k8s.io/v1/Ingress': (o) => new Ingress(o as never),
};

/** The object's model (its `validate()` throws on a schema violation), or undefined for a kind no test expects. */
export function kubernetesModel(object: K8sObject): { validate(): void } | undefined {
  return MODELS[`${object.apiVersion}/${object.kind}`]?.(object);
}
