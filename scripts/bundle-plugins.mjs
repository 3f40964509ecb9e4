import { readFile } from "node:fs/promises";
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

/** The line of Optique's display-width module that builds its grapheme segmenter on load. */
const EAGER_SEGMENTER = 'const segmenter = new Intl.Segmenter(void 0, { granularity: "grapheme" });';

/**
 * Optique measures the width of help and error text with an `Intl.Segmenter`, which its module
 * builds as it loads, so every command paid for one (ICU's grapheme rules: 10 to 15 ms of CPU,
 * measured against `node -e 0`), though only help and error output measures anything. The
 * bundle builds it on the first measure instead. The build fails if Optique's line changes, so
 * that an update can never silently keep or break it.
 */
export const lazyOptiqueSegmenter = {
  name: "lazy-optique-segmenter",
  setup(b) {
    b.onLoad({ filter: /[\\/]@optique[\\/]core[\\/]dist[\\/]displaywidth\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes(EAGER_SEGMENTER))
        throw new Error(
          `${args.path} no longer builds its segmenter as ${EAGER_SEGMENTER}: update scripts/bundle-plugins.mjs`,
        );
      const lazy = source.replace(
        EAGER_SEGMENTER,
        'let built;\nconst segmenter = { segment: (text) => (built ??= new Intl.Segmenter(void 0, { granularity: "grapheme" })).segment(text) };',
      );
      return { contents: lazy, loader: "js" };
    });
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
  plugins: [englishZodLocales, lazyOptiqueSegmenter],
  minify: true,
  logLevel: "warning",
};
