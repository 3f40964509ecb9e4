/**
 * A real Git smart-HTTP server for the tests and the transport benchmark: git's own `git http-backend`, run as a CGI program
 * behind a small HTTP server on 127.0.0.1, with a token checked on every request (HTTP basic
 * authentication, the way GitHub takes a job's token).
 */
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

export interface GitServer {
  /** The clone URL of the one repository it serves. */
  url: string;
  /** Its bare repository on disk, for `git` checks. */
  gitdir: string;
  token: string;
  /** Bytes of response bodies sent for fetches (git-upload-pack POSTs), since the last reset. */
  uploadPackBytes: number;
  /** Requests refused for a missing or wrong token. */
  refused: number;
  /** The next push's request is cut off after this many bytes of its body (the connection dropped). */
  dropNextPushAfter?: number;
  /** Awaited before the next fetch's answer is sent: another writer at work while a pull waits. */
  beforeNextFetchAnswer?: () => Promise<void>;
  close(): Promise<void>;
}

export async function startGitServer(options: { token?: string } = {}): Promise<GitServer> {
  const root = tempDir("risk-remote-");
  const gitdir = `${root}/remote.git`;
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", gitdir]);
  execFileSync("git", ["--git-dir", gitdir, "config", "http.receivepack", "true"]);
  const token = options.token ?? "test-token-5f1c";
  const state = {
    uploadPackBytes: 0,
    refused: 0,
    dropNextPushAfter: undefined as number | undefined,
    beforeNextFetchAnswer: undefined as (() => Promise<void>) | undefined,
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    if (req.headers.authorization !== expected) {
      state.refused++;
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="risk-cli test"' });
      res.end("token required\n");
      return;
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    const isPush = url.pathname.endsWith("/git-receive-pack");
    const isFetch = url.pathname.endsWith("/git-upload-pack") && req.method === "POST";
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REMOTE_USER: "publisher",
        REMOTE_ADDR: "127.0.0.1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
      },
    });
    const drop = isPush && req.method === "POST" ? state.dropNextPushAfter : undefined;
    if (drop !== undefined) {
      state.dropNextPushAfter = undefined;
      let seen = 0;
      req.on("data", (chunk: Buffer) => {
        seen += chunk.length;
        if (seen >= drop) {
          cgi.kill("SIGKILL");
          req.socket.destroy();
        } else cgi.stdin.write(chunk);
      });
      req.on("end", () => cgi.stdin.end());
    } else req.pipe(cgi.stdin);
    cgi.stdin.on("error", () => {});
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (c: Buffer) => chunks.push(c));
    cgi.on("close", async () => {
      const hook = isFetch ? state.beforeNextFetchAnswer : undefined;
      if (hook) {
        state.beforeNextFetchAnswer = undefined;
        await hook();
      }
      if (req.socket.destroyed) return;
      const out = Buffer.concat(chunks);
      const split = out.indexOf("\r\n\r\n") >= 0 ? out.indexOf("\r\n\r\n") : out.indexOf("\n\n");
      const sep = out.indexOf("\r\n\r\n") >= 0 ? 4 : 2;
      const head = out.subarray(0, split).toString("latin1");
      const body = out.subarray(split + sep);
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.split(/\r?\n/)) {
        const i = line.indexOf(":");
        if (i < 0) continue;
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      if (isFetch) state.uploadPackBytes += body.length;
      res.writeHead(status, headers);
      res.end(body);
    });
  };

  const server = createServer(handle);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  const result: GitServer = {
    url: `http://127.0.0.1:${port}/remote.git`,
    gitdir,
    token,
    get uploadPackBytes() {
      return state.uploadPackBytes;
    },
    set uploadPackBytes(v: number) {
      state.uploadPackBytes = v;
    },
    get refused() {
      return state.refused;
    },
    set refused(v: number) {
      state.refused = v;
    },
    get dropNextPushAfter() {
      return state.dropNextPushAfter;
    },
    set dropNextPushAfter(v: number | undefined) {
      state.dropNextPushAfter = v;
    },
    get beforeNextFetchAnswer() {
      return state.beforeNextFetchAnswer;
    },
    set beforeNextFetchAnswer(v: (() => Promise<void>) | undefined) {
      state.beforeNextFetchAnswer = v;
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
  return result;
}
