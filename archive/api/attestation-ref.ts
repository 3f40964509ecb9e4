/**
 * Where the archive keeps the frames' Sigstore attestations (archive/api/attestations.ts): a ref
 * of its own beside the frames' branch. Light: pull and push move it without loading sigstore.
 */
import fs from "node:fs";
import { writeLooseRef } from "../git/objects.ts";

export const ATTESTATIONS_REF = "refs/risk-cli/attestations";

/** The commit of the attestations ref, or null when no attestation was kept. */
export function attestationsHead(gitdir: string): string | null {
  try {
    const oid = fs.readFileSync(`${gitdir}/${ATTESTATIONS_REF}`, "latin1").trim();
    return /^[0-9a-f]{40}$/.test(oid) ? oid : null;
  } catch {
    return null;
  }
}

/** Moves the attestations ref, through Git's own lock name and a rename. */
export function setAttestationsHead(gitdir: string, oid: string): void {
  writeLooseRef(gitdir, `${gitdir}/${ATTESTATIONS_REF}`, oid);
}
