/**
 * Fetching the archive branch with Git itself, for an answer too large for isomorphic-git (which
 * holds a fetched pack in memory, about four times over): `git fetch` streams the pack to disk
 * and indexes it there. A pull uses it only when isomorphic-git's answer went over its bound, and
 * only where a `git` program runs (a GitHub runner has one; Deno needs --allow-run for it).
 *
 * Git gets the same guarantees as the pull it stands in for:
 * - the token travels in an `Authorization` header given through the environment, never on the
 *   command line (which other accounts of the machine can read) nor in a URL;
 * - no redirect is followed, so the token reaches the remote's own address only;
 * - the user's and the system's Git configuration are not read (no credential helper, no proxy
 *   or URL rewriting of theirs), only http(s) is spoken, and nothing prompts;
 * - the remote must keep sending (1 byte a second over the idle bound), the whole fetch is ended
 *   at the pull's deadline, and once what it wrote to the archive's pack folder passes
 *   `maxBytes` (Git itself has no such bound: a remote that answers without end would fill the
 *   disk); Git and the helper it runs for http (`git-remote-http`) are ended together;
 * - what Git writes to its standard error is passed on only as one line, the token removed.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { Buffer } from "node:buffer";
import { RiskError } from "../../core/errors.ts";
import { TOKEN_USER, withoutSecret } from "./secret-text.ts";

export interface GitFetch {
  /** The archive's Git directory. */
  gitdir: string;
  url: string;
  /** The remote branch (`risk-archive`) and the local ref that receives it. */
  branch: string;
  into: string;
  token?: string;
  /** The longest wait for the remote's next bytes, and the time left for the whole fetch. */
  idleMs: number;
  leftMs: number;
  /** The most bytes the fetch may write to the pack folder. */
  maxBytes: number;
  /** The remote as messages name it (scheme, host and path, no credential). */
  where: string;
  /** The `git` program: a name looked up on PATH, or a path. */
  program: string;
}

/**
 * Fetches `branch` into the ref `into` with Git. Resolves to the commit fetched, or to
 * "no-git" when no `git` program can be run here; rejects with E_REMOTE (exit 9) when Git ran and
 * failed, naming the remote and Git's last line.
 */
export function fetchWithGit(f: GitFetch): Promise<string | "no-git"> {
  const settings: [string, string][] = [
    ["http.followRedirects", "false"],
    ["http.lowSpeedLimit", "1"],
    ["http.lowSpeedTime", String(Math.max(1, Math.ceil(f.idleMs / 1000)))],
    ["credential.helper", ""],
    ["core.askPass", ""],
    ["gc.auto", "0"],
    // Kept as a pack, never unpacked into loose objects: a failed pull removes the packs it added.
    ["fetch.unpackLimit", "1"],
  ];
  if (f.token)
    settings.push([
      "http.extraHeader",
      `Authorization: Basic ${Buffer.from(`${TOKEN_USER}:${f.token}`).toString("base64")}`,
    ]);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ALLOW_PROTOCOL: "http:https",
    GIT_CONFIG_COUNT: String(settings.length),
  };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  const args = [
    "--git-dir",
    f.gitdir,
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--no-recurse-submodules",
    f.url,
    `+refs/heads/${f.branch}:${f.into}`,
  ];
  const packDir = `${f.gitdir}/objects/pack`;
  const had = new Set(filesIn(packDir));
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      // A group of its own, so that Git and its http helper are ended together.
      child = spawn(f.program, args, { env, stdio: ["ignore", "ignore", "pipe"], detached: true });
    } catch {
      // Deno without --allow-run refuses the spawn itself.
      resolve("no-git");
      return;
    }
    let stderr = "";
    let stopped: "time" | "size" | null = null;
    const stop = (why: "time" | "size") => {
      stopped ??= why;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    const timer = setTimeout(() => stop("time"), Math.max(0, f.leftMs));
    const written = () => {
      let bytes = 0;
      for (const name of filesIn(packDir)) if (!had.has(name)) bytes += sizeOf(`${packDir}/${name}`);
      return bytes;
    };
    const watch = setInterval(() => {
      if (written() > f.maxBytes) stop("size");
    }, 250);
    const done = () => {
      clearTimeout(timer);
      clearInterval(watch);
    };
    child.on("error", (e: NodeJS.ErrnoException) => {
      done();
      if (e.code === "ENOENT" || e.code === "EACCES" || e.name === "NotCapable" || e.name === "PermissionDenied")
        resolve("no-git");
      else reject(gitFailed(f, e.message));
    });
    child.on("exit", (status) => {
      done();
      // A fetch that ended between two looks is held to the bound all the same.
      if (!stopped && written() > f.maxBytes) stopped = "size";
      // The helper may still hold standard error open: its group is ended, and nothing waits for it.
      if (status !== 0 || stopped) {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      if (stopped === "time") {
        reject(
          new RiskError(
            "E_REMOTE",
            `The archive remote ${f.where} did not finish within the pull's time limit while Git fetched it: check the remote and the network; nothing local was changed.`,
            { remote: f.where },
          ),
        );
        return;
      }
      if (stopped === "size") {
        reject(
          new RiskError(
            "E_REMOTE",
            `The archive remote ${f.where} sent more than ${Math.round(f.maxBytes / 1024 ** 2)} MB while Git fetched it: refused; check the remote. Nothing local was changed.`,
            { remote: f.where },
          ),
        );
        return;
      }
      if (status !== 0) {
        // What Git said may still be on its way through the pipe: read until it ends, briefly.
        const said = () => reject(gitFailed(f, stderr));
        if (child.stderr!.readableEnded) said();
        else {
          const wait = setTimeout(said, 500);
          child.stderr!.once("close", () => {
            clearTimeout(wait);
            said();
          });
        }
        return;
      }
      const fetched = refOf(f.gitdir, f.into);
      if (fetched === null) reject(gitFailed(f, `git fetch left no ${f.into}`));
      else resolve(fetched);
    });
  });
}

function filesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function gitFailed(f: GitFetch, said: string): RiskError {
  // Refused credentials: Git, which may not prompt, asks for a user name after a 401.
  if (/could not read Username|Authentication failed|\b40[13]\b/.test(said))
    return new RiskError(
      "E_REMOTE",
      `The archive remote ${f.where} refused the ${f.token ? "token" : "request"} while Git fetched it: ${
        f.token
          ? "check that the token in RISK_ARCHIVE_TOKEN or GITHUB_TOKEN is valid and may read this repository."
          : "set RISK_ARCHIVE_TOKEN (or GITHUB_TOKEN) to a token that may read this repository."
      } Nothing local was changed.`,
      { remote: f.where },
    );
  const last =
    withoutSecret(said, f.token)
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? "no message";
  return new RiskError(
    "E_REMOTE",
    `The archive remote ${f.where} could not be fetched with Git (the answer was too large to fetch in memory): ${last.slice(0, 300)}. Check the remote and the token; nothing local was changed.`,
    { remote: f.where },
  );
}

/** The commit a ref names, loose or packed, or null. */
function refOf(gitdir: string, ref: string): string | null {
  try {
    const oid = fs.readFileSync(`${gitdir}/${ref}`, "latin1").trim();
    if (/^[0-9a-f]{40}$/.test(oid)) return oid;
  } catch {
    // Not loose: look in packed-refs.
  }
  try {
    for (const line of fs.readFileSync(`${gitdir}/packed-refs`, "latin1").split("\n")) {
      const [oid, name] = line.split(" ");
      if (name === ref && oid && /^[0-9a-f]{40}$/.test(oid)) return oid;
    }
  } catch {
    // No packed refs.
  }
  return null;
}
