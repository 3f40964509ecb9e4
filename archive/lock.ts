import * as fs from "node:fs";
import { hostname } from "node:os";
import { RiskError } from "../core/errors.ts";

export interface Lock {
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  since: string;
}

/**
 * One writer at a time. The lock file is created exclusively; a lock whose writer is alive is
 * never broken. A lock left by a dead process on this host is reported with its PID and age and
 * then replaced; one from another host is never guessed about.
 */
export function acquireLock(dir: string, now: Date, warn: (message: string) => void): Lock {
  fs.mkdirSync(dir, { recursive: true });
  const file = `${dir}/risk-cli.lock`;
  const me: Holder = { pid: process.pid, host: hostname(), since: now.toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: "wx" });
      return { release: () => fs.rmSync(file, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = readHolder(file);
    const age = holder ? Math.round((now.getTime() - Date.parse(holder.since)) / 1000) : NaN;
    if (!holder) {
      throw new RiskError(
        "E_LOCKED",
        `The archive is locked by ${file}, which cannot be read; if no risk-cli runs, remove it`,
        { file },
      );
    }
    if (holder.host !== me.host || alive(holder.pid)) {
      throw new RiskError(
        "E_LOCKED",
        `The archive is locked by PID ${holder.pid} on ${holder.host} since ${holder.since} (${age} s ago). Wait for it to finish; if that process is gone, remove ${file}.`,
        { file, pid: holder.pid, host: holder.host, ageSeconds: age },
      );
    }
    warn(`Removing a stale lock: PID ${holder.pid} on ${holder.host} took it ${age} s ago and is no longer running.`);
    fs.rmSync(file, { force: true });
  }
  throw new RiskError("E_LOCKED", `Could not take the lock ${file}; another risk-cli took it at the same time`, {
    file,
  });
}

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(fs.readFileSync(file, "utf8")) as Holder;
    return typeof h.pid === "number" && typeof h.host === "string" && typeof h.since === "string" ? h : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
