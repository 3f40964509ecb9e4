/**
 * The two files at the root of every frame's tree that tell a stranger who clones the archive
 * branch what it is: README.md (what a frame holds; how to check one with `git` and `sha256sum`
 * only, then with risk-cli) and LICENSE (the publication's licence). Both depend only on the
 * publication's configuration, so consecutive frames share their blobs.
 */
export interface ArchiveAbout {
  name: string;
  baseUrl: string;
  license: string;
  licenseUrl: string;
  attribution: string;
  /** Where the archive is published, when known. */
  remote?: { url: string; branch: string } | null;
  /** The key that signs the frame log's checkpoints (C2SP verifier key), when one is configured. */
  verifierKey?: string | null;
}

export function archiveReadme(a: ArchiveAbout): string {
  const clone = a.remote
    ? `git clone --bare --branch ${a.remote.branch} ${a.remote.url} archive.git`
    : "git clone --bare <this repository's URL> archive.git   # add --branch <the archive branch>";
  return `# ${a.name}: the archive of its publication

This branch is the archive of the publication served at ${a.baseUrl}. Every commit is one
**frame**: one assembly of the publication by risk-cli, at the time its message and
\`frame.json\` give. Frames are only ever appended; each names the hash of the one before.

A frame's tree holds:

- \`frame.json\`: the frame: its time, the signals as published, and every surface's path with
  the SHA-256 of its bytes (\`surfaces.<path>.storedSha256\`);
- \`site/<path>\`: each surface as stored (a served JSON surface less its stamped \`generated\`);
- \`journal/\`, \`history/\`: the operational journal and the signal history, one file per day or month;
- \`index/YYYY/MM/DD.json\`: every earlier frame of that UTC day with its commit, for replay by date;
- \`objects.json\`: the manifest of the publication's objects (articles, claims, methodologies);
- \`tile/\`: the frame log (a Merkle tree over the frame hashes) as C2SP tlog-tiles;
- \`upstream/<instrument>\`: the exact document each upstream sent at that frame.

## Check a frame with git and sha256sum only

\`\`\`sh
${clone}
git --git-dir archive.git log --format='%H %cI %s' | head            # one commit a frame, newest first
git --git-dir archive.git show <commit>:frame.json                    # every surface's storedSha256
git --git-dir archive.git show <commit>:site/api/v1/risk.json | sha256sum
\`\`\`

The last line prints the \`storedSha256\` that \`frame.json\` gives for \`/api/v1/risk.json\`; the same
holds for every path under \`site/\`. \`frameHash\` is the SHA-256 of the frame's RFC 8785 canonical
JSON without \`frameHash\`, and each frame's \`previousFrameHash\` is the \`frameHash\` of its parent
commit's frame.

## Check every frame with risk-cli

\`\`\`sh
risk-cli verify --archive archive.git
risk-cli replay --archive archive.git --date 2026-11-21 --out ./as-of-2026-11-21
\`\`\`

\`verify\` checks the chain of frame hashes, frame order and times, and every stored surface
against its fingerprint, and names the first frame that fails. \`replay\` writes the publication
as it stood at a date, byte for byte, after checking every file.

## Checkpoints and attestations

Save the checkpoint that black-box.json publishes (\`log.checkpoint\`); later,
\`risk-cli verify --archive archive.git --checkpoint saved.txt\` proves that the archive still
extends it (no frame removed or rewritten since). ${
    a.verifierKey
      ? `Checkpoints are signed; the publisher's verifier key is:

    ${a.verifierKey}

Give it with \`--key\` to check the signature too.`
      : "Checkpoints are not signed by this publisher."
  } Frames attested through Sigstore have their bundles on the
branch \`<this branch>-attestations\`: \`risk-cli verify --attestations\` checks them offline.

## Licence

The publication in this archive is licensed under ${a.license} (${a.licenseUrl}).
Attribution: ${a.attribution}. See LICENSE.
`;
}

export function archiveLicense(a: ArchiveAbout): string {
  return `${a.name}

The publication archived in this repository (frame.json, site/, journal/, history/, index/,
objects.json) is licensed under ${a.license}:
${a.licenseUrl}

Attribution: ${a.attribution}
`;
}
