import type { Http, HttpResult } from "../../core/ports.ts";

/**
 * The Http port over the global `fetch`, which Node 20 and Deno 2 both have: the same code on both
 * runtimes, so collection behaves identically. One request, no redirect followed (`core/` counts
 * them). The timer covers the body too, so a slow drip times out; the body is read as a stream and
 * the request aborted as soon as the decoded bytes pass the cap, which also defeats gzip bombs.
 */
export function fetchHttp(options: { fetch?: typeof fetch; userAgent?: string } = {}): Http {
  const doFetch = options.fetch ?? globalThis.fetch;
  return {
    async get(url, { timeoutMs, maxBytes, accept }): Promise<HttpResult> {
      const started = performance.now();
      const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(
        () => {
          timedOut = true;
          controller.abort();
        },
        Math.max(1, Math.ceil(timeoutMs)),
      );
      try {
        const response = await doFetch(url, {
          redirect: "manual",
          signal: controller.signal,
          headers: { accept, ...(options.userAgent ? { "user-agent": options.userAgent } : {}) },
        });
        const headers: Record<string, string> = {};
        for (const name of ["content-type", "location"]) {
          const v = response.headers.get(name);
          if (v !== null) headers[name] = v;
        }
        const declared = Number(response.headers.get("content-length") ?? NaN);
        if (Number.isFinite(declared) && declared > maxBytes && !response.headers.get("content-encoding")) {
          controller.abort();
          return { kind: "too-large", message: `Content-Length ${declared} is over the cap`, elapsedMs: elapsed() };
        }
        const chunks: Uint8Array[] = [];
        let total = 0;
        if (response.body) {
          const reader = response.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            total += value.byteLength;
            if (total > maxBytes) {
              controller.abort();
              await reader.cancel().catch(() => {});
              return { kind: "too-large", message: `more than ${maxBytes} bytes after decoding`, elapsedMs: elapsed() };
            }
            chunks.push(value);
          }
        }
        const body = new Uint8Array(total);
        let at = 0;
        for (const c of chunks) {
          body.set(c, at);
          at += c.byteLength;
        }
        return { kind: "response", status: response.status, headers, body, elapsedMs: elapsed() };
      } catch (e) {
        if (timedOut)
          return { kind: "timeout", message: `no complete answer within ${timeoutMs} ms`, elapsedMs: elapsed() };
        return { kind: "network", message: describe(e), elapsedMs: elapsed() };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Deno's fetch says in words what Node's says with a system code. The reason of a fallback is
 * published, so the same failure must read the same on both runtimes: the words become the code.
 */
const DENO_NETWORK_WORDS: [RegExp, string][] = [
  [/connection refused/i, "ECONNREFUSED"],
  [/temporary failure in name resolution/i, "EAI_AGAIN"],
  [/dns error|failed to lookup address|name or service not known|nodename nor servname/i, "ENOTFOUND"],
  [/connection reset/i, "ECONNRESET"],
  [/network is unreachable/i, "ENETUNREACH"],
  [/no route to host/i, "EHOSTUNREACH"],
  [/timed out/i, "ETIMEDOUT"],
];

/** fetch's errors say "fetch failed"; the cause says why (ECONNREFUSED, a bad gzip stream…). */
function describe(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  // Deno run without --allow-net: a refusal of this process, not of the network.
  if (err?.name === "NotCapable" || err?.name === "PermissionDenied") return "fetch failed (--allow-net not given)";
  const said = err?.cause?.code ?? err?.cause?.message;
  const code = err?.cause?.code ?? DENO_NETWORK_WORDS.find(([words]) => words.test(said ?? ""))?.[1];
  const cause = code ?? said;
  return cause ? `${err.message ?? "fetch failed"} (${cause})` : (err?.message ?? String(e));
}
