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
 * time when linear, sixteen when quadratic (see expectFourTimesLinear).
 */
export function expectLinear(flood: string, read: (body: string) => void): void {
  const run = (kb: number) => {
    const body = `Intro.\n\n${flood.repeat(Math.floor((kb * 1000) / flood.length))}\n`;
    return best(() => read(body));
  };
  const large = expectFourTimesLinear(
    () => run(60),
    () => run(240),
  );
  expect(large).toBeLessThan(5000);
}

/**
 * Fails when `large` (an input four times `small`'s) takes ten times as long or more: linear
 * work takes about four times, quadratic sixteen. A quadratic reading is slow every time, a
 * machine busy with other work only now and then, so a pair over the bound is measured again,
 * up to three times, before the growth is called quadratic. Gives the large input's time.
 */
export function expectFourTimesLinear(small: () => number, large: () => number): number {
  let s = 0;
  let l = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    s = small();
    l = large();
    if (l < Math.max(10 * s, 200)) break;
  }
  expect(l, `${s.toFixed(1)} ms then ${l.toFixed(1)} ms`).toBeLessThan(Math.max(10 * s, 200));
  return l;
}
