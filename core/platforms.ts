/** The upstream platforms the spec names by kind, and the two kinds of generation. No I/O. */
export const PLATFORMS = ['T', 'B', 'V'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const KINDS = ['video', 'image'] as const;
export type Kind = (typeof KINDS)[number];
