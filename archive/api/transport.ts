/**
 * Moving the archive to and from a remote Git repository over Git's smart HTTP protocol, with
 * isomorphic-git (loaded only by the commands that pull or push).
 *
 * - Pull fetches the remote branch into this archive, sending the local head as what it already
 *   has, so only the frames that are new on the remote travel. The local branch then follows the
 *   remote: fast-forwarded when the remote is ahead, left alone when the local copy is ahead (frames
 *   not pushed yet). When both moved, the remote wins and the local frames that were never pushed
 *   are kept under `refs/risk-cli/unpushed/` rather than lost.
 * - Push is fast-forward only, never forced. A rejection because the remote moved is its own
 *   error, so that the caller can pull, assemble on top and try again.
 *
 * The token never appears in an error, a log or a file: remotes are named by scheme, host and
 * path only.
 */
import * as fs from "node:fs";
import { denoPermissionError, RiskError } from "../../core/errors.ts";
import { isLoopbackHost } from "../../core/inputs/addresses.ts";
import { BRANCH, headCommit, initRepository, isRepository, updateBranch, writeLooseRef } from "../git/objects.ts";
import { isogitFs } from "../git/isogit-fs.ts";
import { ATTESTATIONS_REF, attestationsHead, setAttestationsHead } from "./attestation-ref.ts";
import { UNPUSHED_PREFIX } from "./unpushed.ts";
import { TOKEN_USER, withoutSecret } from "./secret-text.ts";
import { fetchWithGit } from "./git-fetch.ts";
import { readFrame } from "./frames.ts";

export interface Remote {
  /** An http(s) URL of a Git repository. */
  url: string;
  /** The branch on the remote that holds the frames. */
  branch: string;
  /** A token sent as the password of HTTP basic authentication, or none. */
  token?: string;
  /** Bounds on one exchange with the remote; default TRANSPORT_LIMITS (tests make them short). */
  limits?: Partial<TransportLimits>;
  /**
   * The `git` program that fetches an answer over `maxResponseBytes` (archive/api/git-fetch.ts):
   * default `git` on PATH; null never runs one, and such an answer is refused.
   */
  git?: string | null;
}

/**
 * What one exchange with the remote (a pull, a push) may take, so that a remote that stalls,
 * trickles or streams without end never holds a scheduled job (nor its memory) for long.
 */
export interface TransportLimits {
  /** The longest wait for the remote's next bytes. */
  idleMs: number;
  /** The longest a whole pull or push may take. */
  totalMs: number;
  /**
   * The most bytes one answer of the remote may hold. isomorphic-git holds a fetched pack in
   * memory about four times over (measured: 8.5 GB resident for a 2 GB answer), so this keeps a
   * pull within a 7 GB runner; a year of frames is about 270 MB packed. A pull whose answer is
   * larger is done again by Git itself where a `git` program runs (Remote.git).
   */
  maxResponseBytes: number;
  /**
   * The most bytes Git may write to the archive's pack folder in that case: a year of frames of a
   * real-size publication is a few GB packed, and a remote that answers without end is stopped
   * before it fills the disk.
   */
  maxGitFetchBytes: number;
}

export const TRANSPORT_LIMITS: TransportLimits = {
  idleMs: 60_000,
  totalMs: 15 * 60_000,
  maxResponseBytes: 1024 ** 3,
  maxGitFetchBytes: 16 * 1024 ** 3,
};

export interface PullResult {
  /** The remote branch's commit, or null when the remote has no such branch yet. */
  remoteHead: string | null;
  /** The local branch's commit after the pull. */
  head: string | null;
  /** What happened to the local branch. */
  outcome: "empty-remote" | "up-to-date" | "fast-forward" | "local-ahead" | "replaced";
  /** The ref keeping the local frames that were never pushed, when the remote won. */
  keptAs?: string;
  /** Bytes of pack data received. */
  bytesReceived: number;
  /** What happened to the attestations ref: the remote's is taken unless the local one is ahead. */
  attestations?: "none" | "up-to-date" | "fast-forward" | "local-ahead" | "replaced";
}

export interface PushResult {
  outcome: "pushed" | "up-to-date" | "nothing-to-push";
  head: string | null;
  /** The attestations ref (archive/api/attestations.ts), pushed after the frames when there is one. */
  attestations?: "pushed" | "none";
}

/** The remote branch that holds the frames' Sigstore attestations, beside the frames' branch. */
export const attestationsBranch = (branch: string) => `${branch}-attestations`;
/** The remote as it may be printed: scheme, host and path, never credentials or a query. */
export function remoteName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(an unreadable remote URL)";
  }
}

/** Refuses what isomorphic-git's HTTP transport cannot reach, before any connection. */
export function checkRemote(remote: Remote): void {
  let u: URL;
  try {
    u = new URL(remote.url);
  } catch {
    throw new RiskError("E_USAGE", "The archive remote is not a URL: give an https:// address of a Git repository.");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:")
    throw new RiskError(
      "E_USAGE",
      `The archive remote ${remoteName(remote.url)} is not an http(s) URL: risk-cli talks to remotes over Git's smart HTTP protocol only.`,
    );
  if (u.username || u.password)
    throw new RiskError(
      "E_USAGE",
      `The archive remote ${remoteName(remote.url)} carries credentials in its URL: give the token in RISK_ARCHIVE_TOKEN instead, so that it never reaches a log.`,
    );
  // Over plain http: the token would cross the network in clear text (basic authentication):
  // only a remote on this machine may be given one that way.
  if (remote.token && u.protocol === "http:" && !isLoopbackHost(u.hostname))
    throw new RiskError(
      "E_USAGE",
      `Refusing to send the archive token (RISK_ARCHIVE_TOKEN or GITHUB_TOKEN) in clear text to ${remoteName(remote.url)}: give the remote's https:// address (http:// is taken with a token only for this machine: localhost, 127.0.0.0/8, ::1). Nothing was sent.`,
      { remote: remoteName(remote.url) },
    );
  if (!/^[A-Za-z0-9._/-]+$/.test(remote.branch) || remote.branch.includes("..") || remote.branch.startsWith("/"))
    throw new RiskError("E_USAGE", `The archive branch "${remote.branch.slice(0, 60)}" is not a valid branch name.`);
}

const PUBLISHED_PREFIX = "refs/risk-cli/published/";
const REMOTE_NAME = "risk-archive-remote";

async function loadGit() {
  const [{ default: git }, { default: http }] = await Promise.all([
    import("isomorphic-git"),
    import("isomorphic-git/http/node"),
  ]);
  return { git, http };
}

function auth(remote: Remote) {
  return {
    onAuth: () => (remote.token ? { username: TOKEN_USER, password: remote.token } : { cancel: true }),
    // A refused token is reported once, not retried in a loop.
    onAuthFailure: () => ({ cancel: true }),
  };
}

/** Turns isomorphic-git's and the network's errors into ours, naming the remote but never the token. */
function remoteError(e: unknown, remote: Remote, doing: string): RiskError {
  if (e instanceof RiskError) return e;
  // Deno run without --allow-net: the fix is the runtime's flag, not the remote or the network.
  const refused = denoPermissionError(e) ?? denoPermissionError((e as { cause?: unknown } | null)?.cause);
  if (refused) return refused;
  const err = e as { code?: string; data?: { statusCode?: number; reason?: string }; message?: string };
  const where = remoteName(remote.url);
  const status = err.data?.statusCode;
  if (err.code === "HttpError" && (status === 401 || status === 403))
    return new RiskError(
      "E_REMOTE",
      `The archive remote ${where} refused the ${remote.token ? "token" : "request"} while trying to ${doing} (HTTP ${status}): ${
        remote.token
          ? "check that the token in RISK_ARCHIVE_TOKEN or GITHUB_TOKEN is valid and may write to this repository (contents: write)."
          : "set RISK_ARCHIVE_TOKEN (or GITHUB_TOKEN) to a token that may read and write this repository."
      }`,
      { remote: where, status },
    );
  // isomorphic-git reports a token the server refused (asked again after it was sent) as the
  // user cancelling, like a request for credentials when none were set.
  if (err.code === "UserCanceledError")
    return new RiskError(
      "E_REMOTE",
      remote.token
        ? `The archive remote ${where} refused the token while trying to ${doing}: check that the token in RISK_ARCHIVE_TOKEN or GITHUB_TOKEN is valid and may write to this repository (contents: write).`
        : `The archive remote ${where} asks for credentials to ${doing}: set RISK_ARCHIVE_TOKEN (or GITHUB_TOKEN).`,
      { remote: where },
    );
  if (err.code === "HttpError")
    return new RiskError("E_REMOTE", `The archive remote ${where} answered HTTP ${status} while trying to ${doing}.`, {
      remote: where,
      status,
    });
  const sys = (e as NodeJS.ErrnoException).code;
  if (sys && /^E[A-Z]+$/.test(sys))
    return new RiskError(
      "E_REMOTE",
      `Could not ${doing} with the archive remote ${where} (${sys}): check the address and the network; nothing local was changed.`,
      { remote: where, reason: sys },
    );
  // isomorphic-git calls a pack it cannot read (the remote sent garbage) an internal error of its
  // own, and asks the reader to report it: what the remote sent is what to check.
  if (err.code === "InternalError")
    return new RiskError(
      "E_REMOTE",
      `The archive remote ${where} sent a pack that could not be read while trying to ${doing} (${remoteSaid(String((err.data as { message?: string } | undefined)?.message ?? "damaged"), remote)}): check the remote (git fsck on it); nothing local was changed.`,
      { remote: where },
    );
  const said = remoteSaid(String(err.message ?? err.code ?? "unknown error"), remote);
  return new RiskError(
    "E_REMOTE",
    `Could not ${doing} with the archive remote ${where} (${said}): check the address and the network; nothing local was changed.`,
    { remote: where },
  );
}

type HttpClient = Awaited<ReturnType<typeof loadGit>>["http"];

const MAX_REDIRECTS = 10;

/**
 * isomorphic-git's HTTP client, bounded for one exchange with the remote (a pull or a push):
 *
 * - Redirects are followed here, not by the client below (which keeps the token on a redirect
 *   to the same host name, even from https: to plain http: or to another port). A request that
 *   carries the token is never sent on to another origin (scheme, host and port) than the
 *   remote's: that is refused, before anything is sent there. Only a GET is followed, as Git
 *   itself does.
 * - Every answer must keep coming (TransportLimits.idleMs), the whole exchange must end within
 *   TransportLimits.totalMs, and no answer may hold more than TransportLimits.maxResponseBytes.
 * - close() ends every connection still open, so that nothing keeps reading (or keeps the
 *   process alive) once the exchange succeeded or failed.
 */
function boundedHttp(base: HttpClient, remote: Remote, doing: string): { http: HttpClient; close(): void } {
  const limits = { ...TRANSPORT_LIMITS, ...remote.limits };
  const where = remoteName(remote.url);
  const origin = new URL(remote.url).origin;
  const deadline = Date.now() + limits.totalMs;
  const open = new Set<Watch>();

  class Watch {
    readonly abort = new AbortController();
    readonly failed: Promise<never>;
    private fail!: (e: RiskError) => void;
    private timer: ReturnType<typeof setTimeout> | undefined;
    constructor() {
      this.failed = new Promise<never>((_, reject) => (this.fail = reject));
      this.failed.catch(() => {});
      open.add(this);
      this.arm();
    }
    /** Waits again for the remote's next bytes: at most idleMs, never past the deadline. */
    arm() {
      clearTimeout(this.timer);
      const left = deadline - Date.now();
      const overall = left <= limits.idleMs;
      this.timer = setTimeout(
        () =>
          this.stop(
            new RiskError(
              "E_REMOTE",
              overall
                ? `The archive remote ${where} did not finish within ${seconds(limits.totalMs)} while trying to ${doing}: check the remote; nothing local was changed.`
                : `The archive remote ${where} sent nothing for ${seconds(limits.idleMs)} while trying to ${doing}: check the remote and the network; nothing local was changed.`,
              { remote: where },
            ),
          ),
        Math.max(0, Math.min(left, limits.idleMs)),
      );
    }
    /** Ends this request's connection; with an error, whoever waits on it gets that error. */
    stop(error?: RiskError) {
      clearTimeout(this.timer);
      open.delete(this);
      if (error) this.fail(error);
      this.abort.abort();
    }
  }

  const http: HttpClient = {
    async request(req) {
      let url = req.url;
      for (let hop = 0; ; hop++) {
        const watch = new Watch();
        const res = await Promise.race([
          base.request({
            ...req,
            url,
            signal: watch.abort.signal,
            // Node's global agent ends a socket after 5 s of silence ("Request timed out"): the
            // remote is waited for as long as the idle limit says, which the watch enforces.
            fetchOptions: { ...req.fetchOptions, followRedirects: false, timeout: limits.idleMs + 5_000 },
          }),
          watch.failed,
        ]);
        const location = res.headers?.location;
        if (req.method === "GET" && res.statusCode >= 300 && res.statusCode < 400 && location) {
          watch.stop();
          const next = redirectTarget(location, url);
          const carriesToken = Object.keys(req.headers ?? {}).some((h) => h.toLowerCase() === "authorization");
          if (next === null || hop >= MAX_REDIRECTS)
            throw new RiskError(
              "E_REMOTE",
              `The archive remote ${where} ${next === null ? "redirected to an address that is not http(s)" : `redirected more than ${MAX_REDIRECTS} times`} while trying to ${doing}: check the remote's address; nothing local was changed.`,
              { remote: where },
            );
          if (carriesToken && next.origin !== origin)
            throw new RiskError(
              "E_USAGE",
              `The archive remote ${where} redirected to ${remoteName(next.href).replace(/\/info\/refs$/, "")}, ${
                next.protocol === "http:" && new URL(remote.url).protocol === "https:"
                  ? "over plain http"
                  : "another origin"
              }: refusing to send the archive token (RISK_ARCHIVE_TOKEN or GITHUB_TOKEN) there. The token was not sent to it and nothing local was changed; if that address is the archive's, give its https:// form as the remote.`,
              { remote: where, redirect: remoteName(next.href).replace(/\/info\/refs$/, "") },
            );
          url = next.href;
          continue;
        }
        const source = res.body;
        if (!source) {
          watch.stop();
          return res;
        }
        let received = 0;
        const body = (async function* () {
          const it = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
          try {
            for (;;) {
              const next = await Promise.race([it.next(), watch.failed]);
              if (next.done) return;
              received += next.value.byteLength;
              if (received > limits.maxResponseBytes) {
                const error = new RiskError(
                  "E_REMOTE",
                  `The archive remote ${where} sent an answer of more than ${Math.round(limits.maxResponseBytes / 1024 ** 2)} MB while trying to ${doing}: refused (risk-cli holds a fetched pack in memory, and no git program could be run to fetch it instead); check the remote, or put git on PATH (on Deno, allow it with --allow-run). Nothing local was changed.`,
                  { remote: where, tooLarge: true },
                );
                watch.stop(error);
                throw error;
              }
              watch.arm();
              yield next.value;
            }
          } finally {
            watch.stop();
          }
        })();
        return { ...res, body };
      }
    },
  };
  return {
    http,
    close() {
      for (const watch of [...open]) watch.stop();
    },
  };
}

/** Where a redirect leads, resolved against the URL asked; null when it is not http(s). */
function redirectTarget(location: string, from: string): URL | null {
  try {
    const next = new URL(location, from);
    return next.protocol === "https:" || next.protocol === "http:" ? next : null;
  } catch {
    return null;
  }
}

const seconds = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** Runs one exchange with the remote through boundedHttp, closing every connection it left open. */
async function exchange<T>(remote: Remote, doing: string, run: (http: HttpClient) => Promise<T>): Promise<T> {
  const { http } = await loadGit();
  const bounded = boundedHttp(http, remote, doing);
  try {
    return await run(bounded.http);
  } finally {
    bounded.close();
  }
}

/**
 * isomorphic-git's fetch insists on the remote's HEAD, which a repository that holds only the
 * archive branch (a dedicated archive repository whose default branch was never pushed) does not
 * advertise: the fetch would then fail after negotiating, every time. When the ref advertisement
 * names no HEAD, this adds the capability `symref=HEAD:refs/heads/<branch>` to its first line, as
 * a server whose HEAD is the archive branch would send. Nothing else of the answer changes.
 */
function withRemoteHead(http: HttpClient, branch: string): HttpClient {
  return {
    async request(req) {
      const res = await http.request(req);
      if (req.method !== "GET" || !req.url.includes("/info/refs?service=git-upload-pack") || !res.body) return res;
      const chunks: Uint8Array[] = [];
      for await (const c of res.body as AsyncIterable<Uint8Array>) chunks.push(c);
      const body = addHeadSymref(Buffer.concat(chunks), branch);
      return {
        ...res,
        body: (async function* () {
          yield body;
        })(),
      };
    },
  };
}

/** See withRemoteHead: the advertisement with a HEAD symref added when it has none. */
export function addHeadSymref(advert: Buffer, branch: string): Buffer {
  const lines: Buffer[] = [];
  let at = 0;
  while (at + 4 <= advert.length) {
    const len = Number.parseInt(advert.subarray(at, at + 4).toString("latin1"), 16);
    if (!Number.isFinite(len)) return advert;
    const size = len === 0 ? 4 : len;
    if (size < 4 || at + size > advert.length) return advert;
    lines.push(advert.subarray(at, at + size));
    at += size;
  }
  if (at !== advert.length) return advert;
  const first = lines.findIndex((l) => l.length > 4 && l.indexOf(0) > 0);
  if (first < 0) return advert;
  const text = lines[first].subarray(4).toString("latin1");
  if (/ HEAD\0/.test(text) || /(^|[\0 ])symref=HEAD:/.test(text)) return advert;
  const withHead = text.replace(/\n$/, "") + ` symref=HEAD:refs/heads/${branch}\n`;
  const payload = Buffer.from(withHead, "latin1");
  lines[first] = Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, "0"), "latin1"), payload]);
  return Buffer.concat(lines);
}

async function isAncestor(
  git: Awaited<ReturnType<typeof loadGit>>["git"],
  gitdir: string,
  ancestor: string,
  oid: string,
): Promise<boolean> {
  if (ancestor === oid) return true;
  try {
    return await git.isDescendent({ fs: isogitFs(gitdir), gitdir, oid, ancestor, depth: -1 });
  } catch {
    return false;
  }
}

/**
 * Fetches the remote branch and brings the local branch to it (see the module's comment). An
 * archive folder that does not exist yet is created empty first.
 */
export async function pullArchive(gitdir: string, remote: Remote): Promise<PullResult> {
  checkRemote(remote);
  return exchange(remote, "pull", async (http) => {
    const result = await pullFrames(gitdir, remote, http);
    if (result.outcome === "empty-remote") return result;
    return { ...result, attestations: await pullAttestations(gitdir, remote, http) };
  });
}

/**
 * Fetches the remote's attestations branch, when it has one, into the local attestations ref:
 * fast-forwarded, or kept when the local one is ahead (attestations not pushed yet). When both
 * moved, the remote's is taken and the local one kept under refs/risk-cli/unpushed/.
 */
async function pullAttestations(
  gitdir: string,
  remote: Remote,
  http: HttpClient,
): Promise<NonNullable<PullResult["attestations"]>> {
  const { git } = await loadGit();
  const branch = attestationsBranch(remote.branch);
  const undo = fetchUndo(gitdir, branch);
  let fetched: string | null;
  try {
    const result = await git.fetch({
      fs: isogitFs(gitdir),
      gitdir,
      http: withRemoteHead(http, branch),
      url: remote.url,
      ref: branch,
      remoteRef: branch,
      remote: REMOTE_NAME,
      singleBranch: true,
      tags: false,
      ...auth(remote),
    });
    fetched = result.fetchHead ?? null;
  } catch (e) {
    undo();
    if ((e as { code?: string }).code !== "NotFoundError") throw remoteError(e, remote, "pull");
    return "none";
  }
  if (fetched === null) return "none";
  const local = attestationsHead(gitdir);
  if (local === fetched) return "up-to-date";
  if (local === null || (await isAncestor(git, gitdir, local, fetched))) {
    setAttestationsHead(gitdir, fetched);
    return "fast-forward";
  }
  if (await isAncestor(git, gitdir, fetched, local)) return "local-ahead";
  fs.mkdirSync(`${gitdir}/${UNPUSHED_PREFIX}`, { recursive: true });
  fs.writeFileSync(`${gitdir}/${UNPUSHED_PREFIX}${local}`, `${local}\n`);
  setAttestationsHead(gitdir, fetched);
  return "replaced";
}

/**
 * The last commit this archive saw on the remote branch (pulled or pushed), kept under
 * refs/risk-cli/published/<branch>: what the remote has published, as far as this archive knows.
 */
const publishedFile = (gitdir: string, branch: string) => `${gitdir}/${PUBLISHED_PREFIX}${branch}`;

function lastPublished(gitdir: string, branch: string): string | null {
  try {
    const oid = fs.readFileSync(publishedFile(gitdir, branch), "latin1").trim();
    return /^[0-9a-f]{40}$/.test(oid) ? oid : null;
  } catch {
    return null;
  }
}

function setPublished(gitdir: string, branch: string, oid: string): void {
  writeLooseRef(gitdir, publishedFile(gitdir, branch), oid);
}

async function pullFrames(gitdir: string, remote: Remote, http: HttpClient): Promise<PullResult> {
  const result = await pullFramesOnce(gitdir, remote, http);
  if (result.remoteHead) setPublished(gitdir, remote.branch, result.remoteHead);
  return result;
}

async function pullFramesOnce(gitdir: string, remote: Remote, http: HttpClient): Promise<PullResult> {
  const started = Date.now();
  if (!isRepository(gitdir)) await initRepository(gitdir);
  const { git } = await loadGit();
  const local = await headCommit(gitdir);
  const published = lastPublished(gitdir, remote.branch);
  const before = packBytes(gitdir);
  const undo = fetchUndo(gitdir, remote.branch);
  let fetched: string | null;
  try {
    // isomorphic-git keeps what it fetched under the remote's tracking refs, which need a remote
    // entry in the archive's config (its URL carries no credential).
    await git.addRemote({ fs, gitdir, remote: REMOTE_NAME, url: remote.url, force: true });
    const result = await git.fetch({
      fs: isogitFs(gitdir),
      gitdir,
      http: withRemoteHead(http, remote.branch),
      url: remote.url,
      // The local branch is what this archive already has: its head is sent as a "have", so
      // only the objects new since then are sent.
      ref: BRANCH.replace("refs/heads/", ""),
      remoteRef: remote.branch,
      remote: REMOTE_NAME,
      singleBranch: true,
      tags: false,
      ...auth(remote),
    });
    fetched = result.fetchHead ?? null;
  } catch (e) {
    const err = e as { code?: string; data?: { what?: string } };
    undo();
    if (e instanceof RiskError && e.data.tooLarge === true) fetched = await fetchLarge(gitdir, remote, started, e);
    else if (err.code !== "NotFoundError") throw remoteError(e, remote, "pull");
    else return { remoteHead: null, head: local, outcome: "empty-remote", bytesReceived: 0 };
  }
  const bytesReceived = packBytes(gitdir) - before;
  if (fetched === null) return { remoteHead: null, head: local, outcome: "empty-remote", bytesReceived };
  // What the remote's branch holds must be a frame: another repository's branch, a commit made
  // there with plain Git or an object that is no commit is never adopted as this archive's history.
  const notFrame = await whyNotFrame(gitdir, fetched);
  if (notFrame !== null) {
    undo();
    throw new RiskError(
      "E_VERIFY",
      `The archive remote ${remoteName(remote.url)} (branch ${remote.branch}) holds ${fetched.slice(0, 12)}, which is not a frame (${notFrame}). Nothing was changed locally; check --remote and --branch: they must name an archive risk-cli pushed.`,
      { remote: remoteName(remote.url), branch: remote.branch, head: fetched },
    );
  }
  // Each move of the branch is a compare-and-swap on the head read before the fetch: a frame an
  // assembly committed meanwhile (a pull takes no archive lock) is never overwritten.
  if (local === null) {
    await updateBranch(gitdir, fetched, null);
    return { remoteHead: fetched, head: fetched, outcome: "fast-forward", bytesReceived };
  }
  // A remote that no longer holds what it published, and is not merely behind it (a rollback,
  // which the next push repairs), rewrote its history: its frames are not adopted.
  if (
    published !== null &&
    !(await isAncestor(git, gitdir, published, fetched)) &&
    !(await isAncestor(git, gitdir, fetched, published))
  )
    throw new RiskError(
      "E_VERIFY",
      `The archive remote ${remoteName(remote.url)} (branch ${remote.branch}) no longer holds commit ${published.slice(0, 12)}, which it published before: its history was rewritten. Nothing was changed locally; check the remote (risk-cli verify on a clone of it) before publishing again.`,
      { remote: remoteName(remote.url), branch: remote.branch, published },
    );
  if (local === fetched) return { remoteHead: fetched, head: local, outcome: "up-to-date", bytesReceived };
  if (await isAncestor(git, gitdir, local, fetched)) {
    await updateBranch(gitdir, fetched, local);
    return { remoteHead: fetched, head: fetched, outcome: "fast-forward", bytesReceived };
  }
  if (await isAncestor(git, gitdir, fetched, local))
    return { remoteHead: fetched, head: local, outcome: "local-ahead", bytesReceived };
  // Both moved: the remote is the publication of record. The local frames that never reached it
  // are kept under a ref of their own, so that nothing is lost.
  const keptAs = `${UNPUSHED_PREFIX}${local}`;
  fs.mkdirSync(`${gitdir}/${UNPUSHED_PREFIX}`, { recursive: true });
  fs.writeFileSync(`${gitdir}/${keptAs}`, `${local}\n`);
  await updateBranch(gitdir, fetched, local);
  return { remoteHead: fetched, head: fetched, outcome: "replaced", keptAs, bytesReceived };
}

/** Why `commit` is not a frame risk-cli wrote, in a few words, or null when it is one. */
async function whyNotFrame(gitdir: string, commit: string): Promise<string | null> {
  try {
    await readFrame(gitdir, commit);
    return null;
  } catch (e) {
    if (!(e instanceof RiskError)) throw e;
    return e.message.slice(0, 300);
  }
}

/**
 * The remote branch fetched by Git itself, after isomorphic-git's answer went over its bound
 * (`tooLarge`, rethrown when no git program runs here): the commit, under the same tracking ref.
 * A failed fetch leaves the archive as it was, packs and temporary files included.
 */
async function fetchLarge(gitdir: string, remote: Remote, started: number, tooLarge: RiskError): Promise<string> {
  if (remote.git === null) throw tooLarge;
  const limits = { ...TRANSPORT_LIMITS, ...remote.limits };
  const undo = fetchUndo(gitdir, remote.branch);
  try {
    const fetched = await fetchWithGit({
      gitdir,
      url: remote.url,
      branch: remote.branch,
      into: `refs/remotes/${REMOTE_NAME}/${remote.branch}`,
      ...(remote.token ? { token: remote.token } : {}),
      idleMs: limits.idleMs,
      leftMs: limits.totalMs - (Date.now() - started),
      maxBytes: limits.maxGitFetchBytes,
      where: remoteName(remote.url),
      program: remote.git ?? "git",
    });
    if (fetched === "no-git") throw tooLarge;
    return fetched;
  } catch (e) {
    undo();
    throw e;
  }
}

/**
 * Pushes the local branch to the remote branch, fast-forward only. Throws `E_REMOTE_MOVED` when
 * the remote has frames this archive does not (pull, then assemble on top).
 */
export async function pushArchive(gitdir: string, remote: Remote): Promise<PushResult> {
  checkRemote(remote);
  const head = isRepository(gitdir) ? await headCommit(gitdir) : null;
  if (head === null) return { outcome: "nothing-to-push", head };
  return exchange(remote, "push", (http) => pushHead(gitdir, remote, head, http));
}

async function pushHead(gitdir: string, remote: Remote, head: string, http: HttpClient): Promise<PushResult> {
  const { git } = await loadGit();
  try {
    const result = await git.push({
      fs: isogitFs(gitdir),
      http,
      gitdir,
      url: remote.url,
      ref: BRANCH,
      remoteRef: `refs/heads/${remote.branch}`,
      remote: REMOTE_NAME,
      force: false,
      ...auth(remote),
    });
    const status = result.refs?.[`refs/heads/${remote.branch}`];
    if (result.ok === false || (status && status.ok === false))
      throw movedOrRefused(remote, status?.error ?? result.error ?? "refused");
    setPublished(gitdir, remote.branch, head);
    if (attestationsHead(gitdir) === null) return { outcome: "pushed", head, attestations: "none" };
    const branch = attestationsBranch(remote.branch);
    const pushed = await git.push({
      fs: isogitFs(gitdir),
      http,
      gitdir,
      url: remote.url,
      ref: ATTESTATIONS_REF,
      remoteRef: `refs/heads/${branch}`,
      remote: REMOTE_NAME,
      force: false,
      ...auth(remote),
    });
    const attested = pushed.refs?.[`refs/heads/${branch}`];
    if (pushed.ok === false || (attested && attested.ok === false))
      throw movedOrRefused({ ...remote, branch }, attested?.error ?? pushed.error ?? "refused");
    return { outcome: "pushed", head, attestations: "pushed" };
  } catch (e) {
    const code = (e as { code?: string; data?: { reason?: string } }).code;
    if (code === "PushRejectedError") throw movedOrRefused(remote, (e as { data?: { reason?: string } }).data?.reason);
    if (code === "GitPushError") throw movedOrRefused(remote, (e as Error).message);
    throw remoteError(e, remote, "push");
  }
}

/** How much of what a remote sent back (a page, a refusal's reason) a message quotes. */
const REMOTE_EXCERPT = 40;

/**
 * isomorphic-git's message, which may quote what the remote sent: an HTML page or a pkt-line ERR
 * echoing the request, token included. That part is cut to a short excerpt; every trace of the
 * token is removed, control characters are replaced, and any URL is cut to its scheme, host and
 * path.
 */
function remoteSaid(message: string, remote: Remote): string {
  const m = /^([\s\S]*?\breceived:?\s*)([\s\S]*)$/.exec(message);
  return m
    ? `${remoteExcerpt(m[1]!, remote, 160)}${remoteExcerpt(m[2]!, remote, REMOTE_EXCERPT)}`
    : remoteExcerpt(message, remote, 160);
}

function remoteExcerpt(text: string, remote: Remote, max: number): string {
  const clean = withoutSecret(text, remote.token)
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (u) => remoteName(u))
    .replace(/[^\x20-\x7e]/g, "?");
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function movedOrRefused(remote: Remote, reason: string | undefined): RiskError {
  const where = remoteName(remote.url);
  const text = remoteExcerpt(String(reason ?? ""), remote, 120);
  if (/fast-forward|fetch first|stale|lock|failed to update|cannot lock/i.test(text) || text === "")
    return new RiskError(
      "E_REMOTE_MOVED",
      `The archive remote ${where} has frames this archive does not (branch ${remote.branch}): pull, assemble on top and push again. Nothing was forced.`,
      { remote: where, branch: remote.branch },
    );
  return new RiskError("E_REMOTE", `The archive remote ${where} refused the push to branch ${remote.branch}: ${text}`, {
    remote: where,
    branch: remote.branch,
  });
}

/**
 * What undoes a fetch that failed: isomorphic-git may have written the remote's pack (a damaged
 * one with no index, when the remote sent garbage) and moved the remote-tracking ref to a commit
 * the archive does not hold, which makes `git gc` and `git for-each-ref` fail on the archive; Git
 * itself, ended in the middle, leaves its temporary pack files (`tmp_pack_…`). The packs and
 * temporary files written since are removed, and the ref is put back as it was.
 */
function fetchUndo(gitdir: string, branch: string): () => void {
  const packDir = `${gitdir}/objects/pack`;
  const packs = () => {
    try {
      return fs
        .readdirSync(packDir)
        .filter((n) => /^(pack-[0-9a-f]+\.(pack|idx|keep|rev|mtimes)|tmp_(pack|idx|rev)_\w+)$/.test(n));
    } catch {
      return [];
    }
  };
  const had = new Set(packs());
  const refFile = `${gitdir}/refs/remotes/${REMOTE_NAME}/${branch}`;
  let ref: Buffer | null;
  try {
    ref = fs.readFileSync(refFile);
  } catch {
    ref = null;
  }
  return () => {
    for (const name of packs()) if (!had.has(name)) fs.rmSync(`${packDir}/${name}`, { force: true });
    if (ref === null) fs.rmSync(refFile, { force: true });
    else fs.writeFileSync(refFile, ref);
  };
}

/** Bytes of pack files in the archive: how much a fetch brought is the difference. */
function packBytes(gitdir: string): number {
  let total = 0;
  try {
    for (const name of fs.readdirSync(`${gitdir}/objects/pack`))
      if (name.endsWith(".pack")) total += fs.statSync(`${gitdir}/objects/pack/${name}`).size;
  } catch {
    // no pack folder yet
  }
  return total;
}
