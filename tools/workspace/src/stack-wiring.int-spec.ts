import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The wiring of the system (which app talks to which, the ledger RPC, the sandbox's stand-ins) lives in one table,
 * `APP_WIRING` (tools/dev/src/stack/app-wiring.ts), read by `npm start` and by the stack kit (`startStack`) that the
 * end-to-end suites and the benchmarks call (issue 21 §1). These rules keep a second copy from coming back.
 */
const ROOT = path.resolve(__dirname, '../../..');
/** A link setting given a computed value (a running app's or the sandbox's URL), not a fixed string. */
const WIRED_LINK =
  /\b(CONTRACT_RPC_URL|SUBSCRIPTION_URL|TXB_URL|NOTIFICATIONS_URL|SERVICE_BASE_URL)['"]?\]?\s*[:=]\s*[^'"`\s]/;

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(relative);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [relative] : [];
  });
}

function wiredLinks(files: string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .map((line, index) => ({ line: line.trim(), index }))
      .filter(({ line }) => !line.startsWith('*') && !line.startsWith('//') && WIRED_LINK.test(line))
      .map(({ line, index }) => `${file}:${index + 1}: ${line}`),
  );
}

describe('the wiring of the system', () => {
  it('is not written again by a stack builder of the e2e suites or by a benchmark: they call startStack', () => {
    const support = tsFiles('tools/e2e/src/support');
    const benches = tsFiles('tools/bench/src');
    expect(support.length).toBeGreaterThan(5);
    expect(benches.length).toBeGreaterThan(5);
    expect(support.filter((file) => file.endsWith('-stack.ts'))).toEqual([]);
    expect(wiredLinks([...support, ...benches])).toEqual([]);
  });

  it('is not written again by the launcher: its plan reads APP_WIRING', () => {
    expect(wiredLinks(['tools/dev/src/launch-plan.ts', 'tools/dev/src/launcher.ts'])).toEqual([]);
    expect(wiredLinks(['tools/dev/src/stack/app-wiring.ts']).length).toBeGreaterThan(0);
  });

  it('catches a link given a running app its URL', () => {
    expect(WIRED_LINK.test('      CONTRACT_RPC_URL: sandbox.rpcUrl,')).toBe(true);
    expect(WIRED_LINK.test("    env['SUBSCRIPTION_URL'] = subscription.url;")).toBe(true);
    expect(WIRED_LINK.test("    env['CONTRACT_RPC_URL'] = 'http://127.0.0.1:1/rpc';")).toBe(false);
  });
});
