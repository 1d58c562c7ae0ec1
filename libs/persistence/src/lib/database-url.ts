import { isAbsolute, join, normalize } from 'node:path';

export type DatabaseTarget =
  | { driver: 'mongodb'; url: string }
  | { driver: 'postgres'; url: string }
  /** `file` undefined: in memory. */
  | { driver: 'sqlite'; file: string | undefined };

/** The embedded database of an app when `DATABASE_URL` is unset, relative to the working directory. */
export function defaultSqliteFile(appName: string): string {
  return join('.data', `${appName}.sqlite`);
}

/**
 * Picks the driver from the URL's scheme: `mongodb://` / `mongodb+srv://`, `postgres://` / `postgresql://`,
 * `sqlite://memory`, `sqlite://<file>` (relative to the working directory) or `sqlite:///<absolute file>`.
 * No URL means the embedded default, `.data/<app>.sqlite`.
 */
export function parseDatabaseUrl(url: string | undefined, appName: string): DatabaseTarget {
  if (!url) return { driver: 'sqlite', file: defaultSqliteFile(appName) };
  const scheme = url.slice(0, url.indexOf('://'));
  switch (scheme) {
    case 'mongodb':
    case 'mongodb+srv':
      return { driver: 'mongodb', url };
    case 'postgres':
    case 'postgresql':
      return { driver: 'postgres', url };
    case 'sqlite': {
      const location = url.slice('sqlite://'.length);
      if (location === 'memory') return { driver: 'sqlite', file: undefined };
      if (location === '' || location.endsWith('/')) {
        throw new Error('DATABASE_URL sqlite:// must name a file (sqlite://.data/app.sqlite) or memory');
      }
      return { driver: 'sqlite', file: isAbsolute(location) ? location : normalize(location) };
    }
    default:
      throw new Error(`DATABASE_URL has an unsupported scheme "${scheme}"`);
  }
}

/** The target as it may be printed: no credentials. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.driver === 'sqlite') return `sqlite (${target.file ?? 'in memory'})`;
  const url = new URL(target.url);
  return `${target.driver} ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
}
