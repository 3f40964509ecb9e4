import type { Http, ReadOnlyFs } from "../../core/ports.ts";
import { denoFs, denoHttp } from "./deno.ts";
import { nodeFs, nodeHttp } from "./node.ts";

/** The file adapter of the runtime we are on. */
export function runtimeFs(): { fs: ReadOnlyFs; runtime: "deno" | "node" } {
  const deno = (globalThis as { Deno?: Parameters<typeof denoFs>[0] }).Deno;
  return deno ? { fs: denoFs(deno), runtime: "deno" } : { fs: nodeFs, runtime: "node" };
}

/** The HTTP adapter of the runtime we are on. */
export function runtimeHttp(): Http {
  return (globalThis as { Deno?: unknown }).Deno ? denoHttp : nodeHttp;
}
