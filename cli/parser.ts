/**
 * The command table: every command, option and help text, parsed by Optique (strict: unknown
 * flags are refused). Loaded by main.ts only when a command runs: Optique alone costs more CPU
 * than Node's own start-up, which `--version` does not need.
 */
import { object, or } from "@optique/core/constructs";
import { formatMessage, lineBreak, message, optionName, text, type Message } from "@optique/core/message";
import { multiple, optional, withDefault } from "@optique/core/modifiers";
import { argument, command, constant, flag, option } from "@optique/core/primitives";
import { choice, integer, string } from "@optique/core/valueparser";
import { createSuggestionMessage, findSimilar } from "@optique/core/suggestion";
import type { Usage } from "@optique/core/usage";
import { parseSync } from "@optique/core/parser";
import { VERSION } from "../core/version.ts";
import { jsonText, oneLine } from "./terminal.ts";

/** An "Examples:" footer, one command per line. */
function examples(...commands: string[]): Message {
  return [
    text(commands.length > 1 ? "Examples:" : "Example:"),
    ...commands.flatMap((c) => [lineBreak(), text(`  ${c}`)]),
  ];
}

/** An integer option whose "too large" message speaks to the user, not of JavaScript's bigint. */
const wholeNumber = (options: { min: number; max?: number; metavar?: "MINUTES" }) =>
  integer({
    type: "number",
    ...options,
    errors: {
      unsafeInteger: (input: string) =>
        options.max === undefined
          ? message`${input.slice(0, 40)} is too large: give a whole number from ${String(options.min)} to ${String(Number.MAX_SAFE_INTEGER)}.`
          : message`Expected a whole number between ${String(options.min)} and ${String(options.max)}, but got ${input.slice(0, 40)}.`,
    },
  });

/**
 * A file or folder path. An empty one (or one of spaces only) is refused: resolved, it would name
 * the current folder, so `--out ""` (a variable left unset in a script) would act on a folder
 * nobody named.
 */
const path = (metavar: "DIR" | "FILE") =>
  string({
    metavar,
    pattern: /\S/u,
    placeholder: ".",
    errors: {
      patternMismatch: message`An empty path names no file or folder: give its path (. for the current folder).`,
    },
  });

const json = withDefault(
  flag("--json", {
    description: message`Print the result as JSON on stdout; stderr then carries only warnings and errors.`,
  }),
  false,
);
const archive = withDefault(
  option("--archive", path("DIR"), {
    description: message`The archive Git repository (one commit per frame).`,
  }),
  "archive.git",
);

const publication = optional(
  option("--publication", path("DIR"), {
    description: message`The publication folder (default: the current folder when it holds a risk.config.yaml, else the built-in demo).`,
  }),
);
const site = withDefault(option("--site", path("DIR"), { description: message`The site folder.` }), "site");

const remote = optional(
  option("--remote", string({ metavar: "URL" }), {
    description: message`The archive's remote Git repository (https). Default: RISK_ARCHIVE_REMOTE, else the GitHub Actions job's repository. The token comes from RISK_ARCHIVE_TOKEN, else GITHUB_TOKEN.`,
  }),
);
const branch = optional(
  option("--branch", string({ metavar: "BRANCH" }), {
    description: message`The branch of the remote that holds the frames. Default: RISK_ARCHIVE_BRANCH, else risk-archive.`,
  }),
);

/**
 * What a user could have meant at the point where the command line's leading words (`words`)
 * lead in a usage tree: the options of the command they select (`assemble` gives assemble's,
 * `archive pull` those of archive pull), and the commands one level further. Optique suggests
 * from the top level only, where there are commands but no options.
 */
export function candidatesAt(usage: Usage, words: readonly string[]): { options: string[]; commands: string[] } {
  const options: string[] = [];
  let commands: string[] = [];
  let rest = [...words];
  const walk = (terms: Usage): void => {
    for (const term of terms) {
      if (term.type === "command") {
        if (rest[0] !== term.name) return;
        rest = rest.slice(1);
      } else if (term.type === "option") {
        options.push(...term.names);
      } else if (term.type === "exclusive") {
        const branches = term.terms.filter((branch) => branch[0]?.type === "command");
        const chosen = branches.find((branch) => branch[0]?.type === "command" && branch[0].name === rest[0]);
        if (chosen) walk(chosen);
        else commands = branches.map((branch) => (branch[0]?.type === "command" ? branch[0].name : ""));
      } else if (term.type === "optional" || term.type === "multiple") {
        walk(term.terms);
      }
    }
  };
  walk(usage);
  return { options, commands };
}

/** An unknown option or command's error, suggesting the nearest of the command being run. */
function unexpectedInput(token: string): Message {
  const name = token.split("=")[0] ?? token;
  const words = process.argv.slice(2).filter((w) => !w.startsWith("-") && w !== token);
  const { options, commands } = candidatesAt(parser.usage, words);
  // A known option that is unexpected stands after `--`, which makes every later word an argument.
  if (options.includes(name))
    return message`Unexpected argument ${optionName(token)}: after --, words are not read as options; remove the --.`;
  const suggestions = createSuggestionMessage(
    findSimilar(name, name.startsWith("-") ? options : commands).filter((s) => s !== name),
  );
  const base = message`Unexpected option or subcommand: ${optionName(token)}.`;
  return suggestions.length > 0 ? [...base, text("\n\n"), ...suggestions] : base;
}

const parser = or(
  command(
    "assemble",
    object({
      command: constant("assemble"),
      publication,
      site,
      archive,
      now: optional(
        option("--now", string({ metavar: "DATE-TIME" }), {
          description: message`The assembly instant (UTC); overrides SOURCE_DATE_EPOCH and the clock.`,
        }),
      ),
      allowFuture: withDefault(
        flag("--allow-future", {
          description: message`Accept a --now or SOURCE_DATE_EPOCH more than a day ahead of this machine's clock (refused otherwise: a typo there would stop every later assembly).`,
        }),
        false,
      ),
      push: withDefault(
        flag("--push", {
          description: message`Pull the archive's remote first, then push the new frame (fast-forward only; retried up to 3 times when another run pushed first).`,
        }),
        false,
      ),
      remote,
      branch,
      noCache: withDefault(
        flag("--no-cache", {
          description: message`Read or trust no cache and take no fast path (the output is the same, only slower).`,
        }),
        false,
      ),
      json,
    }),
    {
      brief: message`Build every surface, write the site and commit one frame to the archive.`,
      description: message`Loads and validates the publication, builds and validates every surface, writes the site folder atomically and commits the frame to the archive. Reports each phase's duration on stderr.`,
      footer: examples(
        "risk-cli assemble",
        "risk-cli assemble --publication ./my-publication --site ./public --archive ./archive.git",
        "SOURCE_DATE_EPOCH=1795262400 risk-cli assemble --json",
      ),
    },
  ),
  command(
    "archive",
    or(
      command("pull", object({ command: constant("archive-pull"), archive, remote, branch, json }), {
        brief: message`Fetch the frames that are new on the remote into the local archive.`,
        description: message`Fetches the remote branch over Git's smart HTTP protocol, sending the local head so that only new objects travel, and brings the local branch to it. An archive folder that does not exist is created. When both the local and the remote archive have frames the other lacks, the remote wins and the local frames are kept under refs/risk-cli/unpushed/.`,
        footer: examples(
          "risk-cli archive pull --remote https://github.com/owner/site.git",
          "RISK_ARCHIVE_TOKEN=... risk-cli archive pull --archive ./archive.git --branch risk-archive --json",
        ),
      }),
      command(
        "attest",
        object({
          command: constant("archive-attest"),
          frame: option("--frame", string({ metavar: "FRAME-ID" }), {
            description: message`The frame the bundle attests, as assemble printed it (000042-20261121T154500Z).`,
          }),
          bundle: option("--bundle", path("FILE"), {
            description: message`The Sigstore bundle (actions/attest-build-provenance's bundle-path) whose subject is the frame's hash.`,
          }),
          archive,
          json,
        }),
        {
          brief: message`Keep a frame's Sigstore attestation in the archive.`,
          description: message`Checks that the bundle is a Sigstore bundle whose in-toto subject is the frame's hash, then commits it to the archive's attestations ref (refs/risk-cli/attestations, pushed with the archive to the branch <branch>-attestations). The frames themselves never change. risk-cli verify --attestations checks every bundle.`,
          footer: examples(
            "risk-cli archive attest --frame 000042-20261121T154500Z --bundle attestation.jsonl --archive ./archive.git",
          ),
        },
      ),
      command("push", object({ command: constant("archive-push"), archive, remote, branch, json }), {
        brief: message`Push the local archive's frames to the remote branch (fast-forward only).`,
        description: message`Pushes the local branch to the remote branch over Git's smart HTTP protocol. Never forced: when the remote has frames the local archive lacks, exits 10 (pull, assemble on top, push again).`,
        footer: examples("risk-cli archive push --remote https://github.com/owner/site.git"),
      }),
    ),
    { brief: message`Pull or push the archive to a remote Git repository.` },
  ),
  command(
    "collect",
    object({
      command: constant("collect"),
      publication: optional(
        option("--publication", path("DIR"), {
          description: message`The publication folder (default: the current folder when it holds a risk.config.yaml, else the built-in demo).`,
        }),
      ),
      archive,
      now: optional(
        option("--now", string({ metavar: "DATE-TIME" }), {
          description: message`The instant ages are measured at (UTC); overrides SOURCE_DATE_EPOCH and the clock.`,
        }),
      ),
      json,
    }),
    {
      brief: message`Collect every instrument and print its status, value, age and any fallback, without assembling.`,
      description: message`Collects the upstream of every instrument in parallel, as assemble does, and prints what each would publish: its source status, quality, value, level, the age of the upstream publication, and why it falls back on the archive's last good value. Reads the archive's head frame for fallback values; writes nothing.`,
      footer: examples(
        "risk-cli collect",
        "risk-cli collect --publication ./my-publication --archive ./archive.git --json",
      ),
    },
  ),
  command(
    "init",
    object({
      command: constant("init"),
      // An empty folder name gets init's own message, which says what the folder is for.
      dir: argument(string({ metavar: "DIR" }), {
        description: message`A new or empty folder; with --detect, the root of an existing site.`,
      }),
      detect: withDefault(
        flag("--detect", {
          description: message`Read an existing site (Astro, Hugo, Jekyll, Eleventy, Markdown) where it lives: write only risk.config.yaml and the registries it lacks.`,
        }),
        false,
      ),
      json,
    }),
    {
      brief: message`Start a publication: copy the demo, or map an existing site with --detect.`,
      description: message`Copies the built-in demo publication (configuration, corpus, upstream readings) into DIR. With --detect, looks at the site in DIR instead and writes a risk.config.yaml whose content and urls blocks read its articles and guides where they are (globs, slugs, translations, frontmatter keys mapped or declared), listing what it could not map. Never overwrites anything.`,
      footer: examples(
        "risk-cli init ./my-publication && risk-cli assemble --publication ./my-publication",
        "risk-cli init --detect . && risk-cli lint",
      ),
    },
  ),
  command(
    "replay",
    object({
      command: constant("replay"),
      date: option("--date", string({ metavar: "DATE" }), {
        description: message`A date (end of that UTC day) or an exact date-time with a zone.`,
      }),
      out: optional(
        option("--out", path("DIR"), {
          description: message`Write the publication as it stood then into DIR, checking every file.`,
        }),
      ),
      upstream: optional(
        option("--upstream", path("DIR"), {
          description: message`Write the exact documents each upstream sent at that frame into DIR (a new or empty folder), with the reason for each that sent none.`,
        }),
      ),
      replace: withDefault(
        flag("--replace", {
          description: message`Replace the content of --out when it is a folder risk-cli wrote (a site or an earlier replay); without it, --out must be new or empty.`,
        }),
        false,
      ),
      archive,
      json,
    }),
    {
      brief: message`Give the publication as it stood at a past instant.`,
      description: message`Finds the last frame at or before the date through the archive's day index and prints it: scores, sources and statuses, models, freshness, hashes and changes. With --out, writes every surface of that frame byte for byte and checks each against the frame's fingerprints. A date before the first frame is an error.`,
      footer: examples(
        "risk-cli replay --date 2026-11-20 --out ./as-of-2026-11-20",
        "risk-cli replay --date 2026-11-21T09:30:00Z --json",
      ),
    },
  ),
  command(
    "diff",
    object({
      command: constant("diff"),
      from: option("--from", string({ metavar: "DATE" }), {
        description: message`The earlier date (end of that UTC day) or exact date-time with a zone.`,
      }),
      to: option("--to", string({ metavar: "DATE" }), {
        description: message`The later date (end of that UTC day) or exact date-time with a zone.`,
      }),
      archive,
      json,
    }),
    {
      brief: message`List the surfaces that changed and the signal moves between the frames of two dates.`,
      description: message`Finds the frame published at each date through the archive's day index, as replay does, then lists the surfaces whose content fingerprint changed, the value and level of every instrument from one frame to the other, methodology versions changed, and the objects (articles, claims, methodologies…) added, modified or removed. A date before the first frame is an error (exit 7).`,
      footer: examples(
        "risk-cli diff --from 2026-11-20 --to 2026-11-21",
        "risk-cli diff --from 2026-11-21T09:00:00Z --to 2026-11-21T12:00:00Z --archive ./archive.git --json",
      ),
    },
  ),
  command(
    "traffic",
    command(
      "ingest",
      object({
        command: constant("traffic-ingest"),
        files: multiple(
          argument(path("FILE"), {
            description: message`An access log, plain or gzip; give the rotated copies too (access.log.1, access.log.*.gz).`,
          }),
          { min: 1 },
        ),
        publication,
        archive,
        json,
      }),
      {
        brief: message`Count access-log lines into the pending human-traffic counts.`,
        description: message`Reads nginx or Apache access logs (Combined or Common Log Format, plain or gzip, rotated files included) and adds their new lines to the counts per UTC day kept beside the archive (risk-cli-traffic.json), which the next assembly publishes as /api/v1/human-traffic.json with k=5. Keeps no address, user agent, cookie, referrer path or per-visitor key. Lines already counted (the same file, or a rotated or gzipped copy) are not counted again; malformed lines are counted and reported.`,
        footer: examples(
          "risk-cli traffic ingest /var/log/nginx/access.log /var/log/nginx/access.log.1 /var/log/nginx/access.log.*.gz",
        ),
      },
    ),
    { brief: message`Count human reads from the web server's access logs.` },
  ),
  command("lint", object({ command: constant("lint"), publication, json }), {
    brief: message`Check the whole publication without writing anything.`,
    description: message`Parses every input file (exit 3: every article and guide that cannot be read is named in one run; a config or registry file that cannot be read stops it at that file), builds every corpus surface in memory and checks it against its schema (exit 4), then lists the editorial findings, each with file, line and field: reviews whose claim no longer exists and translations whose original is missing (errors, exit 1); stale translations, misplaced claim-id markers, content globs that match no document, documents dated after today and links to pages of the publication that do not exist (warnings); French articles without a claim (notes).`,
    footer: examples("risk-cli lint", "risk-cli lint --publication ./my-publication --json"),
  }),
  command(
    "search",
    object({
      command: constant("search"),
      query: argument(string({ metavar: "QUERY" }), {
        description: message`Words to look for; accents and case do not matter, prefixes match.`,
      }),
      lang: optional(
        option("--lang", choice(["fr", "en"] as const, { metavar: "fr|en" }), {
          description: message`Search one language only: fr or en.`,
        }),
      ),
      limit: withDefault(
        option("--limit", wholeNumber({ min: 1, max: 1000 }), { description: message`How many results to print.` }),
        10,
      ),
      site,
      json,
    }),
    {
      brief: message`Query the search index of the last assembly.`,
      description: message`Loads /api/v1/search-index.json from the site folder (the same minisearch index a browser page loads) and prints the best matches, French and English unless --lang is given.`,
      footer: examples(
        'risk-cli search "carry trade yen"',
        'risk-cli search "dette publique" --lang fr --limit 5',
        'risk-cli search "spread" --lang en --json',
      ),
    },
  ),
  command(
    "serve",
    object({
      command: constant("serve"),
      site,
      archive: optional(
        option("--archive", path("DIR"), {
          description: message`Also answer Memento (RFC 7089) from this archive: Accept-Datetime on a surface redirects to the version published then, /memento/<frame-id>/<path> serves it byte for byte, /timemap/<path> lists the versions.`,
        }),
      ),
      host: withDefault(
        option("--host", string({ metavar: "HOST" }), {
          description: message`The address to listen on; keep 127.0.0.1 and put a reverse proxy in front to serve the public.`,
        }),
        "127.0.0.1",
      ),
      port: withDefault(
        option("--port", wholeNumber({ min: 0, max: 65535 }), { description: message`The TCP port.` }),
        8080,
      ),
      mcp: withDefault(
        flag("--mcp", {
          description: message`Also answer MCP clients (Streamable HTTP, stateless) at /mcp: the tools of risk-cli mcp over HTTP.`,
        }),
        false,
      ),
      mcpOrigins: multiple(
        option("--mcp-origin", string({ metavar: "ORIGIN" }), {
          description: message`An Origin allowed to call /mcp besides loopback pages (repeatable), as https://agents.example.org; any other Origin is refused with 403.`,
        }),
      ),
      json,
    }),
    {
      brief: message`Serve the site folder as the contract says (CORS, content types, ETags, ranges, compression).`,
      description: message`Serves GET and HEAD of the site's files with the contract's media types (charset=utf-8 on text), Access-Control-Allow-Origin: *, nosniff, a strong ETag per representation (the file's SHA-256, suffixed when compressed), one byte range (with If-Range), gzip and brotli by q-value, and a Cache-Control per kind of file. Never serves a path outside the site, a dotfile or a symbolic link leading out. Listens on 127.0.0.1 by default.`,
      footer: examples(
        "risk-cli serve",
        "risk-cli serve --site ./public --port 9000",
        "risk-cli serve --archive archive.git   # then: curl -I -H 'Accept-Datetime: Sat, 21 Nov 2026 10:00:00 GMT' http://127.0.0.1:8080/api/v1/risk.json",
        "risk-cli serve --archive archive.git --mcp   # MCP clients connect to http://127.0.0.1:8080/mcp",
      ),
    },
  ),
  command(
    "mcp",
    object({
      command: constant("mcp"),
      site,
      archive: optional(
        option("--archive", path("DIR"), {
          description: message`Answer from this archive: every tool's asOf finds the frame published then, and replay_summary, diff and verify need it.`,
        }),
      ),
      // No --json: standard output belongs to the protocol.
      json: constant(false),
    }),
    {
      brief: message`Answer an MCP client over standard input and output.`,
      description: message`An MCP server (Model Context Protocol) for agents: tools to search the corpus, get a surface, a series' observations or the signals, summarise a past frame, diff two instants and verify the archive, each taking an optional asOf instant and answering only with what was published at or before it; every surface as a resource; prompts for what changed since an instant and the state at a date. Without --archive it reads the site's current assembly only.`,
      footer: examples(
        "risk-cli mcp --archive archive.git",
        '{"mcpServers": {"risk": {"command": "risk-cli", "args": ["mcp", "--archive", "/path/to/archive.git", "--site", "/path/to/site"]}}}',
      ),
    },
  ),
  command(
    "verify",
    object({
      command: constant("verify"),
      archive,
      checkpoint: optional(
        option("--checkpoint", path("FILE"), {
          description: message`A checkpoint saved from black-box.json (log.checkpoint): prove that the archive still extends it, reading the frame log's tiles only.`,
        }),
      ),
      key: optional(
        option("--key", string({ metavar: "VERIFIER-KEY" }), {
          description: message`The publisher's checkpoint verifier key (black-box.json log.verifierKey, or the archive's README): the checkpoint's signature must verify with it.`,
        }),
      ),
      attestations: withDefault(
        flag("--attestations", {
          description: message`Check instead every frame's Sigstore attestation, offline: signature against the pinned trusted root, subject equal to the frame's hash, transparency log time within --window after the frame's time. Reports attested, unattested and failing frames.`,
        }),
        false,
      ),
      window: withDefault(
        option("--window", wholeNumber({ min: 1, max: 10080, metavar: "MINUTES" }), {
          description: message`How long after a frame's time its attestation may be logged.`,
        }),
        60,
      ),
      identity: optional(
        option("--identity", string({ metavar: "URI-PREFIX" }), {
          description: message`The signing workflow the certificates must name, as a prefix: https://github.com/OWNER/REPO/.github/workflows/`,
        }),
      ),
      trustedRoot: optional(
        option("--trusted-root", path("FILE"), {
          description: message`A Sigstore trusted root (JSON) instead of the pinned public-good one (for GitHub's own instance, or a newer root).`,
        }),
      ),
      json,
    }),
    {
      brief: message`Check every frame of the archive; exit non-zero at the first that fails.`,
      description: message`Checks the chain of frame hashes, frame order and times, the frame log and its tiles, every stored surface against its fingerprints, integrity.json against its frame, and the replay index, and counts the frames whose time was pinned. Names the first frame and path that fail. With --checkpoint, proves instead that the archive extends a saved checkpoint, and names the frame it vouches for when it does not (a rollback, a rewrite or a fork).`,
      footer: examples(
        "risk-cli verify",
        "risk-cli verify --archive ./clone-of-the-archive --json",
        "risk-cli verify --checkpoint saved-checkpoint.txt --key 'risques.example.org/risk-cli/frames+1a2b3c4d+AU...'",
      ),
    },
  ),
  command(
    "log",
    command(
      "keygen",
      object({
        command: constant("log-keygen"),
        name: option("--name", string({ metavar: "ORIGIN" }), {
          description: message`The key's name: the log's origin, as black-box.json's log.origin gives it.`,
        }),
        json,
      }),
      {
        brief: message`Make an Ed25519 key pair that signs the frame log's checkpoints.`,
        description: message`Prints the private key (keep it secret: the RISK_CHECKPOINT_KEY secret of the publishing job) and the verifier key (publish it) in the text form of C2SP signed notes.`,
        footer: examples("risk-cli log keygen --name risques.example.org/risk-cli/frames"),
      },
    ),
    { brief: message`Keys for the frame log's signed checkpoints.` },
  ),
  command(
    "prove",
    object({
      command: constant("prove"),
      frame: option("--frame", string({ metavar: "FRAME-ID" }), {
        description: message`The frame to prove, as 000042-20261121T154500Z.`,
      }),
      size: optional(
        option("--size", wholeNumber({ min: 1 }), {
          description: message`The size of the tree to prove it in (a saved checkpoint's size); default every frame.`,
        }),
      ),
      archive,
      json,
    }),
    {
      brief: message`Print an inclusion proof that a frame is in the archive's frame log.`,
      description: message`Prints the frame's leaf hash, its audit path and the tree's root and checkpoint, which docs/audit.md's short Python script checks against a saved checkpoint with the standard library only.`,
      footer: examples("risk-cli prove --frame 000042-20261121T154500Z --size 100 --json"),
    },
  ),
  { errors: { unexpectedInput } },
);

/**
 * The words that Optique's runner answers itself (help, version, shell completion) instead of
 * handing them to the command table.
 */
const RUNNER_WORDS = new Set(["help", "-h", "--help", "--version", "completion", "--completion"]);

/**
 * Parses the command line; help, completion, usage errors and --version end the process here, as
 * Optique does. A command line that holds none of the runner's words and parses is answered by
 * the command table alone: Optique's runner (help pages, usage errors, completion scripts) is
 * about 40% of Optique's code, so it is loaded only for the command lines that need it. Both
 * give the same value for such a command line (test/cli/parser.test.ts).
 */
export async function parseArgs(args: readonly string[] = process.argv.slice(2)) {
  // `help <word>` for a word that is no command: Optique's runner would print the general help
  // and succeed, as if the command existed.
  if (args[0] === "help" && args[1] !== undefined && !args[1].startsWith("-")) {
    const { commands } = candidatesAt(parser.usage, []);
    if (!commands.includes(args[1]) && !RUNNER_WORDS.has(args[1])) {
      const near = findSimilar(args[1], commands);
      process.stderr.write(
        `Error: ${oneLine(args[1])} is not a command of risk-cli${near.length > 0 ? `; did you mean ${near.join(" or ")}?` : ""} (risk-cli --help lists them).\n`,
      );
      process.exit(2);
    }
  }
  if (!args.some((word) => RUNNER_WORDS.has(word.split("=")[0]!))) {
    const parsed = parseSync(parser, args);
    if (parsed.success) return parsed.value;
    // A job that asked for --json reads its failure on standard output, as for every other
    // failure; the runner then says it on standard error and exits 2.
    if (args.includes("--json"))
      process.stdout.write(
        `${jsonText({ ok: false, code: "E_USAGE", message: oneLine(formatMessage(parsed.error, { colors: false, quotes: true })) })}\n`,
      );
  }
  return runParser(args);
}

/** Optique's runner over the command table, with its help, version and completion. */
export async function runParser(args: readonly string[], options: { onExit?: (code: number) => never } = {}) {
  const { run } = await import("@optique/run");
  return run(parser, {
    args,
    ...options,
    programName: "risk-cli",
    // -h as well as --help (and `risk-cli help <command>`); defaults shown beside each option.
    help: { command: true, option: { names: ["-h", "--help"] } },
    showDefault: true,
    version: VERSION,
    completion: "both",
    errorExitCode: 2,
    // A usage error is one line (`--size`: expected at least 1): the usage of every command
    // above it would bury it. A bare `risk-cli` still gets the list of commands.
    aboveError: args.length === 0 ? "usage" : "none",
    brief: message`Builds a public, machine-readable macro-financial risk publication and archives every assembly as a verifiable Git frame.`,
    footer: message`Exit codes: 0 ok, 1 verification failed or lint found errors, 2 usage, 3 bad input, 4 schema, 5 archive locked, 6 archive or I/O error, 7 no frame at that date, 8 clock went backwards, 9 the archive remote refused or could not be reached, 10 the archive remote kept moving (frame kept locally), 70 internal error.`,
  });
}

export type Args = Awaited<ReturnType<typeof parseArgs>>;
