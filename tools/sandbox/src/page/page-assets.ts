import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { sendText } from '../server/http-io';

/**
 * Files the page loads from the sandbox itself (the machine may have no network: no CDN), read from node_modules at
 * the first request and kept. Only these names are served; the chart library is uPlot (ADR 025).
 */
const ASSETS: Readonly<Record<string, { module: string; type: string }>> = {
  '/assets/uplot.js': { module: 'uplot/dist/uPlot.iife.min.js', type: 'text/javascript; charset=utf-8' },
  '/assets/uplot.css': { module: 'uplot/dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
};

const cache = new Map<string, string>();

/** Serves a page asset; false when `pathname` is not one. */
export async function servePageAsset(res: ServerResponse, pathname: string): Promise<boolean> {
  const asset = ASSETS[pathname];
  if (!asset) return false;
  const body = cache.get(pathname) ?? (await readFile(require.resolve(asset.module), 'utf8'));
  cache.set(pathname, body);
  sendText(res, 200, asset.type, body);
  return true;
}
