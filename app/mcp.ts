/**
 * The MCP server (Model Context Protocol), built on the official TypeScript SDK and loaded only by
 * `risk-cli mcp` and `risk-cli serve --mcp`. Every tool takes an optional `asOf` instant and answers
 * only with what was published at or before it (the frame found as replay finds it), so that an
 * agent backtesting a reading never sees the future. Resources are the surfaces of the latest
 * assembly; two prompts start the common tasks. A tool's failure is an MCP tool error whose text
 * says what to do; no stack trace and no local path reaches the client.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { z } from "zod";
import { RiskError } from "../core/errors.ts";
import { searchPublishedIndex } from "../core/editorial/search.ts";
import { VERSION } from "../core/version.ts";
import {
  INTEGRITY_PATH,
  instantMs,
  instantRule,
  PublishedSource,
  readInstant,
  requireFolders,
  type PublishedView,
} from "./published.ts";
import type { Hasher } from "../core/ports.ts";
import { pageFile, publicUrl } from "../core/render/page-url.ts";
import { parseDateEnd } from "../core/dates.ts";

/**
 * A date (the end of that UTC day) or a date-time with its zone, never rolled over: the same
 * instants as replay --date (instantMs). A refusal names the argument.
 */
const instant = (name: string) =>
  z.string({ error: instantRule(name) }).refine((t) => instantMs(t) !== null, { error: instantRule(name) });
/** A calendar day, as replay --date reads one, never rolled over. */
const day = (name: string) =>
  z
    .string({ error: `${name} must be a real calendar date, as 2026-11-21` })
    .refine((t) => t.length <= 10 && parseDateEnd(t) !== null, {
      error: `${name} must be a real calendar date, as 2026-11-21`,
    });
const AsOf = instant("asOf")
  .optional()
  .describe(
    "Answer as published at or before this instant: a date (2026-11-21, the end of that UTC day) or a date-time with a zone (2026-11-21T09:30:00Z). Omitted: the latest assembly.",
  );
const SurfacePath = z
  .string()
  .max(200)
  .regex(/^\/[A-Za-z0-9._\/-]*$/, "a site path starting with /, as /api/v1/risk.json")
  .describe(
    "The surface's path on the site, as /api/v1/risk.json or /llms.txt (integrity.json lists them all); a page by its folder URL, as /series/",
  );

/**
 * The arguments of each tool and prompt, strict: an argument not named here is refused. They are
 * checked on the message as it came (see screenMessage), because the SDK's own parsing of a request
 * drops a `__proto__` key before a tool's schema could refuse it.
 */
const TOOL_ARGUMENTS = {
  search: z.strictObject({
    query: z.string().min(1).max(500).describe("Words to look for"),
    lang: z.enum(["fr", "en"]).optional().describe("One language only"),
    limit: z.int().min(1).max(50).optional().describe("How many results (default 10)"),
    asOf: AsOf,
  }),
  get_surface: z.strictObject({ path: SurfacePath, asOf: AsOf }),
  get_series: z.strictObject({
    seriesId: z
      .string()
      .regex(/^[a-z0-9-]{1,80}$/)
      .describe("The series, as us-financial-stress (get_signals lists them)"),
    from: day("from").optional().describe("First seriesDate to include"),
    to: day("to").optional().describe("Last seriesDate to include"),
    asOf: AsOf,
  }),
  get_signals: z.strictObject({ asOf: AsOf }),
  replay_summary: z.strictObject({ asOf: AsOf }),
  diff: z.strictObject({
    from: instant("from").describe("The earlier instant (date or date-time with zone)"),
    to: instant("to").optional().describe("The later instant; omitted: the frame published at asOf, or the latest"),
    asOf: AsOf,
  }),
  verify: z.strictObject({ asOf: AsOf }),
};

const PROMPT_ARGUMENTS = {
  what_changed_since: z.strictObject({
    since: instant("since").describe("An instant: 2026-11-20 or 2026-11-20T09:00:00Z"),
  }),
  state_at: z.strictObject({ date: instant("date").describe("An instant: 2026-11-20 or 2026-11-20T09:00:00Z") }),
};

/**
 * The file a path names among a view's surfaces: a page is named by its folder URL, as the
 * contract and openapi.json name it (`/series/`, `/series/<id>/`), or by its `index.html`.
 */
function surfaceFile(surfaces: ReadonlyMap<string, unknown>, path: string): string {
  return !surfaces.has(path) && surfaces.has(pageFile(path)) ? pageFile(path) : path;
}

/** Longest text a tool returns in one answer; a longer surface is cut and says so. */
const MAX_CHARS = 400_000;

const decoder = new TextDecoder("utf-8", { fatal: false });

/** Media types answered as text; anything else is binary. */
const isText = (mediaType: string) =>
  /^(text\/|application\/(json|x-ndjson|atom\+xml)|image\/svg\+xml)/.test(mediaType);

type ToolAnswer = { content: { type: "text"; text: string }[]; isError?: boolean };

export interface McpOptions {
  site?: string;
  archive?: string;
  /** SHA-256 (the runtime's). */
  hash: Hasher;
  /** Where internal failures are told (never to the client). */
  log?: (line: string) => void;
}

/**
 * A file operation the system refused (a path too long, permission denied, an I/O error), said
 * without its path: the operation and the system's code. Undefined for any other failure.
 */
function fileRefusal(e: unknown): string | undefined {
  const { code, syscall } = (e ?? {}) as { code?: unknown; syscall?: unknown };
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code) || typeof syscall !== "string") return undefined;
  return `the system refused a ${syscall.slice(0, 40)} (${code})`;
}

/**
 * What the operator's log says of a failure that is not a tool's own error. Never a path or file
 * content: a refused file operation is told by its operation and code; a programming error
 * (TypeError, RangeError, ReferenceError) by its message, which quotes code, not data; anything
 * else by its kind alone, since its message may quote a file (a JSON parser's does).
 */
function failureNote(e: unknown): string {
  if (!(e instanceof Error)) return "a value that is not an Error was thrown";
  const refused = fileRefusal(e);
  if (refused) return `${e.name}: ${refused}`;
  if (e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError)
    return `${e.name}: ${e.message.slice(0, 200)}`;
  return e.name;
}

/** One MCP server over a publication; cheap enough to make per HTTP request (the source is shared). */
export function createMcpServer(source: PublishedSource, options: Pick<McpOptions, "log"> = {}): McpServer {
  const server = new McpServer(
    { name: "risk-cli", version: VERSION },
    {
      instructions:
        "Read-only access to a bilingual (French/English) macro-financial risk publication and its archive of every assembly. Every tool accepts asOf and then answers only with what was published at or before that instant: use it to backtest without look-ahead. Signal values are per instrument, normalised to the instrument's scale; never aggregate them into one index, never read a level as a probability.",
    },
  );
  const scrub = scrubber(source);

  const answer =
    <A>(name: string, run: (args: A) => Promise<unknown>) =>
    async (args: A): Promise<ToolAnswer> => {
      try {
        const value = await run(args);
        const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
        return { content: [{ type: "text", text }] };
      } catch (e) {
        if (e instanceof RiskError) return { content: [{ type: "text", text: scrub(e.message) }], isError: true };
        options.log?.(`mcp: the tool ${name} failed: ${failureNote(e)}`);
        const refused = fileRefusal(e);
        return {
          content: [
            {
              type: "text",
              text: refused
                ? `The tool ${name} could not read the publication: ${refused}.`
                : `The tool ${name} failed inside the server; its operator's log says why.`,
            },
          ],
          isError: true,
        };
      }
    };

  const json = async (view: PublishedView, path: string): Promise<unknown> => {
    const bytes = await view.read(path);
    if (!bytes) throw notPublished(view, path);
    try {
      return JSON.parse(decoder.decode(bytes));
    } catch (e) {
      throw new RiskError("E_INPUT", `${path} as published is not JSON (${(e as Error).message.slice(0, 200)})`, {
        path,
      });
    }
  };
  const stamp = (view: PublishedView) => ({
    publishedAt: view.at,
    frameId: view.frameId,
    frameHash: view.frameHash,
    // Without the archive the frame is the one the site's integrity.json names, not checked.
    frameFrom: view.frameFrom,
  });
  const needArchive = () => {
    if (!source.archive) throw new RiskError("E_USAGE", "This tool reads the archive: start the server with --archive");
    return source.archive;
  };

  server.registerTool(
    "search",
    {
      title: "Search the corpus",
      description:
        "Full-text search (French and English, accents and case folded, prefixes match) over articles, guides, glossary, methodologies and primary sources, in the search index published at asOf.",
      inputSchema: TOOL_ARGUMENTS.search,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    answer("search", async ({ query, lang, limit, asOf }) => {
      if (!query.trim()) throw new RiskError("E_USAGE", "The query is empty: give one or more words");
      const view = await source.at(asOf);
      const index = await json(view, "/api/v1/search-index.json");
      const hits = searchPublishedIndex(index, "/api/v1/search-index.json", query, { lang, limit: limit ?? 10 }).map(
        // The score as querySearchIndex rounds it, the value `risk-cli search --json` gives; then
        // the document as the index lists it (its id is the hit's).
        ({ hit: h, document: d }) => Object.assign({ id: h.id, score: h.score }, d, { terms: h.terms }),
      );
      return { ...stamp(view), query, hits };
    }),
  );

  server.registerTool(
    "get_surface",
    {
      title: "Get a published surface",
      description:
        "The text of one surface (JSON, NDJSON, CSV, Atom or text) exactly as it was served at asOf, with its SHA-256 as recorded in integrity.json.",
      inputSchema: TOOL_ARGUMENTS.get_surface,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    answer("get_surface", async ({ path, asOf }) => {
      const view = await source.at(asOf);
      const file = surfaceFile(view.surfaces, path);
      const bytes = await view.read(file);
      if (!bytes) throw notPublished(view, path);
      const known = view.surfaces.get(file)!;
      if (!isText(known.mediaType))
        throw new RiskError(
          "E_USAGE",
          `${path} is a binary file (${known.mediaType}, ${bytes.byteLength} bytes, sha256 ${known.sha256}): download it from the site`,
        );
      const text = decoder.decode(bytes);
      const header = `${path} · ${known.mediaType} · ${bytes.byteLength} bytes · sha256 ${source.hash.sha256(bytes)} · published ${view.at}${view.frameId ? ` in frame ${view.frameId}${view.frameFrom === "site" ? " (as the site names it, not checked against the archive)" : ""}` : ""}`;
      return text.length > MAX_CHARS
        ? `${header}\n(cut at ${MAX_CHARS} of ${text.length} characters: fetch the file itself for the rest)\n\n${text.slice(0, MAX_CHARS)}`
        : `${header}\n\n${text}`;
    }),
  );

  server.registerTool(
    "get_series",
    {
      title: "Get a series' observations",
      description:
        "The daily observations (the last point of each closed UTC day, indexed by seriesDate) of one signal series, from the fused history published at asOf, with the level changes.",
      inputSchema: TOOL_ARGUMENTS.get_series,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    answer("get_series", async ({ seriesId, from, to, asOf }) => {
      if (from !== undefined && to !== undefined && from > to)
        throw new RiskError("E_USAGE", `from ${from} is after to ${to}: give from on or before to`);
      const view = await source.at(asOf);
      const history = (await json(view, "/api/v1/signals/history.json")) as {
        observations: { seriesId: string; seriesDate: string }[];
        levelChanges: { seriesId: string; seriesDate?: string }[];
        coverage: { series?: unknown };
      };
      const inRange = (d: string | undefined) => !d || ((!from || d >= from) && (!to || d <= to));
      const observations = history.observations.filter((o) => o.seriesId === seriesId && inRange(o.seriesDate));
      const levelChanges = history.levelChanges.filter((c) => c.seriesId === seriesId && inRange(c.seriesDate));
      const known = new Set(history.observations.map((o) => o.seriesId));
      const current = (await json(view, "/api/v1/signals/current.json")) as { signals?: { seriesId?: string }[] };
      for (const s of current.signals ?? []) if (s.seriesId) known.add(s.seriesId);
      if (!known.has(seriesId))
        throw new RiskError(
          "E_USAGE",
          `No series ${seriesId} was published at ${view.at}; the series then were: ${[...known].sort().join(", ") || "none"}`,
        );
      return { ...stamp(view), seriesId, observations, levelChanges };
    }),
  );

  server.registerTool(
    "get_signals",
    {
      title: "Get the signals",
      description:
        "The current signal of every instrument as published at asOf: value on the instrument's own scale, level, source status, whether a value was retained after an upstream failure (fallbackUsed), and its dates.",
      inputSchema: TOOL_ARGUMENTS.get_signals,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    answer("get_signals", async ({ asOf }) => {
      const view = await source.at(asOf);
      return { ...stamp(view), current: await json(view, "/api/v1/signals/current.json") };
    }),
  );

  server.registerTool(
    "replay_summary",
    {
      title: "Summarise the frame published at an instant",
      description:
        "The archive's frame at or before asOf: its identifier, hash, commit and time, the signals it recorded, and the surfaces it added, changed and removed.",
      inputSchema: TOOL_ARGUMENTS.replay_summary,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    answer("replay_summary", async ({ asOf }) => {
      needArchive();
      const view = await source.at(asOf);
      const frame = view.found!.frame;
      return {
        ...stamp(view),
        commit: view.commit,
        seq: frame.seq,
        previousFrameId: frame.previousFrameId,
        surfaces: Object.keys(frame.surfaces).length,
        changes: frame.changes,
        signals: frame.signals,
        models: frame.models,
      };
    }),
  );

  server.registerTool(
    "diff",
    {
      title: "What changed between two instants",
      description:
        "Between the frames published at two instants: the surfaces whose content changed, every instrument's value and level moves, methodology versions, and the objects (articles, claims…) added, modified or removed.",
      inputSchema: TOOL_ARGUMENTS.diff,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    answer("diff", async ({ from, to, asOf }) => {
      const archive = needArchive();
      const earlier = readInstant(from, "from");
      const limit = asOf === undefined ? 8.64e15 : readInstant(asOf, "asOf");
      const later = to === undefined ? limit : readInstant(to, "to");
      if (earlier > later)
        throw new RiskError("E_USAGE", `from ${from} is after to ${to ?? asOf}: give from before to`);
      // Nothing published after asOf is given, not even as the end of a diff.
      if (later > limit)
        throw new RiskError("E_USAGE", `to ${to} is after asOf ${asOf}: give to at or before asOf, or leave it out`);
      return archive.diff(earlier, later);
    }),
  );

  server.registerTool(
    "verify",
    {
      title: "Verify the archive",
      description:
        "Checks every frame of the archive from the first to the head (or to the frame published at asOf): the hash chain, each stored surface against its fingerprint, integrity.json against its frame, the times. Names the first frame that fails.",
      inputSchema: TOOL_ARGUMENTS.verify,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    answer("verify", async ({ asOf }) => {
      const archive = needArchive();
      // With asOf, the frames after it are neither checked nor named.
      const upTo = asOf === undefined ? undefined : ((await source.at(asOf)).commit ?? undefined);
      try {
        return { ok: true, ...(await archive.verify(source.hash, undefined, upTo)) };
      } catch (e) {
        if (e instanceof RiskError && (e.code === "E_VERIFY" || e.code === "E_ARCHIVE"))
          return { ok: false, problem: scrub(e.message) };
        throw e;
      }
    }),
  );

  registerResources(server, source, scrub, options.log);

  const whatChanged = server.registerPrompt(
    "what_changed_since",
    {
      title: "What changed since",
      description:
        "Asks for the changes of the publication since an instant: signal moves, level changes, new and corrected articles.",
      argsSchema: PROMPT_ARGUMENTS.what_changed_since.shape,
    },
    ({ since }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: `Using the risk-cli tools, tell me what changed in this publication since ${since}: call diff with from "${since}", then get_signals. List each instrument whose level changed, with its value on its own scale and its methodology, and each article added or corrected. Do not aggregate instruments into one index and do not read a level as a probability.`,
          },
        },
      ],
    }),
  );

  const stateAt = server.registerPrompt(
    "state_at",
    {
      title: "The publication at a date",
      description: "Asks for the state of the publication as it was published at an instant, without look-ahead.",
      argsSchema: PROMPT_ARGUMENTS.state_at.shape,
    },
    ({ date }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: `Using the risk-cli tools with asOf "${date}", describe the publication as it stood then: replay_summary for the frame, get_signals for each instrument's value and level (say which values were retained after an upstream failure). Use nothing published after ${date}.`,
          },
        },
      ],
    }),
  );
  // A prompt refuses an argument it does not take, as the tools do, rather than dropping it
  // (the SDK makes a prompt's arguments a plain object, which strips unknown keys).
  whatChanged.argsSchema = PROMPT_ARGUMENTS.what_changed_since;
  stateAt.argsSchema = PROMPT_ARGUMENTS.state_at;
  return server;
}

function notPublished(view: PublishedView, path: string): RiskError {
  return new RiskError(
    "E_USAGE",
    `${path} was not published in the assembly of ${view.at}; ${INTEGRITY_PATH} lists the surfaces it published`,
    { path },
  );
}

/**
 * Hides the server's folders in a text sent to a client: the archive's as <archive>, the site's as
 * <site> (as given and as their real paths, the longest first).
 */
function scrubber(source: PublishedSource): (text: string) => string {
  const pairs: [string, string][] = [];
  const add = (dir: string | null | undefined, label: string) => {
    if (!dir || dir.length < 2) return;
    pairs.push([dir, label]);
    try {
      pairs.push([fs.realpathSync(dir), label]);
    } catch {
      // A folder that is gone has no other name.
    }
  };
  const gitdir = source.archive?.gitdir;
  add(gitdir, "<archive>");
  if (gitdir?.endsWith("/.git")) add(gitdir.slice(0, -"/.git".length), "<archive>");
  add(source.siteDir, "<site>");
  pairs.sort((x, y) => y[0].length - x[0].length);
  return (text) => pairs.reduce((t, [dir, label]) => t.split(dir).join(label), text);
}

/**
 * Each surface of the latest assembly is a resource whose URI is its public address; reading one
 * gives the bytes the latest assembly served: text as text, anything else as a base64 blob, both
 * with the surface's media type. An unknown URI is an invalid-params error; a failure to read is
 * an internal error whose text holds no local path.
 */
function registerResources(
  server: McpServer,
  source: PublishedSource,
  scrub: (t: string) => string,
  log: ((line: string) => void) | undefined,
): void {
  // Looked up on each request, so that a new assembly or frame is listed once it is published.
  const latest = async () => {
    const view = await source.at();
    let base = "https://publication.invalid";
    try {
      const agents = JSON.parse(decoder.decode((await view.read("/agents.json")) ?? new Uint8Array()));
      if (typeof agents.url === "string") base = agents.url.replace(/\/+$/, "");
    } catch {
      // No manifest: the surfaces keep a placeholder origin.
    }
    return { base, view };
  };
  const failure = (e: unknown, what: string): Error => {
    if (e instanceof McpError || e instanceof RpcFailure) return e;
    if (e instanceof RiskError)
      return new RpcFailure(e.code === "E_USAGE" ? ErrorCode.InvalidParams : ErrorCode.InternalError, scrub(e.message));
    log?.(`mcp: ${what} failed: ${failureNote(e)}`);
    const refused = fileRefusal(e);
    return new RpcFailure(
      ErrorCode.InternalError,
      refused
        ? `${what} could not read the publication: ${refused}`
        : `${what} failed inside the server; its operator's log says why.`,
    );
  };
  server.registerResource(
    "surface",
    new ResourceTemplate("{+url}", {
      list: async () => {
        try {
          const { base, view } = await latest();
          return {
            resources: [...view.surfaces].map(([path, s]) => ({
              uri: `${base}${publicUrl(path)}`,
              name: publicUrl(path),
              mimeType: s.mediaType,
              size: s.bytes,
            })),
          };
        } catch (e) {
          throw failure(e, "Listing the resources");
        }
      },
    }),
    // No media type for the template: the surfaces have many (JSON, NDJSON, CSV, Atom, HTML, SVG,
    // zip); each listed resource and each read gives its own.
    { description: "A surface of the latest assembly, as served" },
    async (uri) => {
      const href = uri.href;
      try {
        const { base, view } = await latest();
        const asked = href.startsWith(`${base}/`) ? href.slice(base.length) : null;
        const path = asked === null ? null : surfaceFile(view.surfaces, asked);
        const known = path ? view.surfaces.get(path) : undefined;
        const bytes = path && known ? await view.read(path) : null;
        if (!path || !known || !bytes)
          throw new RpcFailure(
            ErrorCode.InvalidParams,
            `No surface at ${scrub(href.slice(0, 200))}: list the resources for the surfaces of the latest assembly`,
          );
        return {
          contents: [
            isText(known.mediaType)
              ? { uri: href, mimeType: known.mediaType, text: decoder.decode(bytes) }
              : { uri: href, mimeType: known.mediaType, blob: Buffer.from(bytes).toString("base64") },
          ],
        };
      } catch (e) {
        throw failure(e, "Reading the resource");
      }
    },
  );
}

/**
 * A JSON-RPC error the SDK sends with this code and this message as they are (an McpError would
 * prefix the message with its code). Its text holds no local path.
 */
class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export { PublishedSource };

type RpcId = string | number | null;

/** A JSON-RPC 2.0 error response. */
const rpcError = (id: RpcId, code: number, message: string) => ({
  jsonrpc: "2.0" as const,
  id,
  error: { code, message },
});

/** A message's id when it can be read (a string or an integer), else null as JSON-RPC 2.0 answers. */
function readableId(value: unknown): RpcId {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What a JSON-RPC peer is owed for one parsed message that the SDK would drop without answering:
 * `reply` an error response (or, for a batch, one per element), `drop` for a notification whose
 * params are wrong (a notification is never answered), or null to hand the message on.
 * A structurally invalid message is -32600 Invalid Request (id null when it cannot be read); a
 * well-formed request whose params the protocol's schema refuses is -32602 Invalid params.
 * Batches are refused: MCP takes one message at a time.
 */
export function screenMessage(value: unknown): { reply: unknown } | { drop: true } | null {
  if (Array.isArray(value))
    return value.length === 0
      ? { reply: rpcError(null, ErrorCode.InvalidRequest, "Invalid Request: an empty batch") }
      : {
          reply: value.map((m) =>
            rpcError(
              readableId(m),
              ErrorCode.InvalidRequest,
              "Invalid Request: batches are not taken; send one JSON-RPC message at a time",
            ),
          ),
        };
  const invalid = (why: string) => ({
    reply: rpcError(readableId(value), ErrorCode.InvalidRequest, `Invalid Request: ${why}`),
  });
  if (!isObject(value)) return invalid("a JSON-RPC message is an object");
  if (value.jsonrpc !== "2.0") return invalid('jsonrpc must be "2.0"');
  if ("id" in value && readableId(value) === null) return invalid("id must be a string or an integer");
  if ("method" in value) {
    if (typeof value.method !== "string") return invalid("method must be a string");
    if ("params" in value && !isObject(value.params)) return invalid("params must be an object");
    const extra = Object.keys(value).filter((k) => !["jsonrpc", "id", "method", "params"].includes(k));
    if (extra.length)
      return invalid(`a request holds only jsonrpc, id, method and params, not ${extra[0]!.slice(0, 40)}`);
  } else if (!("result" in value) && !("error" in value))
    return invalid("a message is a request or a notification (method) or a response (result or error)");
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return "id" in value ? argumentsRefused(value) : null;
  // Well formed, yet the protocol's own schema refuses it: the fault is in params (or in a
  // response, which is never answered).
  if ("method" in value && "id" in value)
    return {
      reply: rpcError(
        readableId(value),
        ErrorCode.InvalidParams,
        `Invalid params: ${issueText(parsed.error.issues[0])}`,
      ),
    };
  return { drop: true };
}

/**
 * The answer to a tools/call or prompts/get request whose arguments its tool's or prompt's schema
 * refuses, read from the message as it came, `__proto__` keys included: a tool error result for
 * a tool, as the SDK gives one, -32602 for a prompt; in one sentence. Null otherwise.
 */
function argumentsRefused(message: Record<string, unknown>): { reply: unknown } | null {
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  const name = typeof params?.name === "string" ? params.name : "";
  const tool = message.method === "tools/call" && Object.hasOwn(TOOL_ARGUMENTS, name);
  const prompt = message.method === "prompts/get" && Object.hasOwn(PROMPT_ARGUMENTS, name);
  // Arguments that are not an object are the request's own fault, answered by paramsProblem.
  if ((!tool && !prompt) || (params?.arguments !== undefined && !isObject(params.arguments))) return null;
  const schema: z.ZodObject = tool
    ? TOOL_ARGUMENTS[name as keyof typeof TOOL_ARGUMENTS]
    : PROMPT_ARGUMENTS[name as keyof typeof PROMPT_ARGUMENTS];
  const checked = schema.safeParse(params?.arguments ?? {});
  if (checked.success) return null;
  const given = (params?.arguments ?? {}) as Record<string, unknown>;
  const text = `Invalid arguments for ${tool ? "tool" : "prompt"} ${name}: ${argumentIssue(checked.error.issues[0]!, schema, given)}`;
  const id = readableId(message);
  return {
    reply: tool
      ? { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true } }
      : rpcError(id, ErrorCode.InvalidParams, text),
  };
}

/** An argument's issue in a few words: what it must be, or which argument is not taken. */
function argumentIssue(issue: z.core.$ZodIssue, schema: z.ZodObject, given: Record<string, unknown>): string {
  if (issue.code === "unrecognized_keys")
    return `it does not take ${issue.keys.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}; it takes ${Object.keys(schema.shape).join(", ")}`;
  const where = issue.path.map(String).join(".");
  if (issue.code === "invalid_type" && issue.path.length === 1 && !Object.hasOwn(given, String(issue.path[0])))
    return `${where} is required`;
  if (issue.code === "invalid_type") return `${where} must be ${EXPECTED[issue.expected] ?? issue.expected}`;
  const what = issue.message.replace(/\s+/g, " ");
  return (where === "" || what.startsWith(`${where} `) ? what : `${where}: ${what}`).slice(0, 300);
}

/** The schema of each request the server answers, by method. */
const REQUEST_SCHEMAS = new Map<string, z.ZodType>(
  [
    InitializeRequestSchema,
    PingRequestSchema,
    ListToolsRequestSchema,
    CallToolRequestSchema,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ReadResourceRequestSchema,
    SubscribeRequestSchema,
    UnsubscribeRequestSchema,
    ListPromptsRequestSchema,
    GetPromptRequestSchema,
    CompleteRequestSchema,
    SetLevelRequestSchema,
  ].map((schema) => [schema.shape.method.value, schema as unknown as z.ZodType]),
);

const EXPECTED: Record<string, string> = {
  record: "an object",
  object: "an object",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "an array",
};

/** One schema issue in a short sentence: where, and what was expected. */
function issueText(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "the request does not follow the protocol";
  const where = issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("");
  const what =
    issue.code === "invalid_type"
      ? `must be ${EXPECTED[issue.expected] ?? issue.expected}`
      : issue.message.replace(/\s+/g, " ");
  return `${where || "the request"} ${what}`.slice(0, 200);
}

/** Longest URI resources/read takes. */
const MAX_RESOURCE_URI = 8_192;

/** Why a request's params are refused (-32602), or null when its method's schema takes them. */
export function paramsProblem(message: { method: string; params?: unknown }): string | null {
  const schema = REQUEST_SCHEMAS.get(message.method);
  if (!schema) return null;
  const parsed = schema.safeParse({ method: message.method, params: message.params });
  if (!parsed.success) return `Invalid params for ${message.method}: ${issueText(parsed.error.issues[0])}`;
  if (message.method === "resources/read") {
    const uri = (message.params as { uri: string }).uri;
    // The SDK's URI template throws on a URI over a million characters, which it answers as an
    // internal error; a surface's URI is a base URL of at most 500 characters and a short path.
    if (uri.length > MAX_RESOURCE_URI)
      return `Invalid params for resources/read: params.uri is ${uri.length} characters long, and no surface's URI is over ${MAX_RESOURCE_URI}; list the resources for theirs`;
    if (!URL.canParse(uri))
      return "Invalid params for resources/read: params.uri is not an absolute URI; list the resources for theirs";
  }
  return null;
}

/**
 * A transport that answers a request whose params its method's schema refuses with -32602
 * Invalid params and a short sentence, before the SDK would answer -32603 with its schema's dump.
 * Everything else passes through. It also knows which requests await their answer, so that a
 * server reading a closed input can finish them before it stops.
 */
class ScreenedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly pending = new Set<string | number>();
  private settled: (() => void) | null = null;
  /** Called each time an answer has been handed to the output. */
  onanswered?: () => void;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if ("method" in message && "id" in message) {
        const problem = paramsProblem(message);
        if (problem) {
          this.inner
            .send({ jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } })
            .catch((e) => this.onerror?.(e));
          return;
        }
        this.pending.add(message.id);
      } else if ("method" in message && message.method === "notifications/cancelled") {
        // A cancelled request is never answered: it awaits nothing more.
        const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
        if (id !== undefined) this.forget(id);
      }
      this.onmessage?.(message, extra);
    };
  }

  get sessionId() {
    return this.inner.sessionId;
  }
  setProtocolVersion = (version: string) => this.inner.setProtocolVersion?.(version);
  start() {
    return this.inner.start();
  }
  async send(message: JSONRPCMessage, options?: TransportSendOptions) {
    try {
      await this.inner.send(withoutCodePrefix(message), options);
    } finally {
      if (!("method" in message) && "id" in message && message.id !== undefined) this.forget(message.id);
      this.onanswered?.();
    }
  }
  /** Requests handed on that await their answer. */
  get inFlight(): number {
    return this.pending.size;
  }
  private forget(id: string | number) {
    this.pending.delete(id);
    if (this.pending.size === 0) this.settled?.();
  }
  close() {
    return this.inner.close();
  }
  /** Resolves once every request handed on has been answered, or after `ms`. */
  idle(ms: number): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((done) => {
      const timer = setTimeout(done, ms);
      this.settled = () => {
        clearTimeout(timer);
        done();
      };
    });
  }
}

/** What the SDK's McpError puts before its message, which a client shows beside the code again. */
const CODE_PREFIX = /^MCP error -?\d+: /;

/**
 * A message as sent, without the `MCP error <code>: ` the SDK puts in front of an error's text
 * (in a JSON-RPC error, and in a tool's error result), so that a client shows one sentence.
 */
function withoutCodePrefix(message: JSONRPCMessage): JSONRPCMessage {
  if ("error" in message && CODE_PREFIX.test(message.error.message))
    return { ...message, error: { ...message.error, message: message.error.message.replace(CODE_PREFIX, "") } };
  const result = "result" in message ? (message.result as ToolAnswer) : undefined;
  if (result?.isError !== true || !Array.isArray(result.content)) return message;
  return {
    ...message,
    result: {
      ...result,
      content: result.content.map((c) =>
        c.type === "text" && CODE_PREFIX.test(c.text) ? { ...c, text: c.text.replace(CODE_PREFIX, "") } : c,
      ),
    },
  } as JSONRPCMessage;
}

/** Longest line read from standard input; a longer one is answered -32600 and skipped. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * Standard input as the SDK's stdio transport reads it, one JSON-RPC message a line, with every
 * line it would drop unanswered answered here as JSON-RPC 2.0 says: -32700 Parse error (id null)
 * for a line that is not JSON, and what screenMessage says for the rest. Blank lines are skipped.
 *
 * A line is handed on only while `ready()` says the output can take its answer; the lines read
 * meanwhile wait, in order, and standard input is not read until they are handed on, so that a
 * client that sends without reading fills its own pipe, not this process's memory. `pump()`
 * hands on what waits, once the output has room again.
 */
function screenedLines(
  input: Readable,
  reply: (message: unknown) => void,
  ready: () => boolean,
): { lines: Readable; pump: () => void } {
  const out = new PassThrough();
  /** Lines read and not yet handed on; TOO_LONG stands for a line over the limit, to refuse. */
  let waiting: (Buffer | typeof TOO_LONG)[] = [];
  let next = 0;
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let inputEnded = false;
  let pumping = false;
  const line = (bytes: Buffer | typeof TOO_LONG) => {
    if (bytes === TOO_LONG) {
      reply(rpcError(null, ErrorCode.InvalidRequest, `Invalid Request: a message is at most ${MAX_LINE_BYTES} bytes`));
      return;
    }
    const text = bytes.toString("utf8").replace(/\r$/, "");
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      reply(rpcError(null, ErrorCode.ParseError, "Parse error: the line is not JSON"));
      return;
    }
    const verdict = screenMessage(value);
    if (!verdict) out.write(`${text}\n`);
    else if ("reply" in verdict) reply(verdict.reply);
  };
  const pump = () => {
    // Handing a line on can answer at once, which calls pump again: one loop does it all.
    if (pumping) return;
    pumping = true;
    try {
      while (next < waiting.length && ready()) {
        line(waiting[next++]!);
      }
    } finally {
      pumping = false;
    }
    if (next < waiting.length) {
      input.pause();
      return;
    }
    waiting = [];
    next = 0;
    if (!inputEnded) input.resume();
    else if (!out.writableEnded) out.end();
  };
  input.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      waiting.push(tooLong ? TOO_LONG : parts.length ? Buffer.concat([...parts, piece]) : piece);
      parts = [];
      size = 0;
      tooLong = false;
      start = nl + 1;
    }
    if (start < chunk.length && !tooLong) {
      size += chunk.length - start;
      if (size > MAX_LINE_BYTES) {
        tooLong = true;
        parts = [];
      } else parts.push(chunk.subarray(start));
    }
    pump();
  });
  input.once("end", () => {
    inputEnded = true;
    if (tooLong) waiting.push(TOO_LONG);
    else if (parts.length) waiting.push(Buffer.concat(parts));
    parts = [];
    pump();
  });
  input.once("error", (e) => out.destroy(e));
  return { lines: out, pump };
}

/** A line longer than MAX_LINE_BYTES, waiting to be refused in its turn. */
const TOO_LONG = Symbol("too long");

/**
 * Unread output past which no further request is handed on (and standard input is no longer
 * read) until the client reads: with the answers of the requests in flight, what one client can
 * make this process hold.
 */
const OUTPUT_HIGH_WATER = 4 * 1024 * 1024;

/** Requests handed on and not yet answered, past which the next one waits for an answer. */
const MAX_IN_FLIGHT = 16;

/** The default of --site: with --archive the site is not read, so that folder need not exist. */
const DEFAULT_SITE = "site";

/**
 * `risk-cli mcp`: one server over standard input and output until the client closes them. The
 * folders are checked first (exit 6 naming the option), before a byte of the protocol is written.
 */
export async function serveStdio(options: McpOptions & { stdin?: Readable; stdout?: Writable }): Promise<void> {
  await requireFolders({
    site: options.site,
    archive: options.archive,
    siteNeeded: options.archive === undefined || options.site !== DEFAULT_SITE,
  });
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const server = createMcpServer(new PublishedSource(options), options);
  // A client that stops reading closes its end of standard output: every later write fails
  // (EPIPE). The session is over then, quietly: nothing is left to answer and no one to tell.
  let clientGone = false;
  const outputClosed = new Promise<void>((done) => {
    stdout.on("error", () => {
      clientGone = true;
      done();
    });
  });
  // Each answer waiting for the client to read its output waits for one drain: as many
  // listeners as answers in flight, which is no leak.
  stdout.setMaxListeners(0);
  let inFlight = () => 0;
  // A client that sends requests without reading the answers: the next request waits while
  // the output it has not read is over the bound, or while many requests await their answers.
  const ready = () => !clientGone && (stdout.writableLength ?? 0) < OUTPUT_HIGH_WATER && inFlight() < MAX_IN_FLIGHT;
  const { lines: input, pump } = screenedLines(
    stdin,
    (message) => {
      if (!clientGone) stdout.write(`${JSON.stringify(message)}\n`);
    },
    ready,
  );
  stdout.on("drain", pump);
  const transport = new ScreenedTransport(new StdioServerTransport(input, stdout));
  inFlight = () => transport.inFlight;
  transport.onanswered = pump;
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
    // Once every line read has been handed on: those still waiting are answered too.
    input.once("end", () => done());
  });
  await server.connect(transport);
  await Promise.race([closed, outputClosed]);
  if (clientGone) {
    // Standard input is no longer read, so that the process can end.
    stdin.destroy();
    input.destroy();
  } else {
    // Requests read before the input closed are answered before the server stops.
    await transport.idle(30_000);
  }
  await server.close();
}

/** Largest JSON-RPC request body `serve --mcp` reads. */
const MAX_REQUEST_BYTES = 1_000_000;

/** Loopback origins (a page served by this machine) are always allowed; others only when named. */
function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    const { protocol, hostname } = new URL(origin);
    return (
      (protocol === "http:" || protocol === "https:") &&
      (hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]")
    );
  } catch {
    return false;
  }
}

/**
 * The Streamable HTTP endpoint of `serve --mcp`, stateless: each POST gets a fresh server and
 * transport over the shared source, answered as JSON. A request whose Origin is neither a
 * loopback origin nor one of `allowedOrigins` is refused (403) before anything is read, which
 * keeps a web page from driving a local server (DNS rebinding).
 */
export function mcpHttpHandler(options: McpOptions & { allowedOrigins?: readonly string[] }) {
  const source = new PublishedSource(options);
  const allowed = options.allowedOrigins ?? [];
  const transportModule = import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const answer = (res: ServerResponse, status: number, reply: unknown, extra: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...extra });
    res.end(JSON.stringify(reply));
  };
  // A refusal of the HTTP request itself (origin, method, size): a JSON-RPC server error.
  const refuse = (res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}) =>
    answer(res, status, rpcError(null, -32000, message), extra);
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, allowed)) return refuse(res, 403, "Forbidden origin");
    if (origin !== undefined) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Vary", "Origin");
      res.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version");
    }
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers":
          "Content-Type, Accept, Authorization, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
        "Access-Control-Max-Age": "86400",
        Allow: "POST, OPTIONS",
      });
      res.end();
      return;
    }
    if (req.method !== "POST")
      return refuse(res, 405, "This MCP endpoint is stateless: POST JSON-RPC requests", { Allow: "POST, OPTIONS" });
    if (Number(req.headers["content-length"] ?? 0) > MAX_REQUEST_BYTES)
      return refuse(res, 413, "The request is too large");
    let text: string;
    try {
      text = await readBody(req);
    } catch (e) {
      return refuse(
        res,
        e instanceof TooLarge ? 413 : 400,
        e instanceof TooLarge ? "The request is too large" : "The request body could not be read",
      );
    }
    // As over standard input: -32700 for a body that is not JSON, -32600 for an empty array, a
    // batch or anything but a message object, -32602 for wrong params, never the SDK's own codes.
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      const why =
        text.trim() === "" ? "the request body is empty; POST one JSON-RPC message" : "the request body is not JSON";
      return answer(res, 400, rpcError(null, ErrorCode.ParseError, `Parse error: ${why}`));
    }
    const verdict = screenMessage(body);
    if (verdict) {
      if ("drop" in verdict) {
        res.writeHead(202, { "Cache-Control": "no-store" });
        res.end();
        return;
      }
      const replies = (Array.isArray(verdict.reply) ? verdict.reply : [verdict.reply]) as {
        error?: { code: number };
      }[];
      const invalid = replies.some((r) => r.error?.code === ErrorCode.InvalidRequest);
      return answer(res, invalid ? 400 : 200, verdict.reply);
    }
    const { StreamableHTTPServerTransport } = await transportModule;
    const server = createMcpServer(source, options);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(new ScreenedTransport(transport));
    await transport.handleRequest(req, res, body);
  };
}

class TooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_REQUEST_BYTES) {
        fail(new TooLarge());
        req.destroy();
      } else parts.push(chunk);
    });
    req.on("end", () => done(Buffer.concat(parts).toString("utf8")));
    req.on("error", fail);
  });
}
