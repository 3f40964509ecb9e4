import { describe, expect, it } from "vitest";
import { parseDateEnd, parseDateOrDateTime, parseDateTime } from "../../core/dates.ts";
import { parseInstant } from "../../archive/models/instant.ts";
import { instantMs } from "../../app/published.ts";
import { resolveNow } from "../../cli/clock.ts";
import { parseHttpDate } from "../../archive/api/memento.ts";
import { archiveWithFrames } from "../helpers/archive.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

const SYSTEM = () => new Date("2026-11-24T12:00:00Z");

describe("dates and date-times given by people", () => {
  it("refuses what is not a real calendar instant instead of rolling it over", () => {
    for (const bad of [
      "2026-02-30T10:00:00Z",
      "2026-02-29T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-11-21T24:00:00Z",
      "2026-11-21T10:60:00Z",
      "2026-11-21T10:00:60Z",
      "2026-11-21T10:00:00+24:00",
      "2026-11-21T10:00:00",
      "2026-11-21 10:00:00",
      "2026-11-21  10:00:00Z",
      "2026-11-21_10:00:00Z",
    ])
      expect(parseDateTime(bad), bad).toBeNull();
    for (const bad of ["2026-02-30", "2026-00-10", "2026-4-1"]) expect(parseDateEnd(bad), bad).toBeNull();
    expect(parseDateTime("2028-02-29T23:59:59+01:00")).toBe(Date.parse("2028-02-29T22:59:59Z"));
    expect(parseDateEnd("2026-02-28")).toBe(Date.parse("2026-02-28T23:59:59.999Z"));
  });

  it("reads the years 0000 to 0099 as themselves, and a leap second as the end of its day, never the next", () => {
    expect(new Date(parseDateEnd("0000-01-01")!).toISOString()).toBe("0000-01-01T23:59:59.999Z");
    expect(new Date(parseDateTime("0099-12-31T10:00:00Z")!).toISOString()).toBe("0099-12-31T10:00:00.000Z");
    // Year 0 is a leap year of the proleptic Gregorian calendar; 1900, which Date.UTC would read, is not.
    expect(parseDateEnd("0000-02-29")).not.toBeNull();
    expect(parseDateEnd("0100-02-29")).toBeNull();
    expect(parseDateTime("2016-12-31T23:59:60Z")).toBe(Date.parse("2016-12-31T23:59:59.999Z"));
    expect(parseDateTime("2017-01-01T00:59:60+01:00")).toBe(Date.parse("2016-12-31T23:59:59.999Z"));
    expect(parseDateTime("2016-12-31T12:59:60Z")).toBeNull();
    // The same in an Accept-Datetime: RFC 9110 allows second 60 in an HTTP-date.
    expect(parseHttpDate("Sat, 31 Dec 2016 23:59:60 GMT")).toBe(Date.parse("2016-12-31T23:59:59.999Z"));
    expect(parseHttpDate("Sat, 31 Dec 2016 12:59:60 GMT")).toBeNaN();
  });

  it("takes second 60 only in the last minute of a month, UTC, where RFC 3339 allows a leap second", () => {
    expect(parseDateTime("2016-06-30T23:59:60Z")).toBe(Date.parse("2016-06-30T23:59:59.999Z"));
    expect(parseDateTime("2016-07-01T01:59:60+02:00")).toBe(Date.parse("2016-06-30T23:59:59.999Z"));
    expect(parseDateTime("2027-03-31T23:59:60Z")).toBe(Date.parse("2027-03-31T23:59:59.999Z"));
    expect(parseDateTime("2028-02-29T23:59:60Z")).toBe(Date.parse("2028-02-29T23:59:59.999Z"));
    for (const bad of [
      "2026-11-25T23:59:60Z",
      "2026-06-29T23:59:60Z",
      "2026-12-30T23:59:60Z",
      "2026-12-31T23:58:60Z",
      "2027-02-28T23:59:60+01:00",
      "2026-02-28T23:59:60-01:00",
    ])
      expect(parseDateTime(bad), bad).toBeNull();
    expect(parseHttpDate("Wed, 25 Nov 2026 23:59:60 GMT")).toBeNaN();
    expect(parseHttpDate("Thu, 30 Jun 2016 23:59:60 GMT")).toBe(Date.parse("2016-06-30T23:59:59.999Z"));
  });

  it("reads a lowercase t and z, as RFC 3339 allows, in --now and replay --date", async () => {
    expect(parseDateTime("2026-11-21t10:00:00z")).toBe(Date.parse("2026-11-21T10:00:00Z"));
    expect(parseDateTime("2026-11-21t11:00:00+01:00")).toBe(Date.parse("2026-11-21T10:00:00Z"));
    expect(resolveNow("2026-11-21t10:00:00z", {}, SYSTEM)).toBe("2026-11-21T10:00:00Z");
    const { archive } = await archiveWithFrames(1);
    const r = runCli(["replay", "--archive", archive, "--date", "2026-11-21t10:05:00z", "--json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).frame.frameId).toBe("000001-20261121T100000Z");
  });

  it("reads a space between the date and the time, as pandas prints it and RFC 3339 allows, in --now, replay and diff", async () => {
    const pandas = "2026-11-21 10:05:00+00:00";
    expect(parseDateTime(pandas)).toBe(Date.parse("2026-11-21T10:05:00Z"));
    expect(parseDateOrDateTime(pandas)).toBe(parseInstant(pandas));
    expect(instantMs(pandas)).toBe(parseInstant(pandas));
    expect(resolveNow("2026-11-21 11:00:00+01:00", {}, SYSTEM)).toBe("2026-11-21T10:00:00Z");
    const { archive } = await archiveWithFrames(1);
    const r = runCli(["replay", "--archive", archive, "--date", pandas, "--json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).frame.frameId).toBe("000001-20261121T100000Z");
    const d = runCli(["diff", "--archive", archive, "--from", "2026-11-21 10:00:00Z", "--to", pandas, "--json"]);
    expect(d.status, d.stderr).toBe(0);
  });

  it("refuses a rolled-over date-time with exit 2 in assemble, replay and diff", async () => {
    const { archive, site } = await archiveWithFrames(1);
    for (const args of [
      ["assemble", "--site", site, "--archive", archive, "--now", "2026-02-30T10:00:00Z"],
      ["replay", "--archive", archive, "--date", "2026-02-30T10:00:00Z"],
      ["diff", "--archive", archive, "--from", "2026-11-21", "--to", "2026-11-31T00:00:00Z"],
    ]) {
      const r = runCli(args);
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/Cannot read/);
    }
  });

  it("refuses a pinned time more than a day ahead of the clock unless told, and a huge SOURCE_DATE_EPOCH", () => {
    expect(() => resolveNow("2099-01-01T00:00:00Z", {}, SYSTEM)).toThrow(/more than a day ahead.*--allow-future/);
    expect(resolveNow("2099-01-01T00:00:00Z", {}, SYSTEM, { allowFuture: true })).toBe("2099-01-01T00:00:00Z");
    expect(resolveNow("2026-11-25T11:00:00Z", {}, SYSTEM)).toBe("2026-11-25T11:00:00Z");
    expect(() => resolveNow(undefined, { SOURCE_DATE_EPOCH: "4102444800" }, SYSTEM)).toThrow(
      /SOURCE_DATE_EPOCH is 2100/,
    );
    for (const huge of ["99999999999999999", "1e10", "-5", "253402300800"])
      expect(() => resolveNow(undefined, { SOURCE_DATE_EPOCH: huge }, SYSTEM), huge).toThrow(
        /Cannot read SOURCE_DATE_EPOCH/,
      );
    const dir = tempDir();
    const r = runCli(["assemble", "--site", `${dir}/site`, "--archive", `${dir}/a.git`], {
      env: { SOURCE_DATE_EPOCH: "99999999999999999" },
    });
    expect(r.status).toBe(2);
    const future = runCli([
      "assemble",
      "--site",
      `${dir}/site`,
      "--archive",
      `${dir}/a.git`,
      "--now",
      "2099-12-31T23:59:59Z",
    ]);
    expect(future.status).toBe(2);
    expect(future.stderr).toContain("--allow-future");
  });
});

describe("an archive that is not there", () => {
  it("is an I/O error (6) naming it, for every command that reads one; an empty one has no frame (7)", async () => {
    for (const args of [
      ["verify"],
      ["replay", "--date", "2026-11-21"],
      ["diff", "--from", "2026-11-20", "--to", "2026-11-21"],
      ["prove", "--frame", "000001-20261121T100000Z"],
    ]) {
      const r = runCli([...args, "--archive", "/nonexistent/archive.git"]);
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(6);
      expect(r.stderr).toContain("/nonexistent/archive.git does not exist");
    }
    const dir = tempDir();
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["init", "-q", "--bare", `${dir}/empty.git`]);
    expect(runCli(["verify", "--archive", `${dir}/empty.git`]).status).toBe(7);
  });
});

describe("command-line habits", () => {
  it("answers -h like --help, shows defaults, suggests the nearest command, and says when it assembles the demo", () => {
    const h = runCli(["assemble", "-h"]);
    expect(h.status).toBe(0);
    expect(h.stdout).toBe(runCli(["assemble", "--help"]).stdout);
    expect(h.stdout).toContain('["archive.git"]');
    const typo = runCli(["asemble"]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("Did you mean `assemble`?");
    const dir = tempDir();
    const demo = runCli([
      "assemble",
      "--site",
      `${dir}/site`,
      "--archive",
      `${dir}/a.git`,
      "--now",
      "2026-11-21T10:00:00Z",
    ]);
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stderr).toContain("no --publication given: assembling the built-in demo publication");
  });
});
