import { dirname, join } from "node:path";

/**
 * zod's `locales` namespace holds every language's error messages, half of zod's bytes; risk-cli
 * reports in English, which zod sets up from its own import of locales/en.js. The namespaces (in
 * zod's classic and core exports) keep
 * English only, so that every process that validates parses half as much zod.
 */
export const englishZodLocales = {
  name: "english-zod-locales",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "../locales/index.js"), namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

/**
 * What both bundles of the CLI share (the published bin and the GitHub Action's one file): an
 * ES module for Node 20 with English-only zod. CommonJS inside dependencies may require Node
 * built-ins, which an ES module bundle can only do through a require of its own.
 */
export const cliBundle = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  banner: {
    js: 'import { createRequire as __riskCreateRequire } from "node:module"; const require = __riskCreateRequire(import.meta.url);',
  },
  plugins: [englishZodLocales],
  minify: true,
  logLevel: "warning",
};
