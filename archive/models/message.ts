import { RiskError } from "../../core/errors.ts";

/** Commit messages are machine-readable: a subject, then Git trailers. */
export function frameMessage(frame: { frameId: string; frameHash: string; seq: number; at: string }): string {
  return `frame ${frame.frameId}\n\nFrame-Id: ${frame.frameId}\nFrame-Seq: ${frame.seq}\nFrame-At: ${frame.at}\nFrame-Hash: sha256:${frame.frameHash}\n`;
}

export function parseFrameMessage(
  message: string,
  commit: string,
): { frameId: string; frameHash: string; seq: number; at: string } {
  const trailer = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(message)?.[1];
  const frameId = trailer("Frame-Id");
  const hash = trailer("Frame-Hash");
  const seq = trailer("Frame-Seq");
  const at = trailer("Frame-At");
  if (!frameId || !hash?.startsWith("sha256:") || !seq || !at) {
    throw new RiskError(
      "E_VERIFY",
      `Commit ${commit} is not a frame: its message lacks the Frame-Id, Frame-Seq, Frame-At and Frame-Hash trailers`,
      { commit },
    );
  }
  return { frameId, frameHash: hash.slice(7), seq: Number(seq), at };
}
