import js from '@eslint/js'
import ts from 'typescript-eslint'
import svelte from 'eslint-plugin-svelte'
import importX from 'eslint-plugin-import-x'
import globals from 'globals'

/** Tests and the folders of test support may reach across layers (a real service, the real gateway). */
const TESTS = ['**/*.test.ts', 'testing/**', 'e2e/**', 'bench/**', 'scripts/**']

/**
 * The layers, as the linter keeps them (`import-x/no-restricted-paths`): each zone names what files under
 * `target` may not import from `from`.
 */
const LAYERS = [
  {
    target: './src-shared',
    from: ['./src-main', './src-renderer', './src-server', './testing', './e2e', './bench', './scripts'],
    message: 'src-shared is what every side imports: it imports nothing local but itself.',
  },
  {
    target: './src-renderer',
    from: ['./src-main', './src-server', './testing'],
    message: 'The renderer reaches the main side only through the IPC contract (src-shared/ipc.ts) and the bridge.',
  },
  {
    target: './src-renderer/src/features',
    from: './src-renderer/src/app',
    message: 'Screens never import the shell: what both use lives in src-renderer/src/lib.',
  },
  {
    target: './src-server',
    from: ['./src-main', './src-renderer', './testing'],
    message: 'The local service stands alone: it shares only src-shared with the app.',
  },
  {
    target: ['./src-main', './src-web'],
    from: ['./src-renderer', './testing'],
    message: 'The main side talks to the renderer only through the IPC contract (src-shared/ipc.ts).',
  },
  {
    target: './src-main',
    from: './src-web',
    message: 'The browser host runs the main side, not the other way round.',
  },
  {
    target: ['./src-main', './src-renderer', './src-shared', './src-server', './src-web'],
    from: './node_modules/electron',
    message: 'Only the shell files (src-main/index.ts, src-main/preload.ts, src-main/shell/, the safeStorage store) import electron.',
  },
]

export default ts.config(
  { ignores: ['out/', 'dist/', 'node_modules/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    plugins: { 'import-x': importX },
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.ts', '**/*.svelte'],
    ignores: TESTS,
    settings: {
      'import-x/resolver': { node: { extensions: ['.ts', '.js', '.mjs', '.svelte'] } },
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Components are not followed for cycles (no-cycle cannot parse them); their scripts are linted where they are.
      'import-x/ignore': ['\\.svelte$'],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: LAYERS }],
      // A module never imports, however indirectly, one that imports it (the service's resources once did, through app.ts).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The shell: window, menu, preload, guards, and the safeStorage fallback of the keychain.
    files: ['src-main/index.ts', 'src-main/preload.ts', 'src-main/shell/**', 'src-main/secrets/safe-storage.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: LAYERS.filter((z) => z.from !== './node_modules/electron') }] },
  },
  {
    // Tests read JSON answers of many shapes; `any` there is deliberate.
    files: ['**/*.test.ts', 'testing/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser } },
  },
)
