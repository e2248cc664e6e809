/** The shared colour conversions at their edges: warmest and coolest, gamut corners, black, white. */
import { describe, expect, it } from 'vitest';
import {
  clipToGamut,
  coldWarmToMirek,
  HUE_GAMUT_A,
  HUE_GAMUT_B,
  HUE_GAMUT_C,
  hexToRgb,
  hsToRgb,
  hsToXy,
  inGamut,
  kelvinToMirek,
  mirekToColdWarm,
  mirekToKelvin,
  mirekToTasmotaCt,
  mirekToXy,
  rgbToHex,
  rgbToHs,
  rgbToRgbw,
  rgbToXy,
  rgbwToXy,
  rgbwwToXy,
  SRGB_GAMUT,
  shellyRgbwToXy,
  tasmotaColorToXy,
  WHITE_XY,
  xyToHs,
  xyToMirek,
  xyToRgb,
  xyToShellyRgbw,
  xyToTasmotaColor,
  xyToZcl,
  zclToXy,
} from '../../drivers/lighting/index.ts';
// @ts-expect-error plain browser JavaScript without types
import { blackBodyXy } from '../../plugins/lighting/web/blackbody.js';

const near = (a: readonly number[], b: readonly number[], tol = 0.002) =>
  a.every((v, i) => Math.abs(v - (b[i] ?? Number.NaN)) <= tol);

describe('mirek and Kelvin', () => {
  it('maps the warmest and coolest ends Hue lights use (2000 K = 500, 6500 K = 153)', () => {
    expect(kelvinToMirek(2000)).toBe(500);
    expect(kelvinToMirek(6500)).toBe(154);
    expect(mirekToKelvin(153)).toBe(6536);
    expect(mirekToKelvin(500)).toBe(2000);
    expect(kelvinToMirek(2700)).toBe(370);
  });

  it('puts colour temperatures on the black-body locus', () => {
    // CIE: 2856 K (illuminant A) ≈ (0.4476, 0.4074); 6504 K (D65) ≈ (0.3127, 0.3290)
    expect(near(mirekToXy(kelvinToMirek(2856)), [0.4476, 0.4074], 0.003)).toBe(true);
    expect(near(mirekToXy(kelvinToMirek(6504)), [0.3135, 0.3237], 0.003)).toBe(true);
    // beyond the approximation's range the ends are used, never NaN
    expect(mirekToXy(1000)).toEqual(mirekToXy(600));
    expect(mirekToXy(30)).toEqual(mirekToXy(40));
  });

  it('reads a colour temperature back from xy (McCamy) within a few mirek', () => {
    for (const mirek of [153, 250, 370, 500]) {
      expect(Math.abs(xyToMirek(mirekToXy(mirek)) - mirek)).toBeLessThanOrEqual(8);
    }
  });
});

describe('xy and sRGB', () => {
  it('maps the sRGB primaries to their published corners and back', () => {
    expect(near(rgbToXy({ r: 255, g: 0, b: 0 }), [0.64, 0.33])).toBe(true);
    expect(near(rgbToXy({ r: 0, g: 255, b: 0 }), [0.3, 0.6])).toBe(true);
    expect(near(rgbToXy({ r: 0, g: 0, b: 255 }), [0.15, 0.06])).toBe(true);
    expect(xyToRgb([0.64, 0.33])).toEqual({ r: 255, g: 0, b: 0 });
    expect(xyToRgb([0.3, 0.6])).toEqual({ r: 0, g: 255, b: 0 });
    expect(xyToRgb([0.15, 0.06])).toEqual({ r: 0, g: 0, b: 255 });
  });

  it('maps white to D65 and black, which has no colour, to the white point', () => {
    expect(near(rgbToXy({ r: 255, g: 255, b: 255 }), WHITE_XY)).toBe(true);
    expect(rgbToXy({ r: 0, g: 0, b: 0 })).toEqual(WHITE_XY);
    expect(xyToRgb(WHITE_XY)).toEqual({ r: 255, g: 255, b: 255 });
  });

  it('gives the brightest RGB of a chromaticity, even for points sRGB cannot show', () => {
    const deepRed = xyToRgb(HUE_GAMUT_C[0]);
    expect(deepRed.r).toBe(255);
    expect(deepRed.g).toBe(0);
    expect(xyToRgb([0.5, 0])).toEqual({ r: 0, g: 0, b: 255 });
    for (const c of Object.values(xyToRgb([0.1, 0.8]))) expect(c).toBeGreaterThanOrEqual(0);
  });
});

describe('hex and hue/saturation', () => {
  it('reads #rrggbb in any case, with or without #, and refuses anything else', () => {
    expect(hexToRgb('#FF8000')).toEqual({ r: 255, g: 128, b: 0 });
    expect(hexToRgb('ff8000')).toEqual({ r: 255, g: 128, b: 0 });
    expect(hexToRgb('#fff')).toBeNull();
    expect(hexToRgb('#gg0000')).toBeNull();
    expect(rgbToHex({ r: 255, g: 128, b: 0 })).toBe('#ff8000');
  });

  it('converts hue/saturation at the edges (0°, 120°, 240°, 360°, no saturation)', () => {
    expect(hsToRgb(0, 100)).toEqual({ r: 255, g: 0, b: 0 });
    expect(hsToRgb(120, 100)).toEqual({ r: 0, g: 255, b: 0 });
    expect(hsToRgb(240, 100)).toEqual({ r: 0, g: 0, b: 255 });
    expect(hsToRgb(360, 100)).toEqual(hsToRgb(0, 100));
    expect(hsToRgb(200, 0)).toEqual({ r: 255, g: 255, b: 255 });
    expect(rgbToHs({ r: 0, g: 0, b: 0 })).toEqual({ hue: 0, sat: 0 });
    expect(rgbToHs({ r: 255, g: 128, b: 0 })).toEqual({ hue: 30, sat: 100 });
    expect(xyToHs(hsToXy(240, 100))).toEqual({ hue: 240, sat: 100 });
    expect(near(hsToXy(0, 0), WHITE_XY)).toBe(true);
  });
});

describe('gamut clipping', () => {
  it('keeps every corner of gamuts A, B and C, and white where the gamut holds it', () => {
    for (const g of [HUE_GAMUT_A, HUE_GAMUT_B, HUE_GAMUT_C]) {
      for (const corner of g) expect(clipToGamut(corner, g)).toEqual(corner);
    }
    expect(clipToGamut(WHITE_XY, HUE_GAMUT_A)).toEqual(WHITE_XY);
    expect(clipToGamut(WHITE_XY, HUE_GAMUT_C)).toEqual(WHITE_XY);
    // gamut B's blue–green edge passes just right of D65: white moves by less than 0.001
    expect(inGamut(WHITE_XY, HUE_GAMUT_B)).toBe(false);
    expect(near(clipToGamut(WHITE_XY, HUE_GAMUT_B), WHITE_XY, 0.001)).toBe(true);
  });

  it('moves a point outside the triangle to the nearest point of its edge', () => {
    // gamut B's green corner is far from pure spectral green
    const clipped = clipToGamut([0.17, 0.7], HUE_GAMUT_B);
    expect(inGamut(clipped, HUE_GAMUT_B)).toBe(true);
    expect(clipped).not.toEqual([0.17, 0.7]);
    // beyond a corner, the corner itself
    expect(clipToGamut([0.8, 0.2], HUE_GAMUT_C)).toEqual(HUE_GAMUT_C[0]);
    expect(clipToGamut([0.1, 0], HUE_GAMUT_C)).toEqual(HUE_GAMUT_C[2]);
    // the corners of a wider gamut land on the narrower one's edge
    for (const corner of HUE_GAMUT_C) expect(inGamut(clipToGamut(corner, SRGB_GAMUT), SRGB_GAMUT)).toBe(true);
    expect(inGamut([0, 0], HUE_GAMUT_A)).toBe(false);
  });
});

describe('device family scales', () => {
  it('ZCL CurrentX/Y: x·65536, capped at 0xfeff', () => {
    expect(xyToZcl([0.3127, 0.329])).toEqual([20493, 21561]);
    expect(xyToZcl([1, 0])).toEqual([0xfeff, 0]);
    expect(near(zclToXy(20493, 21561), [0.3127, 0.329], 0.0001)).toBe(true);
  });

  it('Tasmota CT stays in 153..500 and Color is RRGGBB (RGBWW and decimal reports read too)', () => {
    expect(mirekToTasmotaCt(100)).toBe(153);
    expect(mirekToTasmotaCt(600)).toBe(500);
    expect(xyToTasmotaColor([0.64, 0.33])).toBe('FF0000');
    expect(near(tasmotaColorToXy('FF000000') ?? [0, 0], [0.64, 0.33])).toBe(true);
    expect(near(tasmotaColorToXy('0,0,255') ?? [0, 0], [0.15, 0.06])).toBe(true);
    expect(tasmotaColorToXy('000000FF')).toBeNull();
    expect(tasmotaColorToXy('0,0')).toBeNull();
  });

  it('Shelly RGBW: full-value channels, black is no colour', () => {
    expect(xyToShellyRgbw([0.15, 0.06])).toEqual({ red: 0, green: 0, blue: 255, white: 0 });
    expect(xyToShellyRgbw([0.3127, 0.329])).toEqual({ red: 0, green: 0, blue: 0, white: 255 });
    expect(shellyRgbwToXy(0, 0, 0, 0)).toBeNull();
    expect(near(shellyRgbwToXy(0, 255, 0, 0) ?? [0, 0], [0.3, 0.6])).toBe(true);
    expect(near(shellyRgbwToXy(0, 0, 0, 200) ?? [0, 0], [0.3127, 0.329])).toBe(true);
  });

  it('RGB with white channels: grey goes to the white LED, cold/warm mixes span the range, dark is no colour', () => {
    expect(rgbToRgbw({ r: 255, g: 255, b: 255 })).toEqual({ r: 0, g: 0, b: 0, w: 255 });
    expect(rgbToRgbw({ r: 255, g: 0, b: 0 })).toEqual({ r: 255, g: 0, b: 0, w: 0 });
    expect(rgbToRgbw({ r: 255, g: 128, b: 64 })).toEqual({ r: 191, g: 64, b: 0, w: 64 });
    expect(rgbwToXy({ r: 0, g: 0, b: 0, w: 0 })).toBeNull();
    expect(near(rgbwToXy({ r: 0, g: 0, b: 0, w: 255 }) ?? [0, 0], [0.3127, 0.329], 0.001)).toBe(true);
    expect(
      near(rgbwToXy({ r: 191, g: 64, b: 0, w: 64 }) ?? [0, 0], rgbToXy({ r: 255, g: 128, b: 64 }), 0.001),
    ).toBe(true);
    const range = { min: 153, max: 454 };
    expect(mirekToColdWarm(153, range)).toEqual({ c: 255, w: 0 });
    expect(mirekToColdWarm(454, range)).toEqual({ c: 0, w: 255 });
    expect(mirekToColdWarm(100, range)).toEqual({ c: 255, w: 0 });
    expect(mirekToColdWarm(300, { min: 300, max: 300 })).toEqual({ c: 255, w: 255 });
    for (const m of [153, 200, 303, 370, 454]) {
      const { c, w } = mirekToColdWarm(m, range);
      expect(Math.abs(coldWarmToMirek(c, w, range) - m)).toBeLessThanOrEqual(1);
    }
    expect(rgbwwToXy({ r: 0, g: 0, b: 0, c: 0, w: 0 }, range)).toBeNull();
    // warm white alone lies on the black-body locus at the warm end
    expect(near(rgbwwToXy({ r: 0, g: 0, b: 0, c: 0, w: 255 }, range) ?? [0, 0], mirekToXy(454), 0.01)).toBe(
      true,
    );
  });
});

describe('the household app’s black-body colour', () => {
  it('is the hub’s: blackBodyXy (web) equals mirekToXy for every mirek a light takes', () => {
    for (let mirek = 50; mirek <= 1000; mirek++)
      expect(blackBodyXy(mirek), String(mirek)).toEqual(mirekToXy(mirek));
  });
});
