/** `4h 30m`, `2d 3h`, `45s`. */
export function humanAge(seconds: number): string {
  const neg = seconds < 0;
  let s = Math.round(Math.abs(seconds));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const text = d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : m ? `${m}m` : `${s}s`;
  return neg ? `in the future by ${text}` : text;
}
