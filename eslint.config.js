// Flat config shared by every package and tool. Type-aware rules are left out on purpose:
// `typecheck` already runs tsc in strict mode, and lint must stay fast on two cores.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/build/**', '**/src/gen/**', '**/node_modules/**', '**/coverage/**', '**/.nx/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
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
);
