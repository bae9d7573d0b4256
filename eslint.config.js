// Flat config shared by every package and tool. Type-aware rules are left out on purpose:
// `typecheck` already runs tsc in strict mode, and lint must stay fast on two cores.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// The package graph of CONTRIBUTING.md ("Layout and rules"), checked on every import by nx's project graph:
// a role never imports another role, only contracts and shared leaves; the launcher composes roles; tools may
// use anything. A package's tag is `nx.tags` in its package.json.
const packageGraph = [
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  { sourceTag: 'scope:contracts', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:role', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:launcher', onlyDependOnLibsWithTags: ['scope:role', 'scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:tool', onlyDependOnLibsWithTags: ['*'] },
];
const boundaries = {
  depConstraints: packageGraph,
  // Packages are consumed through their built dist/ (CONTRIBUTING.md), so nx's buildable-lib check adds nothing.
  enforceBuildableLibDependency: false,
  allowCircularSelfDependency: false,
};

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/build/**', '**/src/gen/**', '**/node_modules/**', '**/coverage/**', '**/.nx/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@virt-launcher/*/src/*', '@virt-launcher/*/dist/*', '../../*/src/*'],
              message: 'Import another package only through its face (its package name).',
            },
          ],
        },
      ],
    },
  },
  {
    // Tools may use anything, in any way: a benchmark imports a package statically in one suite and lazily in
    // another. In the launcher a lazily loaded role stays lazy (only `import type` of it elsewhere).
    files: ['tools/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { ...boundaries, checkDynamicDependenciesExceptions: ['@virt-launcher/*'] },
      ],
    },
  },
);
