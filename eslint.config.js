// Typed linting for every workspace package, and the import boundaries (ADR 0065): no deployable
// imports another, and each layer of a service imports only the layers beneath it.
import { readdirSync, readFileSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.infra/**', 'infra/ferretdb/**', 'eslint.config.js', 'bench/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['vitest.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...importBoundaries(),
  // Plain ES-module scripts (the benchmark) have no tsconfig: lint them without type information.
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    // Tests read JSON responses whose shape is what they assert.
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
);

/**
 * `no-restricted-imports` per deployable and per layer, by path so that feature folders inside a layer
 * (`src/domain/moderation/`) stay fenced. One config object sets the rule for a file (a later object
 * replaces an earlier one's options), so each object carries the deployable fence as well.
 */
function importBoundaries() {
  // The shared packages are whatever lives in packages/; any other `@chat/…` is a deployable (a
  // service, the gateway), which no other code imports: a new service is fenced without naming it.
  const packageNames = readdirSync(new URL('./packages/', import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => JSON.parse(readFileSync(new URL(`./packages/${entry.name}/package.json`, import.meta.url), 'utf8')).name.slice('@chat/'.length));
  const deployables = [
    {
      regex: `^@chat/(?!(${packageNames.join('|')})(/|$))`,
      message: 'A deployable imports only @chat/contracts and the shared packages, never another service or the gateway.',
    },
    {
      regex: '^(\\.\\./)+(.*/)?(src|dist|services|gateway|packages)(/|$)',
      message: 'A relative import may not leave its own service or package: import a package\'s public entry.',
    },
  ];
  const layer = (names, message) => ({ regex: `^\\.{1,2}/(.*/)?(${names.join('|')})/`, message });
  const rule = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns: [...deployables, ...patterns] }] });
  const notTests = ['**/*.test.ts'];

  // Domain code is pure: its own folder, @chat/contracts, and three packages judged pure (no I/O on
  // load): @chat/eventsourcing (decider types, backoffDelay), zod (validation) and re2 (a regex engine).
  const domainOnly = {
    regex: '^(?!\\.|@chat/contracts$|@chat/eventsourcing$|zod$|re2$)',
    message: 'Domain code imports only domain/, @chat/contracts, @chat/eventsourcing, zod and re2.',
  };
  const leavingDomain = (depth) => ({ regex: `^(\\.\\./){${depth + 1}}`, message: 'Domain code imports only domain/ (and contracts).' });
  const domainDepths = [0, 1, 2, 3].map((depth) => ({
    files: [`services/*/src/domain/${'*/'.repeat(depth)}*.ts`],
    ignores: notTests,
    rules: rule(domainOnly, leavingDomain(depth)),
  }));

  return [
    { files: ['services/*/src/**/*.ts', 'gateway/src/**/*.ts', 'packages/*/src/**/*.ts'], rules: rule() },
    ...domainDepths,
    // A domain test may build its input with a projection's test events, but reaches no further.
    { files: ['services/*/src/domain/**/*.test.ts'], rules: rule(layer(['adapters', 'http', 'app', 'consumers'], 'Domain tests need no I/O layer.')) },
    { files: ['services/*/src/app/**/*.ts'], ignores: notTests, rules: rule(layer(['http'], 'Use cases do not import the http layer: it maps requests into their types.')) },
    {
      files: ['services/*/src/projections/**/*.ts'],
      ignores: notTests,
      rules: rule(layer(['http', 'app', 'adapters', 'consumers'], 'Projections fold events into documents: they import domain/ and packages only.')),
    },
    { files: ['services/*/src/{adapters,consumers}/**/*.ts'], ignores: notTests, rules: rule(layer(['http'], 'Only main/service wire the http layer.')) },
    // Benchmarks drive a service through HTTP and Kafka, or take what they run directly from its
    // package entry (`@chat/messages`): a service's compiled files are no API, and a move breaks them.
    {
      files: ['bench/**/*.mjs'],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [{ regex: '^(\\.\\./)+(services/[^/]+|gateway)/(src|dist)/', message: "A benchmark imports a service's package entry (@chat/<service>), never its compiled files." }] },
        ],
      },
    },
  ];
}
