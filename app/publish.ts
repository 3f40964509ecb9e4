/**
 * Assemble and publish to a remote archive: pull what is new, assemble one frame on top, push it
 * (fast-forward only). When another run pushed first, the remote moved: pull again, assemble a
 * new frame on top of theirs and push again, up to `attempts` times. Nothing is ever forced; when
 * every attempt lost the race the local frame stays in the local archive (kept under
 * `refs/risk-cli/unpushed/` by the next pull) and the error says so.
 */
import { RiskError } from "../core/errors.ts";
import { openArchive, type PullResult, type Remote } from "../archive/index.ts";
import { checkArchiveFolder } from "./paths.ts";
import { runAssembly, type AssemblyPorts, type AssemblyRequest, type AssemblySummary } from "./assembly.ts";

export interface PublishSummary extends AssemblySummary {
  pushed: { remote: string; branch: string; attempts: number; pull: PullResult["outcome"]; bytesReceived: number };
}

export async function assembleAndPush(
  request: AssemblyRequest,
  ports: AssemblyPorts,
  remote: Remote,
  options: { attempts?: number; clock: () => string },
): Promise<PublishSummary> {
  const attempts = options.attempts ?? 3;
  // The pull writes into the archive folder: one that holds something else is refused first.
  checkArchiveFolder(request.archive);
  const archive = openArchive(request.archive);
  const { remoteName } = await import("../archive/api/transport.ts");
  for (let attempt = 1; ; attempt++) {
    const pulled = await archive.pull(remote);
    if (pulled.keptAs) ports.log.warn(`local frames that were never pushed are kept under ${pulled.keptAs}`);
    // A retry is a new assembly at a new instant, after the frame that won the race (frame times
    // are whole seconds and must increase: wait out the second it was assembled in).
    let now = request.now;
    const moved = attempt > 1 || pulled.outcome === "replaced" || pulled.outcome === "fast-forward";
    const head = moved ? await archive.head([]) : null;
    if (attempt > 1) {
      now = options.clock();
      for (let waited = 0; head && now <= head.frame.at && waited < 3000; waited += 250) {
        await new Promise((ok) => setTimeout(ok, 250));
        now = options.clock();
      }
    }
    // The remote brought a frame at or after this run's instant (another publisher won the race
    // at a pinned --now, the action's now input, which does not move): nothing is left to
    // publish at that instant.
    if (head && now <= head.frame.at)
      throw new RiskError(
        "E_REMOTE_MOVED",
        `The remote archive moved: its frame ${head.frame.frameId} is at or after ${now}, the instant this run assembles at. Nothing was pushed; the next run publishes on top of the remote.`,
        { frameId: head.frame.frameId, now },
      );
    // The push runs before the site is swapped in: a frame the remote refused is never served.
    let pushed = "";
    try {
      const summary = await runAssembly(
        {
          ...request,
          now,
          siteAheadOfArchive: pulled.outcome === "replaced" || attempt > 1,
          beforeSwap: async (frameId) => {
            pushed = frameId;
            await archive.push(remote);
          },
        },
        ports,
      );
      return {
        ...summary,
        pushed: {
          remote: remoteName(remote.url),
          branch: remote.branch,
          attempts: attempt,
          pull: pulled.outcome,
          bytesReceived: pulled.bytesReceived,
        },
      };
    } catch (e) {
      if (!(e instanceof RiskError) || e.code !== "E_REMOTE_MOVED" || !pushed) throw e;
      if (attempt >= attempts)
        throw new RiskError(
          "E_REMOTE_MOVED",
          `${e.message} Gave up after ${attempts} attempts; frame ${pushed} stays in the local archive, the site as it was, and the next run publishes on top of the remote.`,
          { ...e.data, frameId: pushed, attempts },
        );
      ports.log.warn(`the remote archive moved while assembling (attempt ${attempt} of ${attempts}); pulling again`);
    }
  }
}
