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
