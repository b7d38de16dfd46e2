// ESLint flat config: the recommended JavaScript rules plus typescript-eslint's type-aware
// recommended set, checked against tsconfig.test.json (sources, workers, bench and tests).
// kernel/ is AssemblyScript (its own types, compiled by asc) and is not linted here.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "kernel/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: "./tsconfig.test.json",
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "it", "describe", "suite"] },
          ],
        },
      ],
      // Interfaces here declare callbacks in method syntax (a launcher's terminate, a port's
      // handlers) and hand them on; flagging every hand-off would push `this: void` everywhere.
      "@typescript-eslint/unbound-method": "off",
      // Ambient declarations (kernel.ts types the little of WebAssembly it uses) are not namespaces in code.
      "@typescript-eslint/no-namespace": ["error", { allowDeclarations: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  {
    // Dependencies point down: nothing under the CLI imports it.
    files: ["src/{problem,ga,schema,io,archipelago,config,run,experiment,report}/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [{ group: ["**/cli/*"], message: "Only src/cli may import src/cli: dependencies point down." }] }],
    },
  },
  {
    // The GA core and the problem are pure and synchronous: no threads, no config layer, and
    // no zod at run time (a GA mode's option schema is built from the kit it is handed).
    files: ["src/{problem,ga}/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", {
        paths: [{ name: "node:worker_threads", message: "The GA core knows nothing of threads." }],
        patterns: [
          { group: ["**/cli/*", "**/config/*", "**/archipelago/*", "**/cluster/*", "**/run/*", "**/experiment/*", "**/report/*"], message: "src/ga and src/problem import nothing above them." },
          { group: ["zod"], allowTypeImports: true, message: "Only types from zod: options are built from the Fields kit a registry entry is handed." },
        ],
      }],
    },
  },
  {
    // Tests read the tool's JSON output untyped on purpose: they assert on its shape.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // Plain JavaScript (this file, build scripts): not in a tsconfig, so no type-aware rules; Node's globals.
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly" },
    },
  },
  {
    // The code-cache loader and its build step are CommonJS scripts (scripts/bundle.mjs says why).
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", module: "writable", __dirname: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
