import { describe, expect, it } from "vitest";
import { extractArticleEvidence } from "../../core/claims/extract.ts";
import { articleOf, demo, optionsOf } from "./_demo.ts";

describe("extractArticleEvidence() speed", () => {
  it("extracts 350 articles of the demo's size in well under 300 ms", async () => {
    const p = await demo();
    const options = optionsOf(p);
    const docs = p.articles.filter((d) => d.lang === "fr");
    const articles = Array.from({ length: 350 }, (_, i) => {
      const a = articleOf(docs[i % docs.length]);
      // Each article differs, so nothing can be reused between them.
      return {
        ...a,
        slug: `${a.slug}-${i}`,
        body: `Note ${i} : le ${(i % 28) + 1} mars 2026, ${i} milliards de dollars.\n\n${a.body}`,
      };
    });
    const run = () => {
      const t0 = performance.now();
      let claims = 0;
      for (const a of articles) claims += extractArticleEvidence(a, options).claims.length;
      return { ms: performance.now() - t0, claims };
    };
    const cold = run();
    const warm = run();
    console.log(
      `claims engine: 350 articles in ${cold.ms.toFixed(0)} ms cold, ${warm.ms.toFixed(0)} ms warm (${warm.claims} claims)`,
    );
    expect(warm.claims).toBeGreaterThanOrEqual(700);
    expect(warm.claims).toBeLessThanOrEqual(3 * 350);
    // Generous bound for slow CI machines; the figure to watch is the one printed above.
    expect(cold.ms).toBeLessThan(3000);
  });
});
