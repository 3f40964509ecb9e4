#!/usr/bin/env node
/**
 * risk-cli's entry point. The command table is cli/parser.ts, each command lives in
 * commands/<verb>.ts, and cli/exit.ts maps errors to statuses. Nothing a command does not use is
 * loaded: the parser and every command module are imported when, and only when, they are needed,
 * so that `--version` costs little more than Node's start-up and `replay` never loads the corpus
 * code (zod, yaml, minisearch) nor isomorphic-git unless a pack needs it.
 */
import { report } from "./exit.ts";
import { inGitHubActions } from "./github-env.ts";
import { VERSION } from "../core/version.ts";
import { jsonText, oneLine } from "./terminal.ts";

async function main(argv: string[]): Promise<number> {
  // Answered before Optique loads (it weighs more than Node's own start-up), with the bytes
  // Optique prints for it.
  if (argv.length === 1 && argv[0] === "--version") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { parseArgs } = await import("./parser.ts");
  const args = await parseArgs();
  if (args.command !== "init" && args.command !== "search") {
    // One process checks each schema a handful of times: zod's compiled fast path (a generated
    // function per schema) costs more to build than it saves here, about a tenth of a steady
    // assembly's CPU. Validation itself is the same either way.
    (await import("zod")).z.config({ jitless: true });
  }
  let inActions = false;
  try {
    // Read before the command does anything: a Deno run without --allow-env is refused here.
    inActions = inGitHubActions(process.env);
    let result: unknown;
    switch (args.command) {
      case "assemble":
        result = await (await import("./commands/assemble.ts")).runAssemble({ ...args, cache: !args.noCache });
        break;
      case "archive-pull":
        result = await (await import("./commands/archive.ts")).runArchivePull(args);
        break;
      case "archive-push":
        result = await (await import("./commands/archive.ts")).runArchivePush(args);
        break;
      case "collect":
        result = await (await import("./commands/collect.ts")).runCollect(args);
        break;
      case "init":
        result = args.detect
          ? await (await import("./commands/init.ts")).runInitDetect(args)
          : (await import("./commands/init.ts")).runInit(args);
        break;
      case "replay":
        result = await (await import("./commands/replay.ts")).runReplay(args);
        break;
      case "diff":
        result = await (await import("./commands/diff.ts")).runDiff(args);
        break;
      case "verify":
        result = await (await import("./commands/verify.ts")).runVerifyCommand(args);
        break;
      case "archive-attest":
        result = await (await import("./commands/archive.ts")).runArchiveAttest(args);
        break;
      case "log-keygen": {
        const { generateNoteKey } = await import("../app/note-signer.ts");
        const key = generateNoteKey(args.name);
        if (!args.json) process.stdout.write(`${key.privateKey}\n${key.verifierKey}\n`);
        result = { ok: true, ...key };
        break;
      }
      case "serve":
        result = await (await import("./commands/serve.ts")).runServe(args);
        break;
      case "mcp":
        // Standard output belongs to the protocol: nothing else is printed there.
        await (await import("../app/mcp.ts")).serveStdio({
          hash: (await import("./runtime/node.ts")).nodeHasher,
          site: args.site,
          archive: args.archive,
          log: (line) => process.stderr.write(`${oneLine(line)}\n`),
        });
        return 0;
      case "prove":
        result = await (await import("./commands/prove.ts")).runProve(args);
        break;
      case "traffic-ingest":
        result = await (await import("./commands/traffic.ts")).runTrafficIngest(args);
        break;
      case "lint":
        result = await (await import("./commands/lint.ts")).runLint(args);
        break;
      case "search":
        result = (await import("./commands/search.ts")).runSearch(args);
        break;
    }
    if (inActions) await (await import("./github-report.ts")).reportToJob(args, result);
    if (args.json) process.stdout.write(`${jsonText(result, 2)}\n`);
    // A command that ran but found problems (lint errors) says so with ok: false.
    return (result as { ok?: boolean }).ok === false ? 1 : 0;
  } catch (e) {
    if (inActions) await (await import("./github-report.ts")).reportErrorToJob(args, e);
    return report(e, args.json);
  }
}

process.exitCode = await main(process.argv.slice(2));
