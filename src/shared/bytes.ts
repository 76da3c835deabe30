// Sizes as the CLI prints them, in prose (diagnostics, messages) and in the summary's table.

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * `bytes` as people read them. In prose: an exact multiple of a unit whole (`16 MiB`, `1 GiB`),
 * otherwise one decimal under 10 and whole above (`3.4 GiB`, `850 KiB`), and `512 bytes` under
 * 1 KiB. In a column (the summary's table): always one decimal (`1.2 KiB`), and `512 B`.
 */
export function byteSize(bytes: number, style: 'prose' | 'column' = 'prose'): string {
  if (bytes < 1024) return style === 'prose' ? `${bytes} bytes` : `${bytes} B`;
  let value = bytes;
  let unit = -1;
  // The column stops at GiB, as its readers' sizes do.
  const last = style === 'prose' ? UNITS.length - 1 : 2;
  while (value >= 1024 && unit < last) {
    value /= 1024;
    unit++;
  }
  if (style === 'column') return `${value.toFixed(1)} ${UNITS[unit]}`;
  return `${Number.isInteger(value) || value >= 10 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
}
