import nx from '@nx/eslint-plugin';

// Module boundaries on two axes. Scope: an app sees itself and shared code only. Type: what a kind of project
// may build on. `contracts` (type:dto) depends on nothing of ours.
const scopes = ['gateway', 'subscription', 'txb', 'notifications', 'agent'].map((scope) => ({
  sourceTag: `scope:${scope}`,
  onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'],
}));

const appDependencies = ['type:domain', 'type:data', 'type:util', 'type:dto'];

const types = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: appDependencies },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:util', 'type:dto'] },
  { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:util', 'type:dto'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:dto'] },
  { sourceTag: 'type:dto', onlyDependOnLibsWithTags: [] },
  {
    sourceTag: 'type:tooling',
    onlyDependOnLibsWithTags: ['type:tooling', 'type:domain', 'type:data', 'type:util', 'type:dto'],
  },
];

/** The module-boundary rule; `typeConstraints` replaces the type axis (app integration tests widen it). */
function moduleBoundaries(typeConstraints) {
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      banTransitiveDependencies: true,
      allow: ['^.*/eslint(\\.base)?\\.config\\.[cm]?[jt]s$'],
      depConstraints: [
        ...scopes,
        { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
        ...typeConstraints,
      ],
    },
  ];
}

const DEEP_IMPORT = {
  group: ['@rp/*/*'],
  message: 'Import a library through its public entry point (@rp/<lib>), never a file inside it.',
};

// Apps reach the outside world through our libraries, never through a driver or SDK of their own: the ledger and
// x402 through @rp/ledger, databases through @rp/persistence, Redis through @rp/platform. Type-only imports too:
// a type from a driver ties the app to that driver as surely as a value.
const LIBRARY_ONLY_PACKAGES = [
  {
    group: ['@stellar/*', '@x402/*'],
    message: 'Apps reach the ledger and x402 through @rp/ledger (types included), never @stellar/* or @x402/*.',
  },
  {
    group: ['mongoose', 'mongoose/*', 'pg', 'pg/*', 'better-sqlite3', 'better-sqlite3/*'],
    message: 'Apps reach databases through @rp/persistence, never a database driver (types included).',
  },
  {
    group: ['ioredis', 'ioredis/*'],
    message: 'Apps reach Redis through @rp/platform (RedisClient, RedisModule, createFailFastRedisConnection).',
  },
];
const LIBRARY_ONLY_SOURCE = '/^(?:@stellar\\/|@x402\\/|(?:mongoose|pg|better-sqlite3|ioredis)(?:\\/|$))/';
const LIBRARY_ONLY_MESSAGE =
  'Apps reach @stellar/*, @x402/*, database drivers and ioredis only through @rp/* libraries.';
// The agent's modes are implementations chosen once at start (agent-runtime.ts, issue 21 §3): outside its mock
// mode's folder no code holds the mock or asks whether it is there.
const AGENT_MODE_SYNTAX = [
  {
    selector: "MemberExpression[object.type='ThisExpression'][property.name='mock']",
    message: 'The agent asks its AgentService, ClosePath or Subscription (chosen once in agent-runtime.ts), never a mock flag.',
  },
  {
    selector: "ImportSpecifier[imported.name='MockService']",
    message: 'MockService belongs to the mock mode (apps/agent/src/mock/): the rest of the agent sees AgentService.',
  },
];

// What every app's code may not write: a driver reached around our libraries, a Lua loader of its own (the one with
// the NOSCRIPT fallback is `runScript` in @rp/platform).
const APP_SYNTAX = [
  { selector: `ImportExpression[source.value=${LIBRARY_ONLY_SOURCE}]`, message: LIBRARY_ONLY_MESSAGE },
  { selector: `TSImportType[source.value=${LIBRARY_ONLY_SOURCE}]`, message: LIBRARY_ONLY_MESSAGE },
  {
    selector: `CallExpression[callee.name='require'][arguments.0.value=${LIBRARY_ONLY_SOURCE}]`,
    message: LIBRARY_ONLY_MESSAGE,
  },
  {
    selector: "CallExpression[callee.property.name='evalsha'], Literal[value=/NOSCRIPT/]",
    message: 'Run Lua scripts with luaScript/runScript from @rp/platform: one loader, with its NOSCRIPT fallback.',
  },
];
// BullMQ connects through the platform's Redis options (`bullConnection` from @rp/platform), never options of its own.
const BULLMQ_CONNECTION = {
  name: 'bullmq',
  importNames: ['ConnectionOptions'],
  message: "BullMQ's connection is bullConnection(settings, name) from @rp/platform.",
};

// The notifications service: its feature folders never import the module root (main.ts, notifications.app.ts),
// and its Redis seams are Nest providers, built in a feature's *.module.ts and injected, never `new`-ed in a service.
const NOTIFICATIONS_ROOT_IMPORT = {
  selector: 'ImportDeclaration[source.value=/^(\\.\\.\\/)+(main|notifications\\.(app|module))$/]',
  message: 'A notifications feature folder never imports the module root: the root composes the features.',
};
const NOTIFICATIONS_SEAMS = 'DestinationLanes|AlertCooldown|MonitorKeys|PositionCache|SchedulerLock|RedisLeases';
const NOTIFICATIONS_NEW_SEAM = {
  selector: `NewExpression[callee.name=/^(${NOTIFICATIONS_SEAMS})$/]`,
  message: "A Redis seam is a Nest provider: build it in the feature's *.module.ts and inject it.",
};

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/out-tsc', '**/coverage', 'reports', '.data', '.nx', 'tmp'],
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.cjs', '**/*.mjs'],
    rules: {
      '@nx/enforce-module-boundaries': moduleBoundaries(types),
      'no-restricted-imports': ['error', { patterns: [DEEP_IMPORT] }],
    },
  },
  {
    files: ['apps/**/*.ts'],
    rules: {
      // The TypeScript flavour also sees `import x = require()`; `import type` is refused like any import.
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ ...BULLMQ_CONNECTION, allowTypeImports: false }],
          patterns: [DEEP_IMPORT, ...LIBRARY_ONLY_PACKAGES.map((pattern) => ({ ...pattern, allowTypeImports: false }))],
        },
      ],
      'no-restricted-syntax': ['error', ...APP_SYNTAX],
    },
  },
  {
    files: ['apps/agent/src/**/*.ts'],
    ignores: ['apps/agent/src/mock/**'],
    rules: {
      'no-restricted-syntax': ['error', ...APP_SYNTAX, ...AGENT_MODE_SYNTAX],
    },
  },
  {
    files: ['apps/notifications/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts'],
    rules: { 'no-restricted-syntax': ['error', ...APP_SYNTAX, NOTIFICATIONS_ROOT_IMPORT, NOTIFICATIONS_NEW_SEAM] },
  },
  {
    // Where the seams are built: the feature modules, and the scheduler lock's factory (a test builds a second one).
    files: ['apps/notifications/src/**/*.module.ts', 'apps/notifications/src/monitor/scheduler-lock.ts'],
    rules: { 'no-restricted-syntax': ['error', ...APP_SYNTAX, NOTIFICATIONS_ROOT_IMPORT] },
  },
  {
    // App integration tests may run against the sandbox (@rp/sandbox, tagged type:sandbox), and only they (with
    // their shared setup, `*.int-support.ts`): the outside world in a test is the sandbox, never a mock of our code.
    files: ['apps/**/*.int-spec.ts', 'apps/**/*.int-support.ts'],
    rules: {
      '@nx/enforce-module-boundaries': moduleBoundaries(
        types.map((constraint) =>
          constraint.sourceTag === 'type:app'
            ? { ...constraint, onlyDependOnLibsWithTags: [...appDependencies, 'type:sandbox'] }
            : constraint,
        ),
      ),
    },
  },
  {
    // Build and test configuration, and the launch scripts (which load tools/compile, a part of no project), reach
    // into tools/ by path on purpose; they are not application code.
    files: [
      '**/webpack.config.js',
      '**/jest.config.cjs',
      'jest.preset.js',
      'tools/jest/**',
      'tools/webpack/**',
      'tools/compile/**',
      'tools/*/bin/**',
    ],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
];
