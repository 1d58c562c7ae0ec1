import { isAbsolute, join } from 'node:path';

export type DatabaseTarget =
  | { driver: 'mongodb'; url: string }
  | { driver: 'postgres'; url: string }
  /** `dataDir` undefined: in memory. */
  | { driver: 'pglite'; dataDir: string | undefined };

/**
 * Picks the driver from the URL's scheme: `mongodb://` / `mongodb+srv://`, `postgres://` / `postgresql://`,
 * `pglite://memory`, `pglite://<dir>` (relative to the working directory) or `pglite:///<absolute dir>`.
 * No URL means the embedded default, `.data/<app>`.
 */
export function parseDatabaseUrl(url: string | undefined, appName: string): DatabaseTarget {
  if (!url) return { driver: 'pglite', dataDir: join('.data', appName) };
  const scheme = url.slice(0, url.indexOf('://'));
  switch (scheme) {
    case 'mongodb':
    case 'mongodb+srv':
      return { driver: 'mongodb', url };
    case 'postgres':
    case 'postgresql':
      return { driver: 'postgres', url };
    case 'pglite': {
      const location = url.slice('pglite://'.length);
      if (location === 'memory' || location === '') return { driver: 'pglite', dataDir: undefined };
      return { driver: 'pglite', dataDir: isAbsolute(location) ? location : join(location) };
    }
    default:
      throw new Error(`DATABASE_URL has an unsupported scheme "${scheme}"`);
  }
}

/** The target as it may be printed: no credentials. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.driver === 'pglite') return `pglite (${target.dataDir ?? 'in memory'})`;
  const url = new URL(target.url);
  return `${target.driver} ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
}
