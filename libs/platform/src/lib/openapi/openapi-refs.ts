/** A `$ref` that points at nothing in its document, and where it was found (a dotted path). */
export interface DanglingRef {
  ref: string;
  at: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of `node` with every reference passed through `rename`: `$ref` values, and the values of a
 * discriminator's `mapping` (references by another name).
 */
export function mapRefs<T>(node: T, rename: (ref: string) => string): T {
  return mapNode(node, rename) as T;
}

function mapNode(node: unknown, rename: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => mapNode(item, rename));
  if (!isRecord(node)) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') copy[key] = rename(value);
    else if (key === 'discriminator' && isRecord(value) && isRecord(value['mapping'])) {
      const mapping = Object.entries(value['mapping']).map(([name, ref]) => [
        name,
        typeof ref === 'string' ? rename(ref) : ref,
      ]);
      copy[key] = { ...value, mapping: Object.fromEntries(mapping) };
    } else copy[key] = mapNode(value, rename);
  }
  return copy;
}

/** Every reference in `node` (`$ref` values and discriminator mappings), with the dotted path where it sits. */
export function collectRefs(node: unknown): DanglingRef[] {
  const found: DanglingRef[] = [];
  const visit = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${path}[${index}]`));
      return;
    }
    if (!isRecord(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key === '$ref' && typeof child === 'string') found.push({ ref: child, at });
      else if (key === 'discriminator' && isRecord(child) && isRecord(child['mapping'])) {
        for (const [name, ref] of Object.entries(child['mapping'])) {
          if (typeof ref === 'string') found.push({ ref, at: `${at}.mapping.${name}` });
        }
      } else visit(child, at);
    }
  };
  visit(node, '');
  return found;
}

/** What a local reference (`#/a/b~1c`) points at in `document`, or `undefined`. */
export function resolveLocalRef(document: unknown, ref: string): unknown {
  if (ref === '#') return document;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(segment)) node = node[Number(segment)];
    else if (isRecord(node) && Object.prototype.hasOwnProperty.call(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

/** References that do not resolve inside `document`. External ones count: a served document must stand alone. */
export function findDanglingRefs(document: object): DanglingRef[] {
  return collectRefs(document).filter(({ ref }) => resolveLocalRef(document, ref) === undefined);
}

/** The component a reference names (`#/components/schemas/Name` -> `{ kind: 'schemas', name: 'Name' }`). */
export function componentOfRef(ref: string): { kind: string; name: string } | undefined {
  const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
  return match ? { kind: match[1], name: match[2] } : undefined;
}
