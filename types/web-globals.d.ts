/**
 * The web-standard globals core/ uses, which Node, Deno and browsers all provide: declared here so
 * that `npm run typecheck` checks core/ without Node's or Deno's types (tsconfig.core.json). Only
 * the members core/ calls are declared.
 */
declare class URL {
  constructor(url: string, base?: string | URL);
  readonly hostname: string;
  readonly host: string;
  readonly href: string;
  readonly origin: string;
  readonly pathname: string;
  readonly protocol: string;
  readonly search: string;
  readonly username: string;
  readonly password: string;
  readonly hash: string;
  toString(): string;
  static canParse(url: string, base?: string): boolean;
}

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array | ArrayBuffer, options?: { stream?: boolean }): string;
}

declare function btoa(data: string): string;
declare function atob(data: string): string;
