// Makes the compiled CLI executable: npm links dist/cli/main.js as the `risk-cli` bin.
import { chmodSync } from "node:fs";
chmodSync(new URL("../dist/cli/main.js", import.meta.url), 0o755);
