// Builds the published bin: cli/main.ts bundled by esbuild into dist/bin/risk-cli.js, with each
// command (and isomorphic-git, Optique) in chunks of its own that load on their first dynamic
// import, so a command loads a handful of files instead of ~390 modules. The chunks sit beside
// the entry, so cli/paths.ts finds the demo at ../../demo from any of them, as from dist/cli/.
// The metafile (what each chunk holds and imports) is kept for the loading test.
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { cliBundle } from "./bundle-plugins.mjs";

const OUT = "dist/bin";

// Chunk names carry content hashes: chunks of an earlier build would linger beside the new ones.
rmSync(OUT, { recursive: true, force: true });

const result = await build({
  ...cliBundle,
  entryPoints: { "risk-cli": "cli/main.ts" },
  outdir: OUT,
  splitting: true,
  metafile: true,
  legalComments: "none",
  // Less to parse at every start; the source map gives names back under --enable-source-maps.
  sourcemap: "linked",
});

writeFileSync(`${OUT}/meta.json`, JSON.stringify(result.metafile));
chmodSync(`${OUT}/risk-cli.js`, 0o755);
