import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { archiveWithFrames, git } from "../helpers/archive.ts";

/** A blob of a commit's tree, as `git show <commit>:<path>` gives it. */
const show = (gitdir: string, commit: string, path: string) =>
  execFileSync("git", ["--git-dir", gitdir, "show", `${commit}:${path}`]);

describe("the archive explains itself to whoever clones it", () => {
  it("holds README.md and LICENSE in every frame, and the README's git + sha256sum check holds", async () => {
    const { archive } = await archiveWithFrames(2);
    const commits = git(archive, "rev-list", "refs/heads/main").split("\n");
    expect(commits.length).toBe(2);
    const readme = show(archive, commits[0]!, "README.md").toString();
    expect(readme).toContain(
      "git clone --bare --branch risk-archive https://git.risques.example.org/observatoire.git archive.git",
    );
    expect(readme).toContain("sha256sum");
    expect(show(archive, commits[0]!, "LICENSE").toString()).toContain("CC BY 4.0");
    // Both frames share the blobs: they depend on the configuration only.
    expect(git(archive, "rev-parse", `${commits[0]}:README.md`)).toBe(
      git(archive, "rev-parse", `${commits[1]}:README.md`),
    );
    // What the README promises: the SHA-256 of every site/ blob is the frame's storedSha256 for that path.
    for (const commit of commits) {
      const frame = JSON.parse(show(archive, commit, "frame.json").toString());
      const paths = Object.keys(frame.surfaces).filter((p) => p !== "/api/v1/history.ndjson");
      expect(paths.length).toBeGreaterThan(20);
      for (const path of paths) {
        const digest = createHash("sha256")
          .update(show(archive, commit, `site${path}`))
          .digest("hex");
        expect(digest, path).toBe(frame.surfaces[path].storedSha256);
      }
    }
  });
});
