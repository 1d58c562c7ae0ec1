import type { ComponentsObject, OpenAPIObject, PathItemObject, TagObject } from '@nestjs/swagger';
import { HTTP_METHODS, componentOfRef, mapRefs } from '@rp/platform';

export const COMPONENT_KINDS = [
  'schemas',
  'responses',
  'parameters',
  'examples',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

/** One service's document, as it goes into the merge. */
export interface ServiceDocument {
  service: string;
  /** Given to the service's operations that carry no tag of their own. */
  tag?: TagObject;
  document: Pick<OpenAPIObject, 'paths' | 'components' | 'tags'>;
}

export interface MergedDocuments {
  paths: Record<string, PathItemObject>;
  components: ComponentsObject;
  tags: TagObject[];
  /** The tags of each service, for readers that group them (`x-tagGroups`). */
  tagGroups: { name: string; tags: string[] }[];
  /** `kind/name` of each component that two services define differently; each got `<service>_<name>`. */
  renamed: string[];
  /** `METHOD path` documented by two services: the first one is kept. */
  conflicts: string[];
}

/**
 * Merges service documents into one. A component two services define identically appears once; one they define
 * differently is renamed `<service>_<name>` in every service that defines it, and that service's references (and
 * security requirements, for security schemes) follow. A rename can make another component differ in turn (it now
 * refers to `txb_Position`, the other to `notifications_Position`): renaming repeats until nothing more clashes.
 */
export function mergeServiceDocuments(services: readonly ServiceDocument[]): MergedDocuments {
  const clashing = new Set<string>();
  for (;;) {
    const prefixed = services.map((entry) => withPrefixedComponents(entry, clashing));
    const found = clashesAmong(prefixed);
    if (found.length === 0) return assemble(prefixed, [...clashing].sort());
    for (const key of found) clashing.add(key);
  }
}

function componentsOf(components: ComponentsObject | undefined, kind: ComponentKind): Record<string, unknown> {
  return (components?.[kind] ?? {}) as Record<string, unknown>;
}

function withPrefixedComponents(entry: ServiceDocument, clashing: ReadonlySet<string>): ServiceDocument {
  const components = entry.document.components;
  const nameOf = (kind: string, name: string): string =>
    clashing.has(`${kind}/${name}`) && Object.hasOwn(componentsOf(components, kind as ComponentKind), name)
      ? `${entry.service}_${name}`
      : name;
  const rename = (ref: string): string => {
    const component = componentOfRef(ref);
    return component ? `#/components/${component.kind}/${nameOf(component.kind, component.name)}` : ref;
  };

  const renamed: Record<string, Record<string, unknown>> = {};
  for (const kind of COMPONENT_KINDS) {
    const entries = Object.entries(componentsOf(components, kind));
    if (entries.length === 0) continue;
    renamed[kind] = Object.fromEntries(entries.map(([name, value]) => [nameOf(kind, name), mapRefs(value, rename)]));
  }
  const paths = mapRefs(entry.document.paths, rename);
  for (const item of Object.values(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.security) continue;
      operation.security = operation.security.map((requirement) =>
        Object.fromEntries(
          Object.entries(requirement).map(([name, scopes]) => [nameOf('securitySchemes', name), scopes]),
        ),
      );
    }
  }
  return { ...entry, document: { ...entry.document, paths, components: renamed as ComponentsObject } };
}

/** `kind/name` of the components defined differently by two documents. */
function clashesAmong(entries: readonly ServiceDocument[]): string[] {
  const seen = new Map<string, string>();
  const clashes = new Set<string>();
  for (const entry of entries) {
    for (const kind of COMPONENT_KINDS) {
      for (const [name, value] of Object.entries(componentsOf(entry.document.components, kind))) {
        const key = `${kind}/${name}`;
        const json = canonicalJson(value);
        const before = seen.get(key);
        if (before === undefined) seen.set(key, json);
        else if (before !== json) clashes.add(key);
      }
    }
  }
  return [...clashes];
}

function assemble(entries: readonly ServiceDocument[], renamed: string[]): MergedDocuments {
  const paths: Record<string, PathItemObject> = {};
  const components: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, TagObject>();
  const tagGroups: MergedDocuments['tagGroups'] = [];
  const conflicts: string[] = [];

  for (const { service, tag, document } of entries) {
    const used = new Set<string>(tag ? [tag.name] : []);
    if (tag && !tags.has(tag.name)) tags.set(tag.name, tag);
    for (const [path, item] of Object.entries(document.paths)) {
      const merged: PathItemObject = { ...paths[path] };
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!operation) continue;
        if (merged[method]) {
          conflicts.push(`${method.toUpperCase()} ${path}`);
          continue;
        }
        const operationTags = operation.tags?.length ? operation.tags : tag ? [tag.name] : [];
        operationTags.forEach((name) => used.add(name));
        merged[method] = { ...operation, ...(operationTags.length ? { tags: operationTags } : {}) };
      }
      paths[path] = merged;
    }
    for (const declared of document.tags ?? []) {
      if (used.has(declared.name) && !tags.has(declared.name)) tags.set(declared.name, declared);
    }
    for (const name of used) if (!tags.has(name)) tags.set(name, { name });
    if (tag) tagGroups.push({ name: service, tags: [...used] });
    for (const kind of COMPONENT_KINDS) {
      const own = componentsOf(document.components, kind);
      if (Object.keys(own).length > 0) components[kind] = { ...components[kind], ...own };
    }
  }
  return { paths, components: components as ComponentsObject, tags: [...tags.values()], tagGroups, renamed, conflicts };
}

/** JSON with object keys sorted: two definitions that differ only in key order are the same definition. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, node: unknown) =>
    typeof node === 'object' && node !== null && !Array.isArray(node)
      ? Object.fromEntries(Object.entries(node).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : node,
  );
}
