/** A word a POSIX shell reads as itself: as is when it is plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** A path as a command's argument: a shell word that no command reads as an option (`-x` is `./-x`). */
export function shellPath(path: string): string {
  return shellWord(path.startsWith("-") ? `./${path}` : path);
}
