// The linter of `npm test`: type-aware rules on src/, with the house limits: no file over 400
// lines, no function over 100, and no type assertion that the compiler cannot check.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['lib/**', 'node_modules/**', 'bench/.work/**', 'test-artifacts/**'] },
  {
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 100 }],
      '@typescript-eslint/no-unsafe-type-assertion': 'error',
    },
  },
);
