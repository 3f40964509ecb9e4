import { nodeFs } from "../../cli/runtime/node.ts";
import type { ArticleInput, ExtractOptions } from "../../core/claims/extract.ts";
import { primaryHostsOf } from "../../core/claims/references.ts";
import type { Doc, Publication } from "../../core/inputs/publication.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { ROOT } from "../helpers/cli.ts";

export const NOW = "2026-11-21T10:00:00Z";
export const BASE_URL = "https://risques.example.org";

let _demo: Promise<Publication> | null = null;

/** The demo publication, read once per test file. */
export function demo(): Promise<Publication> {
  _demo ??= loadPublication(nodeFs, `${ROOT}demo`);
  return _demo;
}

export function articleOf(doc: Doc, baseUrl = BASE_URL): ArticleInput {
  return {
    slug: doc.slug,
    title: doc.meta.title,
    url: `${baseUrl}/articles/${doc.slug}/`,
    date: doc.meta.date,
    body: doc.body,
    bodyLine: doc.bodyLine,
    file: doc.file,
  };
}

export function optionsOf(p: Publication): ExtractOptions {
  return { now: NOW, baseUrl: p.config.baseUrl, primaryHosts: primaryHostsOf(p.primarySources) };
}

/** A French article with `body`, for scenarios written in the test. */
export function article(body: string, slug = "essai"): ArticleInput {
  return {
    slug,
    title: "Essai",
    url: `${BASE_URL}/articles/${slug}/`,
    date: "2026-08-18",
    body,
    bodyLine: 8,
    file: `content/articles/fr/${slug}.md`,
  };
}

export const OPTIONS: ExtractOptions = {
  now: NOW,
  baseUrl: BASE_URL,
  primaryHosts: [
    { host: "www.boj.or.jp", slug: "banque-du-japon" },
    { host: "www.bis.org", slug: "bri" },
    { host: "fiscaldata.treasury.gov", slug: "us-treasury" },
  ],
};
