/** The tool's version, recorded in every frame; a test keeps it equal to package.json's. */
export const VERSION = "0.1.0";
