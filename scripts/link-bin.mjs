// Links the project's own bin into node_modules/.bin, where `npx risk-cli` looks first. npm links
// the bins of a project's dependencies there, not the project's own: without this link, npx
// installed the project into its own cache as a `file:` dependency and built it again, about 15 s
// before the first run and again after every change (measured on 2026-11-27), against about a
// second with it. Run by `prepare`, after the build; a system that refuses the link only loses
// that speed-up, so it is a warning, not a failure.
import { lstatSync, mkdirSync, symlinkSync } from "node:fs";

const LINK = "node_modules/.bin/risk-cli";

try {
  if (lstatSync("node_modules", { throwIfNoEntry: false })?.isDirectory()) {
    mkdirSync("node_modules/.bin", { recursive: true });
    // A link or file already there (another tool's, or this one's from an earlier install) is kept.
    if (!lstatSync(LINK, { throwIfNoEntry: false })) symlinkSync("../../dist/bin/risk-cli.js", LINK);
  }
} catch (e) {
  console.warn(
    `warning: could not link ${LINK} (${e.code ?? e.message}); run node dist/bin/risk-cli.js instead of npx`,
  );
}
