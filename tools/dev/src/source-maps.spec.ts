import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './app-process';

/** What run-app.cjs turns on before it loads an app: source maps for our code only (issue 17: the agent's memory). */
describe('enableOwnSourceMaps', () => {
  it('maps our compiled code and leaves the maps of node_modules unread', () => {
    const script = [
      `require(${JSON.stringify(join(WORKSPACE_ROOT, 'tools/compile/source-maps.cjs'))}).enableOwnSourceMaps();`,
      `process.stdout.write(JSON.stringify(require('node:module').getSourceMapsSupport()));`,
    ].join('\n');
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ enabled: true, nodeModules: false, generatedCode: false });
  });
});
