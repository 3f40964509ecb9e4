import { readFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { mcpHttpHandler } from "../../app/mcp.ts";
import { siteServer } from "../../app/serve.ts";
import { nodeHasher } from "../../cli/runtime/node.ts";
import { CLI, runCli } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

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
        ...integrity.surfaces.map((s: { url: string }) => s.url),
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
});

describe("the MCP endpoint is advertised only where the config names one", () => {
  it("a publication without mcp has no mcpEndpoint in agents.json and no MCP line in llms.txt", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) => t.replace(/\nmcp:\n {2}url: [^\n]+/, ""));
    const out = tempDir("risk-mcp-cfg-");
    const r = runCli(["assemble", "--publication", pub, "--site", `${out}/site`, "--archive", `${out}/archive`]);
    expect(r.status, r.stderr).toBe(0);
    const agents = JSON.parse(readFileSync(`${out}/site/agents.json`, "utf8"));
    expect(agents.endpoints.mcpEndpoint).toBeUndefined();
    expect(agents.endpoints.mcpDocumentation).toBeUndefined();
    expect(agents.endpoints.llms).toBe("https://risques.example.org/llms.txt");
    expect(readFileSync(`${out}/site/llms.txt`, "utf8")).not.toMatch(/MCP/);
    const demo = JSON.parse(readFileSync(`${site}/agents.json`, "utf8"));
    expect(demo.endpoints.mcpEndpoint).toBe("https://risques.example.org/mcp");
    expect(readFileSync(`${site}/llms.txt`, "utf8")).toContain("Un serveur MCP");
  });
});
