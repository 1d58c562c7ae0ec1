import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DatabaseTarget } from './database-url';

/**
 * PGlite, the embedded database before SQLite, kept an app's data in the folder `<dir>/<app>` beside which SQLite
 * now keeps the file `<dir>/<app>.sqlite` (`.data/<app>` by default and under `npm start`). Nothing is migrated
 * from it: development data only. When that folder is still there, the one line to log at start; else `undefined`.
 */
export function formerPgliteDataNotice(target: DatabaseTarget, appName: string): string | undefined {
  if (target.driver !== 'sqlite' || target.file === undefined) return undefined;
  if (basename(target.file) !== `${appName}.sqlite`) return undefined;
  const folder = join(dirname(target.file), appName);
  if (!isDirectory(folder)) return undefined;
  return `${folder} is the data folder of the former embedded database (PGlite): it is ignored and can be deleted`;
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
