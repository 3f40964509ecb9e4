// Builds the GitHub Action's committed bundle, action/risk-cli.mjs: the whole CLI in one file, so
// that `uses: OWNER/risk-cli@v1` starts in about a second with nothing to install (no npm, no
// network in the job). The test suite rebuilds it in memory and fails when the committed file
// differs from the sources: run `npm run action:bundle` after changing them.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "esbuild";
import { cliBundle } from "./bundle-plugins.mjs";

/**
 * A workflow step publishes; it never runs an MCP server. The MCP SDK (a third of the bundle's
 * weight) stays out: in the action, `risk-cli mcp` and `serve --mcp` say where to get them.
 */
const withoutMcp = {
  name: "without-mcp",
  setup(b) {
    b.onResolve({ filter: /[\\/]app[\\/]mcp\.ts$/ }, (args) => ({ path: args.path, namespace: "no-mcp" }));
    b.onLoad({ filter: /.*/, namespace: "no-mcp" }, () => ({
      contents: `import { RiskError } from "${resolve("core/errors.ts")}";
const absent = () => { throw new RiskError("E_USAGE", "The GitHub Action's bundle has no MCP server: install risk-cli from npm to run risk-cli mcp or serve --mcp"); };
export const serveStdio = async () => absent();
export const mcpHttpHandler = () => absent();
`,
      loader: "ts",
      resolveDir: resolve("."),
    }));
  },
};

export async function actionBundle() {
  const result = await build({
    ...cliBundle,
    plugins: [...cliBundle.plugins, withoutMcp],
    entryPoints: ["cli/main.ts"],
    write: false,
    legalComments: "eof",
  });
  return result.outputFiles[0].contents;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  writeFileSync("action/risk-cli.mjs", await actionBundle());
}
