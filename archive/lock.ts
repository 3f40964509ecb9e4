import * as fs from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { RiskError } from "../core/errors.ts";
import { makeFolder } from "./make-folder.ts";
import { shareKeptFile } from "./git/objects.ts";

export interface Lock {
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  since: string;
}

/** The points of taking the lock where a test may pause this process (to race it against others). */
export type LockStep = "create" | "read-holder" | "takeover" | "remove-takeover" | "reread-holder" | "remove-stale";

export interface LockHooks {
  pause?(step: LockStep): void;
}

/**
 * One writer at a time. The lock file is created exclusively (O_EXCL); a lock whose writer is
 * alive is never broken, and one from another host is never guessed about.
 *
 * A lock left by a dead process on this host is taken over under a second exclusive file, the
 * takeover file: only the process that creates it may remove the stale lock, and it removes it
 * only if the lock still names the dead holder it saw. Two processes that both see the same
 * stale lock therefore cannot both remove it and both go on (the classic remove-then-create
 * race). A takeover file whose creator died is cleared away by the next run, which then takes
 * over itself (see claimTakeover). A lock or takeover file that names no holder (its writer died
 * before writing its name) is taken as stale once it is a minute old, so that a scheduled job is
 * not locked out for good; the run that creates one and cannot write its name removes it at once.
 * The branch update is a compare-and-swap besides (git/objects.ts), so that no frame is ever lost
 * even if this lock were broken from outside.
 */
export function acquireLock(dir: string, now: Date, warn: (message: string) => void, hooks: LockHooks = {}): Lock {
  makeFolder(dir);
  const file = `${dir}/risk-cli.lock`;
  const takeover = `${file}.takeover`;
  const me: Holder = { pid: process.pid, host: hostname(), since: now.toISOString() };
  const pause = (step: LockStep) => hooks.pause?.(step);
  const create = (): boolean => {
    pause("create");
    return createExclusive(file, me);
  };
  const mine = (): Lock => {
    heldHere.add(resolve(file));
    return {
      release: () => {
        heldHere.delete(resolve(file));
        // Only our own lock is removed: never one that another process holds.
        if (sameHolder(readHolder(file), me)) fs.rmSync(file, { force: true });
      },
    };
  };
  if (create()) return mine();
  pause("read-holder");
  const holder = readHolder(file);
  let stale: Stale;
  if (holder) {
    const age = Math.round((now.getTime() - Date.parse(holder.since)) / 1000);
    if (holder.host !== me.host || holderRuns(holder.pid, file)) throw locked(file, holder, age);
    stale = {
      said: `Removing a stale lock: PID ${holder.pid} on ${holder.host} took it ${age} s ago and is no longer running${holder.pid === me.pid ? " (this run was given its PID)" : ""}.`,
      still: () => sameHolder(readHolder(file), holder),
    };
  } else {
    const seen = unreadableFor(file);
    if (seen === "gone" && create()) return mine();
    if (seen === "gone" || seen.ms < UNREADABLE_GRACE_MS)
      throw new RiskError(
        "E_LOCKED",
        `The archive is locked by ${file}, which names no holder yet; run again in a moment (after a minute such a lock is taken as left by a writer that died)`,
        { file },
      );
    stale = {
      said: `Removing a stale lock that names no holder, ${Number.isFinite(seen.ms) ? `last written ${Math.round(seen.ms / 1000)} s ago` : "dated in the future"}: its writer died before it wrote its name.`,
      still: () => {
        const again = unreadableFor(file);
        return again !== "gone" && again.ino === seen.ino && again.mtimeMs === seen.mtimeMs;
      },
    };
  }

  // The holder is dead: take over, under the takeover file.
  pause("takeover");
  if (!claimTakeover(takeover, me, warn, pause))
    throw new RiskError(
      "E_LOCKED",
      `Another risk-cli is taking over the stale lock ${file} at the same time; run again in a moment`,
      { file },
    );
  try {
    pause("reread-holder");
    // Removed only if it is still the stale lock seen above, not one a live process took
    // meanwhile, and only while the takeover file is still this process's.
    if (stale.still()) {
      if (!sameHolder(readHolder(takeover), me))
        throw new RiskError(
          "E_LOCKED",
          `Another risk-cli is taking over the stale lock ${file} at the same time; run again in a moment`,
          { file },
        );
      warn(stale.said);
      pause("remove-stale");
      fs.rmSync(file, { force: true });
    }
    if (create()) return mine();
    const now2 = readHolder(file);
    throw now2 ? locked(file, now2, 0) : new RiskError("E_LOCKED", `Could not take the lock ${file}`, { file });
  } finally {
    // Only this process's takeover file: never one another process created since.
    try {
      if (sameHolder(readHolder(takeover), me)) fs.rmSync(takeover, { force: true });
    } catch {
      // Not a file risk-cli wrote: left for whoever put it there.
    }
  }
}

/**
 * Creates the takeover file; false when a live process holds it. One left by a process of this
 * host that is no longer running, or one that has named no holder for a minute, is cleared away
 * and this process goes on to create its own: a killed run's leftover must not cost the next
 * run. It is cleared by renaming it aside, then checking that what was renamed is the very file
 * judged left behind, so that a contender's fresh takeover file, put there in the meantime, is
 * never removed (it is put back, and this process stands aside).
 */
function claimTakeover(path: string, me: Holder, warn: (message: string) => void, pause: (step: LockStep) => void) {
  if (createExclusive(path, me)) return true;
  const other = readHolder(path);
  let leftBehind: (aside: string) => boolean;
  let said: string;
  if (other) {
    // This process's own PID: acquireLock runs to its end without yielding, and removes its
    // takeover file before it returns, so one naming this PID was left by a process that died.
    if (other.host !== me.host || (other.pid !== me.pid && processAlive(other.pid))) return false;
    said = `Removing the takeover file of PID ${other.pid}, which is no longer running.`;
    leftBehind = (aside) => sameHolder(readHolder(aside), other);
  } else {
    const seen = unreadableFor(path);
    if (seen === "gone") return createExclusive(path, me);
    if (seen.ms < UNREADABLE_GRACE_MS) return false;
    said = "Removing a takeover file that names no holder: its writer died before it wrote its name.";
    leftBehind = (aside) => {
      const again = unreadableFor(aside);
      return again !== "gone" && again.ino === seen.ino && again.mtimeMs === seen.mtimeMs;
    };
  }
  pause("remove-takeover");
  const aside = `${path}.aside-${me.pid}`;
  try {
    fs.renameSync(path, aside);
  } catch (e) {
    // Cleared by another contender already: this one competes for a new takeover file.
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return createExclusive(path, me);
    throw e;
  }
  if (!leftBehind(aside)) {
    // A contender's live file, renamed in the meantime: put back (unless yet another stands there).
    try {
      fs.linkSync(aside, path);
    } catch {
      // Another takeover file stands there now; its creator goes on.
    }
    fs.rmSync(aside, { force: true });
    return false;
  }
  warn(said);
  fs.rmSync(aside, { force: true });
  return createExclusive(path, me);
}

/** The lock files this process holds: another assembly in this process must wait for them too. */
const heldHere = new Set<string>();

/**
 * Whether the process a lock of this host names still holds it. A lock naming this very process's
 * PID that this process does not hold was left by a process that died, whose PID this one was
 * given (a container that starts its processes in the same order every time, with the archive
 * on a volume): taken as alive, it would lock every later run out until removed by hand.
 */
function holderRuns(pid: number, file: string): boolean {
  return pid === process.pid ? heldHere.has(resolve(file)) : processAlive(pid);
}

/** Whether a lock or takeover file names this very holder (the same process, taking the same lock). */
function sameHolder(h: Holder | null, of: Holder): boolean {
  return !!h && h.pid === of.pid && h.since === of.since && h.host === of.host;
}

/** A stale lock: what to say when removing it, and whether the lock file is still that one. */
interface Stale {
  said: string;
  still(): boolean;
}

/**
 * How long a lock or takeover file may name no holder before it is taken as left by a writer
 * that died between creating it and writing its few bytes (a kill, a full disk): no live writer
 * takes a minute for that.
 */
const UNREADABLE_GRACE_MS = 60_000;

/**
 * For a lock file that names no holder: its identity and how long ago it was last written, by the
 * file system's clock (not the assembly's, which `--now` may set); "gone" if there is none.
 */
function unreadableFor(path: string): { ino: number; mtimeMs: number; ms: number } | "gone" {
  try {
    const st = fs.lstatSync(path);
    if (!st.isFile()) throw notALock(path);
    const age = Date.now() - st.mtimeMs;
    // Written over a minute in the future by this machine's clock: no writer is at work on it.
    return { ino: st.ino, mtimeMs: st.mtimeMs, ms: age < -UNREADABLE_GRACE_MS ? Number.POSITIVE_INFINITY : age };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    throw e;
  }
}

function locked(file: string, holder: Holder, age: number): RiskError {
  return new RiskError(
    "E_LOCKED",
    `The archive is locked by PID ${holder.pid} on ${holder.host} since ${holder.since} (${age} s ago). Wait for it to finish; if that process is gone, remove ${file}.`,
    { file, pid: holder.pid, host: holder.host, ageSeconds: age },
  );
}

/**
 * Creates `path` exclusively and writes this process's name into it; false when it exists. When
 * the name cannot be written (a full disk, a quota), the file this call created is removed before
 * the error is thrown, which then names the file: an empty lock left behind would hold off every
 * run for a minute.
 */
function createExclusive(path: string, me: Holder): boolean {
  let fd: number;
  try {
    fd = fs.openSync(path, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  let created: fs.Stats | undefined;
  try {
    try {
      created = fs.fstatSync(fd);
      fs.writeFileSync(fd, JSON.stringify(me));
    } finally {
      fs.closeSync(fd);
    }
    // Readable by the group's other accounts in a shared archive, which must see who holds it.
    shareKeptFile(dirname(path), path);
  } catch (e) {
    if (created) removeIfSame(path, created);
    const err = e as NodeJS.ErrnoException;
    if (err && typeof err === "object" && err.path === undefined) err.path = path;
    throw e;
  }
  return true;
}

/** Removes the file at `path` only if it is still `file` (the one this process created). */
function removeIfSame(path: string, file: fs.Stats): void {
  try {
    const there = fs.lstatSync(path);
    if (there.ino === file.ino && there.dev === file.dev) fs.rmSync(path, { force: true });
  } catch {
    // Gone already.
  }
}

/**
 * The holder a lock file names, or null when it names none (missing, empty, garbage, over 4 KB).
 * Only a regular file is read, opened without following a link and without waiting: a FIFO, a
 * device or a link in its place is refused at once (it would hang, or be read without end).
 */
function readHolder(file: string): Holder | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP" || code === "EISDIR") throw notALock(file);
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw notALock(file);
    if (st.size > MAX_LOCK_BYTES) return null;
    const h = JSON.parse(fs.readFileSync(fd, "utf8")) as Holder;
    return Number.isSafeInteger(h.pid) &&
      h.pid > 0 &&
      typeof h.host === "string" &&
      typeof h.since === "string" &&
      !Number.isNaN(Date.parse(h.since))
      ? h
      : null;
  } catch (e) {
    if (e instanceof RiskError) throw e;
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** A lock file is a few dozen bytes of JSON; anything longer is not one risk-cli wrote. */
const MAX_LOCK_BYTES = 4096;

const notALock = (path: string) =>
  new RiskError("E_LOCKED", `${path} is not a lock file risk-cli wrote; if no risk-cli runs, remove it`, {
    file: path,
  });

/**
 * Whether a process of this host is running. Only ESRCH says it is gone (EPERM: it runs as another
 * user). Deno without --allow-run refuses the signal itself (and /proc), which says nothing of the
 * process: the holder is then taken as alive, since taking a live writer's lock would let two
 * writers commit at once; the lock error says to remove the file once that process is gone.
 */
export function processAlive(pid: number): boolean {
  return processState(pid) !== "gone";
}

/**
 * Whether a process of this host is running, "unknown" when the runtime may not ask (Deno without
 * --allow-run refuses the signal, and /proc, by a NotCapable or PermissionDenied error).
 */
export function processState(pid: number): "alive" | "gone" | "unknown" {
  if (!Number.isSafeInteger(pid) || pid <= 0) return "gone";
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ESRCH") return "gone";
    return err.code === undefined && (err.name === "NotCapable" || err.name === "PermissionDenied")
      ? "unknown"
      : "alive";
  }
}
