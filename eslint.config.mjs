import nx from '@nx/eslint-plugin';

// Module boundaries on two axes. Scope: an app sees itself and shared code only. Type: what a kind of project
// may build on. `contracts` (type:dto) depends on nothing of ours.
const scopes = ['gateway', 'subscription', 'txb', 'notifications', 'agent'].map((scope) => ({
  sourceTag: `scope:${scope}`,
  onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'],
}));

const types = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:data', 'type:util', 'type:dto'] },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:util', 'type:dto'] },
  { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:util', 'type:dto'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:dto'] },
  { sourceTag: 'type:dto', onlyDependOnLibsWithTags: [] },
  {
    sourceTag: 'type:tooling',
    onlyDependOnLibsWithTags: ['type:tooling', 'type:domain', 'type:data', 'type:util', 'type:dto'],
  },
];

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
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          banTransitiveDependencies: true,
          allow: ['^.*/eslint(\\.base)?\\.config\\.[cm]?[jt]s$'],
          depConstraints: [
            ...scopes,
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            ...types,
          ],
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@rp/*/*'],
              message: 'Import a library through its public entry point (@rp/<lib>), never a file inside it.',
            },
          ],
        },
      ],
    },
  },
  {
    // Build and test configuration reaches into tools/ by path on purpose; it is not application code.
    files: ['**/webpack.config.js', '**/jest.config.cjs', 'jest.preset.js', 'tools/jest/**', 'tools/webpack/**'],
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
