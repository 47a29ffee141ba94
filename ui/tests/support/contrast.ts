// WCAG 2.2 contrast between two opaque sRGB colours written as `#rrggbb` (or `#rgb`).

/** The relative luminance of a colour. */
export function luminance(hex: string): number {
  const digits = hex.replace("#", "");
  const full = digits.length === 3 ? digits.replace(/./g, "$&$&") : digits;
  if (!/^[0-9a-fA-F]{6}$/.test(full)) throw new Error(`not an opaque #rrggbb colour: ${hex}`);
  const channel = (at: number): number => {
    const value = parseInt(full.slice(at, at + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** The contrast ratio of two colours, from 1 to 21. */
export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}
