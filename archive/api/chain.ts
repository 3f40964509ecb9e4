/**
 * The whole chain of frame commits is there before a frame is appended to it. A frame's commit
 * deleted deep in the history (a `rm` in objects/, a careless repack) would otherwise go
 * unnoticed until `verify`, and every frame appended meanwhile would extend a chain that no
 * clone can read.
 *
 * Reading every commit of a year of frames (35,040) at every assembly would cost seconds; this
 * keeps the list of the chain's commits in `risk-cli-chain.txt` (one "oid frame-id" line per
 * frame, oldest first) in the archive's Git directory, written when a frame is committed (never
 * by an assembly that fails), reads only the commits added since the list was written, and checks that each commit of the list is still held (a stat or a pack
 * index lookup, no read: 35,040 commits cost tens of milliseconds). A list that the head does not extend (another history pulled, a
 * rewritten branch) is rebuilt from the commits.
 */
import { RiskError } from "../../core/errors.ts";
import { firstMissing, notFetched, readCommit } from "../git/objects.ts";
import { parseFrameMessage } from "../models/message.ts";
import { readKeptFile, writeKeptFile } from "../kept-file.ts";

const fileOf = (gitdir: string) => `${gitdir}/risk-cli-chain.txt`;

interface Link {
  oid: string;
  frameId: string;
}

function readList(gitdir: string): Link[] {
  const text = readKeptFile(fileOf(gitdir));
  if (text === null) return [];
  const links: Link[] = [];
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{40}) (\S+)$/.exec(line);
    if (m) links.push({ oid: m[1]!, frameId: m[2]! });
    else if (line !== "") return []; // not a list this code wrote: rebuilt from the commits
  }
  return links;
}

/** `what` names the commit: "the commit of frame X (oid)" or "the commit (oid) below frame Y". */
function broken(what: string, oid: string, frame: string | undefined): RiskError {
  return new RiskError(
    "E_ARCHIVE",
    `The archive's chain is broken: ${what}. Nothing was assembled; run risk-cli verify and restore the archive from a clone.`,
    { frame, commit: oid },
  );
}

/**
 * Checks that every frame commit from `head` down to the first is held by the archive, and
 * keeps the list up to date. `trustList` false (`--no-cache`) reads every commit instead.
 */
export async function checkChain(gitdir: string, head: string, trustList: boolean): Promise<void> {
  const known = trustList ? readList(gitdir) : [];
  const last = known[known.length - 1];
  const added: Link[] = [];
  let oid: string | undefined = head;
  let reachedKnown = false;
  let above: string | undefined;
  while (oid) {
    if (last && oid === last.oid) {
      reachedKnown = true;
      break;
    }
    const where = above ? `the commit ${oid} below frame ${above}` : `the head commit ${oid}`;
    let info: Awaited<ReturnType<typeof readCommit>>;
    let frameId: string;
    try {
      info = await readCommit(gitdir, oid);
      frameId = parseFrameMessage(info.message, oid).frameId;
    } catch (e) {
      if (e instanceof RiskError && (e.data as { incomplete?: string }).incomplete) throw e;
      throw broken(`${where} cannot be read as a frame (${(e as Error).message})`, oid, above);
    }
    added.push({ oid, frameId });
    above = frameId;
    oid = info.parents[0];
  }
  const chain = reachedKnown ? [...known, ...added.reverse()] : added.reverse();
  if (reachedKnown) {
    // The commits read above are there; those of the list are checked without reading them.
    const missing = firstMissing(
      gitdir,
      known.map((link) => link.oid),
    );
    if (missing) {
      const clone = notFetched(gitdir, missing);
      if (clone) throw clone;
    }
    const link = known.find((l) => l.oid === missing);
    if (link) throw broken(`the commit of frame ${link.frameId} (${link.oid}) is missing`, link.oid, link.frameId);
  }
  checked = { gitdir, head, links: chain };
}

/** The chain an assembly checked, kept until its frame is committed on top of it. */
let checked: { gitdir: string; head: string; links: Link[] } | null = null;

/**
 * Adds the frame just committed on `parent` to the list, when `parent` is the head whose chain
 * was checked (or the archive was empty). Writes through a temporary file and a rename.
 */
export function recordChain(gitdir: string, parent: string | null, commit: string, frameId: string): void {
  let links: Link[];
  if (parent === null) links = [];
  else if (checked && checked.gitdir === gitdir && checked.head === parent) links = checked.links;
  else return;
  checked = null;
  try {
    writeKeptFile(
      gitdir,
      fileOf(gitdir),
      [...links, { oid: commit, frameId }].map((l) => `${l.oid} ${l.frameId}\n`).join(""),
    );
  } catch {
    // The list only saves time: without it the next assembly reads every commit.
  }
}
