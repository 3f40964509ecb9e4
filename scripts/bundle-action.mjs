// Builds the GitHub Action's committed bundle, action/risk-cli.mjs: the whole CLI in one file, so
// that `uses: OWNER/risk-cli@v1` starts in about a second with nothing to install (no npm, no
// network in the job). The test suite rebuilds it in memory and fails when the committed file
// differs from the sources: run `npm run action:bundle` after changing them.
import { writeFileSync } from "node:fs";
import { build } from "esbuild";
import { cliBundle } from "./zod-locales.mjs";

export async function actionBundle() {
  const result = await build({
    ...cliBundle,
    entryPoints: ["cli/main.ts"],
    write: false,
    legalComments: "eof",
  });
  return result.outputFiles[0].contents;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  writeFileSync("action/risk-cli.mjs", await actionBundle());
}
