import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { mcpHttpHandler, serveStdio } from "../../app/mcp.ts";
import { EXIT } from "../../cli/exit.ts";
import { RiskError } from "../../core/errors.ts";
import { siteServer } from "../../app/serve.ts";
import { nodeHasher } from "../../cli/runtime/node.ts";
import { CLI, runCli } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";
import { hostHeadersFor } from "../helpers/host-headers.ts";

/** Three assemblies on three days, so that the fused history has closed days to hide or show. */
const DAYS = ["2026-11-22T10:00:00Z", "2026-11-23T10:00:00Z", "2026-11-24T10:00:00Z"];
let dir = "";
let site = "";
let archive = "";
let frames: { frameId: string; commit: string }[] = [];
let stdio: Client;

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
const parsed = (r: unknown) => JSON.parse(text(r));

beforeAll(async () => {
  dir = tempDir("risk-mcp-");
  site = `${dir}/site`;
  archive = `${dir}/archive`;
  frames = [];
  for (const now of DAYS) {
    const r = await runAssemble({ site, archive, now, json: true });
    frames.push({ frameId: r.frameId, commit: r.commit });
  }
  stdio = new Client({ name: "test", version: "1" });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--site", site, "--archive", archive],
      stderr: "pipe",
    }),
  );
}, 60_000);
afterAll(async () => {
  await stdio?.close();
});

describe("risk-cli mcp over standard input and output, with the SDK's own client", () => {
  it("lists the seven tools, every surface as a resource and the two prompts", async () => {
    const tools = (await stdio.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(["diff", "get_series", "get_signals", "get_surface", "replay_summary", "search", "verify"]);
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8"));
    const resources = (await stdio.listResources()).resources;
    expect(resources.map((r) => r.uri).sort()).toEqual(
      [
        // A page is listed at its folder URL (/series/), as the contract names it.
        ...integrity.surfaces.map((s: { url: string }) => s.url.replace(/\/index\.html$/, "/")),
        "https://risques.example.org/api/v1/integrity.json",
      ].sort(),
    );
    const risk = resources.find((r) => r.uri.endsWith("/api/v1/risk.json"))!;
    const read = await stdio.readResource({ uri: risk.uri });
    expect((read.contents[0] as { text: string }).text).toBe(readFileSync(`${site}/api/v1/risk.json`, "utf8"));
    expect((await stdio.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(["state_at", "what_changed_since"]);
    const prompt = await stdio.getPrompt({ name: "what_changed_since", arguments: { since: "2026-11-20" } });
    expect(JSON.stringify(prompt.messages)).toContain('from \\"2026-11-20\\"');
  });

  it("get_surface gives the bytes served then: the latest site's file, or the frame's as replay writes it", async () => {
    const latest = text(await stdio.callTool({ name: "get_surface", arguments: { path: "/api/v1/risk.json" } }));
    expect(latest.slice(latest.indexOf("\n\n") + 2)).toBe(readFileSync(`${site}/api/v1/risk.json`, "utf8"));
    const out = `${dir}/replay-1`;
    expect(runCli(["replay", "--archive", archive, "--date", DAYS[0]!, "--out", out]).status).toBe(0);
    const then = text(
      await stdio.callTool({ name: "get_surface", arguments: { path: "/api/v1/risk.json", asOf: DAYS[0] } }),
    );
    expect(then.slice(then.indexOf("\n\n") + 2)).toBe(readFileSync(`${out}/api/v1/risk.json`, "utf8"));
    expect(then).toContain(`in frame ${frames[0]!.frameId}`);
  });

  it("answers only with what was published at or before asOf: no look-ahead", async () => {
    const asOf = "2026-11-23T12:00:00Z";
    const signals = parsed(await stdio.callTool({ name: "get_signals", arguments: { asOf } }));
    expect(signals.frameId).toBe(frames[1]!.frameId);
    expect(signals.current.generated).toBe(DAYS[1]);
    const seriesId = signals.current.signals[0].seriesId as string;
    const later = parsed(await stdio.callTool({ name: "get_series", arguments: { seriesId } }));
    const before = parsed(await stdio.callTool({ name: "get_series", arguments: { seriesId, asOf } }));
    expect(later.observations.length).toBeGreaterThan(before.observations.length);
    for (const o of before.observations) expect(o.seriesDate < "2026-11-23").toBe(true);
    expect(later.observations.every((o: { seriesId: string }) => o.seriesId === seriesId)).toBe(true);
    const summary = parsed(await stdio.callTool({ name: "replay_summary", arguments: { asOf: "2026-11-22" } }));
    expect(summary).toMatchObject({ frameId: frames[0]!.frameId, commit: frames[0]!.commit, seq: 1 });
    const hits = parsed(await stdio.callTool({ name: "search", arguments: { query: "yen", limit: 3, asOf } }));
    expect(hits.hits.length).toBeGreaterThan(0);
    expect(hits.hits.length).toBeLessThanOrEqual(3);
    expect(hits.frameId).toBe(frames[1]!.frameId);
  });

  it("diff and verify answer as the CLI does", async () => {
    const diff = parsed(await stdio.callTool({ name: "diff", arguments: { from: DAYS[0], to: DAYS[2] } }));
    const cli = JSON.parse(
      runCli(["diff", "--archive", archive, "--from", DAYS[0]!, "--to", DAYS[2]!, "--json"]).stdout,
    );
    expect(diff.from.frameId).toBe(frames[0]!.frameId);
    expect(diff.to.frameId).toBe(frames[2]!.frameId);
    expect(diff.signals).toEqual(cli.diff?.signals ?? cli.signals);
    const verify = parsed(await stdio.callTool({ name: "verify", arguments: {} }));
    expect(verify).toMatchObject({ ok: true, frames: 3, head: { frameId: frames[2]!.frameId } });
  });

  it("search gives the hits, scores and terms risk-cli search --json gives on the same index", async () => {
    for (const [query, lang] of [
      ["dette plafond", undefined],
      ["spread", "en"],
    ] as const) {
      const mcp = parsed(await stdio.callTool({ name: "search", arguments: { query, ...(lang ? { lang } : {}) } }));
      const cli = JSON.parse(
        runCli(["search", query, "--site", site, "--json", ...(lang ? ["--lang", lang] : [])]).stdout,
      );
      const pick = (h: { id: string; score: number; terms: string[] }) => ({
        id: h.id,
        score: h.score,
        terms: h.terms,
      });
      expect(cli.hits.length).toBeGreaterThan(0);
      expect(mcp.hits.map(pick)).toEqual(cli.hits.map(pick));
    }
  });

  it("diff and verify keep to asOf: no later frame is compared, checked or named, and an unknown argument is refused", async () => {
    const asOf = DAYS[1]!;
    const diff = parsed(await stdio.callTool({ name: "diff", arguments: { from: DAYS[0], asOf } }));
    expect(diff.to.frameId).toBe(frames[1]!.frameId);
    const beyond = await stdio.callTool({ name: "diff", arguments: { from: DAYS[0], to: DAYS[2], asOf } });
    expect(beyond.isError).toBe(true);
    expect(text(beyond)).toMatch(/is after asOf/);
    const verify = parsed(await stdio.callTool({ name: "verify", arguments: { asOf } }));
    expect(verify).toMatchObject({ ok: true, frames: 2, head: { frameId: frames[1]!.frameId } });
    expect(JSON.stringify(verify)).not.toContain(frames[2]!.frameId);
    // An argument a tool does not take is refused, never dropped as if it had been applied.
    const unknown = await stdio.callTool({ name: "get_signals", arguments: { asof: DAYS[0] } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/asof/);
  });

  it("refuses bad input with an MCP error that says what to give, never a stack trace or a local path", async () => {
    const early = await stdio.callTool({ name: "get_signals", arguments: { asOf: "2020-01-01" } });
    expect(early.isError).toBe(true);
    expect(text(early)).toMatch(/first frame is at 2026-11-22T10:00:00Z/);
    const badDate = await stdio.callTool({ name: "get_signals", arguments: { asOf: "yesterday" } });
    expect(badDate.isError).toBe(true);
    const escape = await stdio.callTool({ name: "get_surface", arguments: { path: "/../../etc/passwd" } });
    expect(escape.isError).toBe(true);
    const unknown = await stdio.callTool({ name: "get_series", arguments: { seriesId: "no-such-series" } });
    expect(text(unknown)).toMatch(/series then were: .*us-financial-stress/);
    const binary = await stdio.callTool({ name: "get_surface", arguments: { path: "/series/all-series.zip" } });
    expect(binary.isError).toBe(true);
    expect(text(binary)).toMatch(/is a binary file \(application\/zip, \d+ bytes, sha256 [0-9a-f]{64}\): download it/);
    for (const r of [early, badDate, escape, unknown, binary]) {
      expect(JSON.stringify(r)).not.toContain(dir);
      expect(JSON.stringify(r)).not.toMatch(/\n\s+at /);
    }
  });

  it("hides local paths in the answers of a broken archive", async () => {
    const empty = `${tempDir("risk-mcp-empty-")}/archive.git`;
    execFileSync("git", ["init", "-q", "--bare", empty]);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--archive", empty], stderr: "pipe" }),
    );
    const r = await client.callTool({ name: "get_signals", arguments: {} });
    await client.close();
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/no frame yet/);
    expect(text(r)).not.toContain(empty);
    rmSync(empty, { recursive: true, force: true });
  });
});

/** A reply read from the server's standard output. */
type Reply = {
  id: string | number | null;
  result?: { content?: { text: string }[]; isError?: boolean; contents?: Record<string, string>[] };
  error?: { code: number; message: string };
};

/**
 * `risk-cli mcp` run in this process from the sources, over two in-memory streams: a line is
 * written to its standard input and its replies are read, one JSON document a line.
 */
function inProcess(options: { site?: string; archive?: string; log?: (line: string) => void }) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const served = serveStdio({ ...options, hash: nodeHasher, stdin, stdout });
  const replies: unknown[] = [];
  let wake: (() => void) | null = null;
  let rest = "";
  stdout.on("data", (chunk: Buffer) => {
    rest += chunk.toString("utf8");
    for (let nl = rest.indexOf("\n"); nl !== -1; nl = rest.indexOf("\n")) {
      replies.push(JSON.parse(rest.slice(0, nl)));
      rest = rest.slice(nl + 1);
    }
    wake?.();
  });
  const next = async (): Promise<unknown> => {
    while (!replies.length) await new Promise<void>((ok) => (wake = ok));
    return replies.shift();
  };
  let id = 0;
  return {
    served,
    line: (text: string) => {
      stdin.write(`${text}\n`);
      return next() as Promise<Reply & Reply[]>;
    },
    request: (method: string, params?: unknown) => {
      stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params })}\n`);
      return next() as Promise<Reply>;
    },
    tool: (name: string, args: Record<string, unknown>) =>
      (async () => {
        stdin.write(
          `${JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args } })}\n`,
        );
        const r = (await next()) as Reply;
        return { isError: r.result?.isError === true, text: r.result?.content?.[0]?.text ?? "" };
      })(),
    close: async () => {
      stdin.end();
      await served;
    },
  };
}

/** A copy of the assembled site, to damage. */
const siteCopy = () => {
  const copy = `${tempDir("risk-mcp-site-")}/site`;
  cpSync(site, copy, { recursive: true });
  return copy;
};

describe("risk-cli mcp reads only the published bytes of the site", () => {
  it("never follows a symbolic link out of the site, and never reads a FIFO or a device", async () => {
    const copy = siteCopy();
    const index = `${copy}/api/v1/search-index.json`;
    const server = inProcess({ site: copy });
    const uri = "https://risques.example.org/api/v1/search-index.json";
    for (const plant of [
      () => symlinkSync("/etc/passwd", index),
      () => symlinkSync("/dev/zero", index),
      () => execFileSync("mkfifo", [index]),
    ]) {
      rmSync(index, { force: true });
      plant();
      const started = Date.now();
      const surface = await server.tool("get_surface", { path: "/api/v1/search-index.json" });
      expect(surface.isError).toBe(true);
      expect(surface.text).toMatch(/not a regular file inside it .*not answered as published/);
      expect(surface.text).not.toMatch(/root:|published 20/);
      expect((await server.tool("search", { query: "yen" })).isError).toBe(true);
      const read = await server.request("resources/read", { uri });
      expect(read.error?.message).toMatch(/not a regular file inside it/);
      expect(JSON.stringify(read)).not.toContain("root:");
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    for (const r of [await server.tool("get_surface", { path: "/api/v1/search-index.json" })])
      expect(r.text).not.toContain(copy);
    // A link to a file outside the site holding the very bytes published is refused all the same.
    rmSync(index);
    const outside = `${tempDir("risk-mcp-out-")}/search-index.json`;
    cpSync(`${site}/api/v1/search-index.json`, outside);
    symlinkSync(outside, index);
    expect((await server.tool("get_surface", { path: "/api/v1/search-index.json" })).isError).toBe(true);
    // The rest of the site still answers.
    expect((await server.tool("get_signals", {})).isError).toBe(false);
    await server.close();
  }, 20_000);

  it("never answers a site file edited in place as published: its bytes must hash to integrity.json's fingerprint", async () => {
    const copy = siteCopy();
    const server = inProcess({ site: copy });
    expect((await server.tool("get_surface", { path: "/api/v1/risk.json" })).isError).toBe(false);
    const risk = readFileSync(`${copy}/api/v1/risk.json`);
    const edited = Buffer.from(risk);
    const at = edited.indexOf("2026".charCodeAt(0));
    edited[at] = edited[at] === 0x31 ? 0x32 : 0x31; // the same length, one byte changed
    writeFileSync(`${copy}/api/v1/risk.json`, edited);
    writeFileSync(`${copy}/api/v1/signals/current.json`, "{}");
    for (const r of [
      await server.tool("get_surface", { path: "/api/v1/risk.json" }),
      await server.tool("get_signals", {}),
    ]) {
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/differs from what the site's \/api\/v1\/integrity\.json fingerprints/);
    }
    const read = await server.request("resources/read", { uri: "https://risques.example.org/api/v1/risk.json" });
    expect(read.error?.message).toMatch(/differs from what the site's \/api\/v1\/integrity\.json fingerprints/);
    expect(JSON.stringify(read)).not.toContain(copy);
    await server.close();
    // With the archive, the frame's own checked bytes answer.
    const archived = inProcess({ site: copy, archive });
    const r = await archived.tool("get_surface", { path: "/api/v1/risk.json" });
    expect(r.isError).toBe(false);
    expect(r.text.slice(r.text.indexOf("\n\n") + 2)).toBe(readFileSync(`${site}/api/v1/risk.json`, "utf8"));
    await archived.close();
  });

  it("tells a file operation the system refused, to the client and in the operator's log, without its path", async () => {
    const copy = `${tempDir("risk-mcp-refused-")}/archive`;
    cpSync(archive, copy, { recursive: true });
    // An alternates line far longer than a path may be: every lookup of an object outside the archive fails.
    const long = "/x".repeat(3000);
    writeFileSync(`${copy}/objects/info/alternates`, `${long}\n`);
    const logs: string[] = [];
    const server = inProcess({ site, archive: copy, log: (line) => logs.push(line) });
    const r = await server.tool("verify", {});
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /^The tool verify could not read the publication: the system refused a \w+ \(ENAMETOOLONG\)\.$/,
    );
    expect(logs.join("\n")).toMatch(/mcp: the tool verify failed: Error: the system refused a \w+ \(ENAMETOOLONG\)/);
    expect(logs.join("\n") + r.text).not.toContain("/x/x");
    await server.close();
  });

  it("refuses a resource URI of a million characters with -32602, and lists its one template without a media type", async () => {
    const server = inProcess({ site, archive });
    for (const uri of [`https://risques.example.org/${"a".repeat(1_000_000)}`, `https://x/${"a".repeat(8_200)}`]) {
      const read = await server.request("resources/read", { uri });
      expect(read.error?.code, String(uri.length)).toBe(-32602);
      expect(read.error?.message).toMatch(/params\.uri is \d+ characters long/);
      expect(read.error!.message.length).toBeLessThan(300);
    }
    const templates = (await server.request("resources/templates/list")).result as unknown as {
      resourceTemplates: Record<string, unknown>[];
    };
    expect(templates.resourceTemplates).toHaveLength(1);
    expect(templates.resourceTemplates[0]!.uriTemplate).toBe("{+url}");
    expect(templates.resourceTemplates[0]).not.toHaveProperty("mimeType");
    // Each listed resource keeps its own media type.
    const list = (await server.request("resources/list")).result as unknown as {
      resources: { name: string; mimeType: string }[];
    };
    const types = new Map(list.resources.map((r) => [r.name, r.mimeType]));
    expect(types.get("/api/v1/signals/history.csv")).toMatch(/^text\/csv/);
    expect(types.get("/series/")).toMatch(/^text\/html/);
    expect(types.get("/api/v1/risk.json")).toBe("application/json");
    await server.close();
  });

  it("answers a binary resource as a base64 blob with its media type", async () => {
    const server = inProcess({ site, archive });
    const read = await server.request("resources/read", { uri: "https://risques.example.org/series/all-series.zip" });
    const content = read.result!.contents![0]!;
    expect(content.mimeType).toBe("application/zip");
    expect(content.text).toBeUndefined();
    expect(Buffer.from(content.blob!, "base64").equals(readFileSync(`${site}/series/all-series.zip`))).toBe(true);
    await server.close();
  });
});

describe("risk-cli mcp names a page by its folder URL, as the contract does", () => {
  it("answers get_surface and resources/read for /series/ and /series/<id>/ as for their index.html, and lists pages at their folder URL", async () => {
    const server = inProcess({ site, archive });
    for (const path of ["/series/", "/series/us-financial-stress/", "/donnees/agents/", "/en/agent-surface/"]) {
      const page = readFileSync(`${site}${path}index.html`, "utf8");
      for (const asked of [path, `${path}index.html`]) {
        const r = await server.tool("get_surface", { path: asked });
        expect(r.isError, `${asked}: ${r.text.slice(0, 200)}`).toBe(false);
        expect(r.text.slice(r.text.indexOf("\n\n") + 2)).toBe(page);
        const read = await server.request("resources/read", { uri: `https://risques.example.org${asked}` });
        expect(read.error, asked).toBeUndefined();
        expect(read.result!.contents![0]!.text).toBe(page);
      }
    }
    const list = await server.request("resources/list");
    const uris = (list.result as unknown as { resources: { uri: string }[] }).resources.map((r) => r.uri);
    expect(uris).toContain("https://risques.example.org/series/");
    expect(uris).toContain("https://risques.example.org/series/us-financial-stress/");
    expect(uris.filter((u) => u.endsWith("/index.html"))).toEqual([]);
    expect((await server.tool("get_surface", { path: "/series/no-such-series/" })).text).toMatch(/was not published/);
    await server.close();
  });

  it("refuses a prompt argument it does not take, as the tools do", async () => {
    const server = inProcess({ site, archive });
    for (const [name, args] of [
      ["state_at", { date: "2026-11-20", extra: "x" }],
      ["what_changed_since", { since: "2026-11-20", until: "2026-11-21" }],
    ] as const) {
      const r = await server.request("prompts/get", { name, arguments: args });
      expect(r.error?.code, name).toBe(-32602);
      expect(r.error!.message).toMatch(/extra|until/);
    }
    await server.close();
  });
});

describe("risk-cli mcp checks its folders and hides them", () => {
  it("checks --site and --archive before speaking MCP: exit 6 naming the option", async () => {
    const tmp = tempDir("risk-mcp-start-");
    for (const [options, option] of [
      [{ site, archive: `${tmp}/nonexist.git` }, "--archive"],
      [{ archive: `${tmp}/nonexist.git` }, "--archive"],
      [{ site: `${tmp}/nosite` }, "--site"],
      [{ site: `${tmp}/nosite`, archive }, "--site"],
    ] as const) {
      const stdout = new PassThrough();
      const written: Buffer[] = [];
      stdout.on("data", (c: Buffer) => written.push(c));
      const refused = await serveStdio({ ...options, hash: nodeHasher, stdin: new PassThrough(), stdout }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(RiskError);
      expect(EXIT[(refused as RiskError).code]).toBe(6);
      expect((refused as RiskError).message).toMatch(new RegExp(`^${option} `));
      expect(Buffer.concat(written).length).toBe(0);
    }
  });

  it("names <archive> and <site> in place of local paths, in tools and resources alike", async () => {
    const empty = `${tempDir("risk-mcp-bare-")}/archive.git`;
    execFileSync("git", ["init", "-q", "--bare", empty]);
    const server = inProcess({ site, archive: empty });
    const tool = await server.tool("get_signals", {});
    expect(tool.isError).toBe(true);
    expect(tool.text).toMatch(/The archive <archive> has no frame yet/);
    const list = await server.request("resources/list");
    const read = await server.request("resources/read", { uri: "https://risques.example.org/api/v1/risk.json" });
    for (const r of [list, read]) {
      expect(r.error?.message).toMatch(/The archive <archive> has no frame yet/);
      expect(JSON.stringify(r)).not.toContain(empty);
      expect(JSON.stringify(r)).not.toContain(dir);
    }
    await server.close();
  });
});

describe("risk-cli mcp answers every message as JSON-RPC 2.0 says", () => {
  it("answers malformed JSON-RPC with -32700 or -32600, and wrong params with -32602, never silence", async () => {
    const server = inProcess({ site, archive });
    const parse = await server.line("{not json");
    expect(parse).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } });
    expect((await server.line("[]")).error).toMatchObject({ code: -32600 });
    const batch = await server.line(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]',
    );
    expect(batch.map((r) => [r.id, r.error?.code])).toEqual([
      [1, -32600],
      ["b", -32600],
    ]);
    for (const [line, id] of [
      ['{"jsonrpc":"1.0","id":2,"method":"ping"}', 2],
      ['{"id":3,"method":"ping"}', 3],
      ['{"jsonrpc":"2.0","id":4,"method":5}', 4],
      ['{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}', 5],
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', null],
      ['"just a string"', null],
      ['{"jsonrpc":"2.0"}', null],
    ] as const) {
      const r = await server.line(line);
      expect(r.id, line).toBe(id);
      expect(r.error?.code, line).toBe(-32600);
      expect(r.error?.message, line).toMatch(/^Invalid Request: /);
    }
    const params: [string, unknown][] = [
      ["tools/call", { name: "get_signals", arguments: "str" }],
      ["resources/read", { uri: 5 }],
      ["resources/read", { uri: "not a uri" }],
      ["resources/read", { uri: "https://risques.example.org/no/such/surface.json" }],
      ["prompts/get", { name: "state_at", arguments: { date: 5 } }],
    ];
    for (const [method, p] of params) {
      const r = await server.request(method, p);
      expect(r.error?.code, JSON.stringify(p)).toBe(-32602);
      expect(r.error!.message.length).toBeLessThan(300);
      expect(r.error!.message).not.toMatch(/"code":|\n/);
    }
    expect((await server.request("ping")).result).toEqual({});
    await server.close();
  });
});

describe("risk-cli mcp when the client stops reading", () => {
  it("ends quietly with exit 0 when the client closes its end of standard output, many answers in flight", async () => {
    const child = spawn(process.execPath, [CLI, "mcp", "--site", site, "--archive", archive], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const ended = new Promise<number | null>((done) => child.once("close", (code) => done(code)));
    child.stdin.on("error", () => {});
    // The first bytes of an answer arrive, then the client goes away without reading the rest.
    child.stdout.once("data", () => child.stdout.destroy());
    for (let id = 1; id <= 40; id++)
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_signals", arguments: {} } })}\n`,
      );
    const code = await ended;
    expect(stderr).toBe("");
    expect(code).toBe(0);
  }, 30_000);
});

describe("risk-cli mcp when the client reads slowly or not at all", () => {
  it("bounds the output it holds for a client that sends without reading, then answers every request once it reads", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const served = serveStdio({ site, archive, hash: nodeHasher, stdin, stdout });
    // 400 requests whose answers are about 200 KB each: 80 MB if every one were answered at once.
    const count = 400;
    const call = { name: "get_surface", arguments: { path: "/openapi.json" } };
    let requests = "";
    for (let id = 1; id <= count; id++)
      requests += `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: call })}\n`;
    stdin.write(requests);
    stdin.end();
    // Nothing is read for two seconds: what the server holds for the client stays bounded.
    let held = 0;
    for (let i = 0; i < 20; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      held = Math.max(held, stdout.writableLength + stdout.readableLength);
    }
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(16 * 1024 * 1024);
    // Then the client reads, slowly: every request is answered, whole.
    const ids: number[] = [];
    let rest = "";
    stdout.on("data", (chunk: Buffer) => {
      rest += chunk.toString("utf8");
      for (let nl = rest.indexOf("\n"); nl !== -1; nl = rest.indexOf("\n")) {
        const reply = JSON.parse(rest.slice(0, nl)) as Reply;
        expect(reply.result?.isError).not.toBe(true);
        expect(reply.result?.content?.[0]?.text).toContain('"openapi"');
        ids.push(reply.id as number);
        rest = rest.slice(nl + 1);
      }
    });
    await served;
    expect(ids).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  }, 20_000);
});

describe("risk-cli mcp checks its arguments", () => {
  it("reads instants as replay --date does: a leap second, years 0000 to 0099 and before 1970", async () => {
    const server = inProcess({ site, archive });
    for (const asOf of ["0000-01-01", "0050-06-30", "1969-12-31", "2016-12-31T23:59:60Z"]) {
      const r = await server.tool("get_signals", { asOf });
      const replay = runCli(["replay", "--archive", archive, "--date", asOf, "--json"]);
      expect(replay.status, asOf).toBe(EXIT.E_NO_FRAME);
      // Nothing was published then: the same answer as replay's, never a refusal of the date.
      expect(r.isError, asOf).toBe(true);
      expect(r.text).toBe(JSON.parse(replay.stdout).message);
    }
    // A leap second (allowed in a month's last minute) is read, as the last instant of its day.
    const leap = JSON.parse((await server.tool("get_signals", { asOf: "2026-11-30T23:59:60Z" })).text);
    expect(leap.frameId).toBe(frames[2]!.frameId);
    // A space for the T, as pandas prints a timestamp, in a tool's instant and a prompt's.
    const spaced = JSON.parse((await server.tool("get_signals", { asOf: "2026-11-23 10:00:00+00:00" })).text);
    expect(spaced.frameId).toBe(frames[1]!.frameId);
    const since = await server.request("prompts/get", {
      name: "what_changed_since",
      arguments: { since: "2026-11-22 10:00:00Z" },
    });
    expect(since.error).toBeUndefined();
    const notLeap = await server.tool("get_signals", { asOf: "2026-11-23T23:59:60Z" });
    expect(notLeap.isError).toBe(true);
    const prompt = await server.request("prompts/get", { name: "state_at", arguments: { date: "0050-01-01" } });
    expect(JSON.stringify(prompt.result)).toContain("0050-01-01");
    const series = await server.tool("get_series", { seriesId: "us-financial-stress", from: "0001-01-01" });
    expect(series.isError).toBe(false);
    await server.close();
  });

  it("refuses rolled-over instants, from after to, and prompt arguments that are not instants", async () => {
    const server = inProcess({ site, archive });
    for (const asOf of ["2026-02-30", "2026-11-21T25:00:00Z", "2026-11-21T12:00:60Z", "x".repeat(200_000)]) {
      const r = await server.tool("get_signals", { asOf });
      expect(r.isError, asOf.slice(0, 20)).toBe(true);
      expect(r.text).toMatch(/asOf must be a real calendar date \(2026-11-21/);
      expect(r.text).not.toMatch(/1900|"code":/);
      expect(r.text.length).toBeLessThan(400);
    }
    const diff = await server.tool("diff", { from: "2026-02-30" });
    expect(diff.text).toMatch(/from must be a real calendar date/);
    const reversed = await server.tool("diff", { from: DAYS[2], to: DAYS[0] });
    expect(reversed.text).toMatch(/is after to/);
    const seriesId = "us-financial-stress";
    const backwards = await server.tool("get_series", { seriesId, from: "2026-11-24", to: "2026-11-01" });
    expect(backwards.isError).toBe(true);
    expect(backwards.text).toMatch(/from 2026-11-24 is after to 2026-11-01/);
    expect((await server.tool("get_series", { seriesId, from: "2026-02-30" })).text).toMatch(
      /from must be a real calendar date, as 2026-11-21$/,
    );
    for (const args of [{ date: "garbage" }, { date: "2026-11-20".padEnd(200_000, "x") }, { date: "2026-13-01" }]) {
      const r = await server.request("prompts/get", { name: "state_at", arguments: args });
      expect(r.error?.code).toBe(-32602);
      expect(r.error!.message).toMatch(/date must be a real calendar date \(2026-11-21/);
      expect(r.error!.message.length).toBeLessThan(400);
    }
    const since = await server.request("prompts/get", {
      name: "what_changed_since",
      arguments: { since: "2026-11-20T09:00:00+01:00" },
    });
    expect(JSON.stringify(since.result)).toContain("2026-11-20T09:00:00+01:00");
    await server.close();
  });
});

describe("risk-cli mcp without --archive", () => {
  it("names the frame the site's integrity.json names, marked as read from the site", async () => {
    const named = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8")).frame.frameId;
    expect(named).toBe(frames[2]!.frameId);
    const siteOnly = inProcess({ site });
    const signals = JSON.parse((await siteOnly.tool("get_signals", {})).text);
    expect(signals).toMatchObject({ frameId: named, frameHash: null, frameFrom: "site" });
    expect((await siteOnly.tool("get_surface", { path: "/llms.txt" })).text.split("\n")[0]).toContain(
      `in frame ${named} (as the site names it, not checked against the archive)`,
    );
    await siteOnly.close();
    const withArchive = inProcess({ site, archive });
    expect(JSON.parse((await withArchive.tool("get_signals", {})).text)).toMatchObject({
      frameId: named,
      frameHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      frameFrom: "archive",
    });
    await withArchive.close();
  });
});

describe("one media type per surface", () => {
  it("gives each text surface, the Atom feed included, one media type with its charset in integrity.json, openapi.json, _headers, serve and resources/list", async () => {
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8")) as {
      surfaces: { path: string; mediaType: string }[];
    };
    const openapi = JSON.parse(readFileSync(`${site}/openapi.json`, "utf8"));
    const headers = readFileSync(`${site}/_headers`, "utf8");
    const listed = new Map(
      (await stdio.listResources()).resources.map((r) => [new URL(r.uri).pathname, r.mimeType] as const),
    );
    const http = siteServer(site);
    await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
    const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    for (const { path, mediaType } of integrity.surfaces) {
      if (!/^(text\/|application\/atom\+xml)/.test(mediaType)) continue;
      const url = path.replace(/\/index\.html$/, "/");
      expect(mediaType, path).toMatch(/; charset=utf-8/);
      const operation = openapi.paths[url]?.get;
      if (operation) expect(Object.keys(operation.responses["200"].content), path).toEqual([mediaType]);
      expect(hostHeadersFor(headers, path)["content-type"], path).toBe(mediaType);
      expect((await fetch(`${origin}${path}`)).headers.get("content-type"), path).toBe(mediaType);
      expect(listed.get(url), path).toBe(mediaType);
    }
    expect(integrity.surfaces.find((s) => s.path === "/api/v1/risk.xml")?.mediaType).toBe(
      "application/atom+xml; charset=utf-8",
    );
    http.close();
  });
});

describe("risk-cli mcp's refusals", () => {
  it("says each refusal in one sentence, without the SDK's MCP error prefix that clients show again", async () => {
    const server = inProcess({ site, archive });
    const seriesId = "us-financial-stress";
    for (const [args, expected] of [
      [{ seriesId, from: "2026-02-30" }, "from must be a real calendar date"],
      [{}, "seriesId is required"],
      [{ seriesId: 5 }, "seriesId must be a string"],
    ] as const) {
      const r = await server.tool("get_series", args);
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(new RegExp(`^Invalid arguments for tool get_series: ${expected}`));
      expect(r.text).not.toMatch(/\n|MCP error|Input validation/);
    }
    const tool = await server.tool("no_such_tool", {});
    expect(tool.text).toBe("Tool no_such_tool not found");
    for (const [name, args] of [
      ["no_such_prompt", {}],
      ["state_at", { date: "2026-02-30" }],
      ["state_at", {}],
    ] as const) {
      const r = await server.request("prompts/get", { name, arguments: args });
      expect(r.error?.code, name).toBe(-32602);
      expect(r.error!.message, name).not.toMatch(/\n|MCP error/);
    }
    await server.close();
    // The SDK's client puts the code in front once.
    const http = siteServer(site, { archive, mcp: mcpHttpHandler({ site, archive, hash: nodeHasher }) });
    await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
    const client = new Client({ name: "http", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)),
    );
    const refused = await client.getPrompt({ name: "state_at", arguments: { date: "x" } }).catch((e: Error) => e);
    expect((refused as Error).message).toMatch(
      /^MCP error -32602: Invalid arguments for prompt state_at: date must be/,
    );
    expect((refused as Error).message.match(/MCP error/g)).toHaveLength(1);
    await client.close();
    http.close();
  });
});

describe("serve --mcp: Streamable HTTP at /mcp", () => {
  let server: Server;
  let base = "";
  beforeAll(async () => {
    server = siteServer(site, {
      archive,
      mcp: mcpHttpHandler({ site, archive, allowedOrigins: ["https://agents.example.org"], hash: nodeHasher }),
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  it("lists and calls the tools with the SDK's HTTP client, statelessly", async () => {
    const client = new Client({ name: "http", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    expect((await client.listTools()).tools).toHaveLength(7);
    const signals = parsed(await client.callTool({ name: "get_signals", arguments: { asOf: DAYS[0] } }));
    expect(signals.frameId).toBe(frames[0]!.frameId);
    await client.close();
    // The site is still served beside it.
    expect((await fetch(`${base}/api/v1/risk.json`)).status).toBe(200);
  });

  it("refuses a foreign Origin, answers an allowed one, and takes only POST", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const post = (origin?: string) =>
      fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          ...(origin ? { Origin: origin } : {}),
        },
        body: JSON.stringify(init),
      });
    const foreign = await post("https://evil.example.com");
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.message).toBe("Forbidden origin");
    const allowed = await post("https://agents.example.org");
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://agents.example.org");
    expect((await allowed.json()).result.serverInfo.name).toBe("risk-cli");
    expect((await post("http://localhost:3000")).status).toBe(200);
    const get = await fetch(`${base}/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    const huge = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: `"${"x".repeat(1_100_000)}"`,
    });
    expect(huge.status).toBe(413);
    const notJson = await fetch(`${base}/mcp`, { method: "POST", body: "{" });
    expect(notJson.status).toBe(400);
  });

  it("answers a malformed message with -32600 and wrong params with -32602, as over standard input", async () => {
    const post = async (message: unknown) => {
      const r = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify(message),
      });
      return { status: r.status, body: await r.json() };
    };
    const bad = await post({ jsonrpc: "1.0", id: 7, method: "ping" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ id: 7, error: { code: -32600 } });
    const params = await post({
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "get_signals", arguments: "str" },
    });
    expect(params.body).toEqual({
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32602, message: "Invalid params for tools/call: params.arguments must be an object" },
    });
  });
});

describe("risk-cli mcp and serve --mcp refuse a __proto__ argument", () => {
  it("refuses __proto__ as any argument a tool or prompt does not take, over standard input and HTTP", async () => {
    const server = siteServer(site, { archive, mcp: mcpHttpHandler({ site, archive, hash: nodeHasher }) });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const stdio = inProcess({ site, archive });
    let id = 100;
    // Written by hand: JSON.stringify of an object literal would not keep a "__proto__" key.
    const raw = (method: string, name: string, args: string) =>
      `{"jsonrpc":"2.0","id":${++id},"method":"${method}","params":{"name":"${name}","arguments":${args}}}`;
    const overHttp = async (line: string) =>
      (
        await fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
          body: line,
        })
      ).json() as Promise<Reply>;
    for (const ask of [(line: string) => stdio.line(line) as Promise<Reply>, overHttp]) {
      for (const key of ["__proto__", "constructor"]) {
        const tool = await ask(raw("tools/call", "get_signals", `{"${key}":{"x":1}}`));
        expect(tool.result?.isError, key).toBe(true);
        expect(tool.result?.content?.[0]?.text).toBe(
          `Invalid arguments for tool get_signals: it does not take "${key}"; it takes asOf`,
        );
        const prompt = await ask(raw("prompts/get", "state_at", `{"date":"2026-11-20","${key}":"x"}`));
        expect(prompt.error).toEqual({
          code: -32602,
          message: `Invalid arguments for prompt state_at: it does not take "${key}"; it takes date`,
        });
      }
    }
    await stdio.close();
    server.close();
  });
});

describe("serve --mcp answers malformed JSON-RPC as risk-cli mcp does", () => {
  let server: Server;
  let base = "";
  beforeAll(async () => {
    server = siteServer(site, { archive, mcp: mcpHttpHandler({ site, archive, hash: nodeHasher }) });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  it("answers unparseable JSON with -32700 and an empty array, a batch or a non-object with -32600, as over standard input", async () => {
    const post = async (body: string) => {
      const r = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body,
      });
      const text = await r.text();
      return { status: r.status, body: text === "" ? undefined : JSON.parse(text) };
    };
    // Before: {bad and an empty body got -32000, [] got 202 with no body, a batch of one was answered.
    for (const body of ["{bad", "", "  "]) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body, JSON.stringify(body)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: expect.stringMatching(/^Parse error: the request body is/) },
      });
    }
    const stdio = inProcess({ site, archive });
    const shape = (reply: Reply | Reply[]) =>
      (Array.isArray(reply) ? reply : [reply]).map((r) => [r.id, r.error?.code, r.error?.message]);
    for (const body of [
      "[]",
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]',
      '"just a string"',
      "5",
      "null",
      '{"jsonrpc":"1.0","id":2,"method":"ping"}',
    ]) {
      const r = await post(body);
      expect(r.status, body).toBe(400);
      expect(r.body, body).toBeDefined();
      const codes = shape(r.body);
      expect(
        codes.every(([, code]) => code === -32600),
        body,
      ).toBe(true);
      expect(codes, body).toEqual(shape(await stdio.line(body)));
    }
    expect(Array.isArray((await post('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).body)).toBe(true);
    await stdio.close();
    // A well-formed request is still answered.
    const ping = await post('{"jsonrpc":"2.0","id":9,"method":"ping"}');
    expect(ping).toEqual({ status: 200, body: { jsonrpc: "2.0", id: 9, result: {} } });
  });
});

describe("the MCP endpoint is advertised only where the config names one", () => {
  it("a publication without mcp points agents.json's MCP endpoint at the agent page's MCP section, and llms.txt has no MCP line", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) => t.replace(/\nmcp:\n {2}url: [^\n]+/, ""));
    const out = tempDir("risk-mcp-cfg-");
    const r = runCli(["assemble", "--publication", pub, "--site", `${out}/site`, "--archive", `${out}/archive`]);
    expect(r.status, r.stderr).toBe(0);
    const agents = JSON.parse(readFileSync(`${out}/site/agents.json`, "utf8"));
    // The contract requires both keys: they name the page that says no server answers, never a made-up server.
    expect(agents.endpoints.mcpEndpoint).toBe("https://risques.example.org/donnees/agents/#mcp");
    expect(agents.endpoints.mcpDocumentation).toBe("https://risques.example.org/donnees/agents/#mcp");
    expect(agents.endpoints.llms).toBe("https://risques.example.org/llms.txt");
    const page = readFileSync(`${out}/site/donnees/agents/index.html`, "utf8");
    expect(page).toMatch(/<h2 id="mcp">MCP<\/h2>\n<p>Aucun serveur MCP ne répond en HTTP[^<]*risk-cli mcp --site/);
    expect(readFileSync(`${out}/site/en/agent-surface/index.html`, "utf8")).toContain(
      "No MCP server answers over HTTP for this publication",
    );
    expect(readFileSync(`${out}/site/llms.txt`, "utf8")).not.toMatch(/MCP/);
    const demo = JSON.parse(readFileSync(`${site}/agents.json`, "utf8"));
    expect(demo.endpoints.mcpEndpoint).toBe("https://risques.example.org/mcp");
    expect(demo.endpoints.mcpDocumentation).toBe("https://risques.example.org/donnees/agents/#mcp");
    expect(readFileSync(`${site}/llms.txt`, "utf8")).toContain("Un serveur MCP");
  });
});
