import { describe, expect, it } from "vitest";
import { fileSystemFailure } from "../../cli/exit.ts";

describe("a file operation the machine refused", () => {
  it("is named in the same words on Node and on Deno: a folder not listed is 'list', not scandir or readdir", () => {
    const node = fileSystemFailure({ code: "EACCES", syscall: "scandir", path: "/srv/out/site" });
    const deno = fileSystemFailure({ code: "EACCES", syscall: "readdir", path: "/srv/out/site" });
    expect(node).toBe(
      "Cannot list /srv/out/site: permission denied (EACCES). Check the folder /srv/out (free space, permissions), then run again.",
    );
    expect(deno).toBe(node);
    expect(fileSystemFailure({ code: "ENOSPC", syscall: "mkdir", path: "/srv/out/site" })).toMatch(
      /^Cannot mkdir \/srv\/out\/site: the disk is full/,
    );
  });

  it("says a path through a symbolic link that loops is the link's fault, not the disk's or the permissions'", () => {
    expect(fileSystemFailure({ code: "ELOOP", syscall: "stat", path: "/srv/out/loop/x" })).toBe(
      "Cannot stat /srv/out/loop/x: a symbolic link on the path loops (it leads back to itself through links) (ELOOP). Replace the link with the folder or file itself, or give another path.",
    );
  });
});
