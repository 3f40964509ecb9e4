import type { ReadOnlyFs } from "../../core/ports.ts";
import { denoFs } from "./deno.ts";
import { nodeFs } from "./node.ts";

/** The file adapter of the runtime we are on. */
export function runtimeFs(): { fs: ReadOnlyFs; runtime: "deno" | "node" } {
  const deno = (globalThis as { Deno?: Parameters<typeof denoFs>[0] }).Deno;
  return deno ? { fs: denoFs(deno), runtime: "deno" } : { fs: nodeFs, runtime: "node" };
}
