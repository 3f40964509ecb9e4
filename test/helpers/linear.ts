import { expect } from "vitest";

/** Milliseconds of the best of three runs of `f` (the least disturbed by the machine's other work). */
export function best(f: () => void): number {
  let min = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    f();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

/**
 * Reads 60 KB and then 240 KB of `flood` (after a first paragraph) with `read`, and fails when
 * the time grows like the square of the size: four times the input gives about four times the
 * time when linear, sixteen when quadratic; the bound is generous so that timing noise cannot
 * break it.
 */
export function expectLinear(flood: string, read: (body: string) => void): void {
  const run = (kb: number) => {
    const body = `Intro.\n\n${flood.repeat(Math.floor((kb * 1000) / flood.length))}\n`;
    return best(() => read(body));
  };
  const small = run(60);
  const large = run(240);
  expect(large, `${small.toFixed(1)} ms then ${large.toFixed(1)} ms`).toBeLessThan(Math.max(10 * small, 200));
  expect(large).toBeLessThan(5000);
}
