/**
 * An RPC setting (`CONTRACT_RPC_URL` and the like) as a list: one URL or several, comma-separated, tried in order.
 * Each entry must be an http(s) URL. A refusal names the entry by its position, never by its text: providers put
 * API keys in userinfo, paths and queries.
 */
export class RpcUrlListError extends Error {
  override readonly name = 'RpcUrlListError';

  constructor(reason: string) {
    super(`ledger RPC URL list: ${reason} (value not shown: it may hold credentials)`);
  }
}

/** The URLs of a comma-separated setting, in order, blanks dropped; throws `RpcUrlListError` on a bad entry. */
export function parseRpcUrlList(setting: string | readonly string[]): string[] {
  const entries = (typeof setting === 'string' ? setting.split(',') : [...setting])
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new RpcUrlListError('no URL given');
  entries.forEach((entry, index) => {
    const problem = rpcUrlProblem(entry);
    if (problem) throw new RpcUrlListError(`entry ${index + 1} of ${entries.length} ${problem}`);
  });
  const hrefs = entries.map((entry) => new URL(entry).href);
  const repeated = hrefs.findIndex((href, index) => hrefs.indexOf(href) !== index);
  if (repeated >= 0) throw new RpcUrlListError(`entry ${repeated + 1} of ${entries.length} repeats an earlier one`);
  return entries;
}

/** Why one entry is not an RPC URL (`undefined` when it is one). */
export function rpcUrlProblem(entry: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'is not an http:// or https:// URL';
  if (url.hostname === '') return 'has no host';
  return undefined;
}

/** True when `setting` is a valid RPC URL list (what a setting validator asks). */
export function isRpcUrlList(setting: unknown): boolean {
  if (typeof setting !== 'string') return false;
  try {
    parseRpcUrlList(setting);
    return true;
  } catch {
    return false;
  }
}
