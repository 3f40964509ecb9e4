import { describe, expect, it } from "vitest";
import { isPrivateAddress } from "../../core/inputs/addresses.ts";
import { collectOne } from "../../core/inputs/collect.ts";
import type { Http, HttpResult } from "../../core/ports.ts";

const LIMITS = { timeoutMs: 2000, maxBytes: 1_000_000, maxRedirects: 5 };

/** An HTTP port whose public server redirects to `target`; it records every URL asked for. */
function redirectingTo(target: string, privateNames: string[] = []) {
  const asked: string[] = [];
  const http: Http = {
    async get(url): Promise<HttpResult> {
      asked.push(url);
      if (url.startsWith("https://public.example.org/"))
        return { kind: "response", status: 302, headers: { location: target }, body: new Uint8Array(0), elapsedMs: 1 };
      return {
        kind: "response",
        status: 200,
        headers: { "content-type": "application/json" },
        body: new TextEncoder().encode('{"secret":"instance credentials"}'),
        elapsedMs: 1,
      };
    },
    resolvesPrivate: async (host) => privateNames.includes(host),
  };
  return { http, asked };
}

describe("redirects into this machine's network (server-side request forgery)", () => {
  it("knows private, loopback, link-local and mapped addresses from public ones", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "0.0.0.0",
      "100.64.0.1",
      "::1",
      "[::1]",
      "fc00::1",
      "fd12::1",
      "fe80::1",
      "::ffff:10.0.0.1",
      "::ffff:a9fe:a9fe",
      "::",
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["8.8.8.8", "172.32.0.1", "2001:4860:4860::8888", "93.184.216.34"])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  for (const target of [
    "http://169.254.169.254/latest/meta-data/",
    "http://127.0.0.1:8080/admin",
    "http://[::1]/",
    "http://10.0.0.5/internal.json",
    "http://localhost/x",
    "http://[::ffff:169.254.169.254]/",
  ]) {
    it(`refuses a public source's redirect to ${target}, without requesting it`, async () => {
      const { http, asked } = redirectingTo(target);
      const r = await collectOne(
        "/pub",
        "us",
        "https://public.example.org/us.json",
        { http, fs: undefined as never },
        LIMITS,
      );
      expect(r).toMatchObject({ ok: false, status: "redirect-error" });
      expect(asked).toEqual(["https://public.example.org/us.json"]);
    });
  }

  it("refuses a redirect to a name that resolves to a private address", async () => {
    const { http, asked } = redirectingTo("https://internal.example.org/x", ["internal.example.org"]);
    const r = await collectOne(
      "/pub",
      "us",
      "https://public.example.org/us.json",
      { http, fs: undefined as never },
      LIMITS,
    );
    expect(r).toMatchObject({ ok: false, status: "redirect-error" });
    expect(asked).toHaveLength(1);
  });
});
