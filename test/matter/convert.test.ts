/** Matter ↔ Hearth scales and the sensor tables, exactly (no network). */
import { describe, expect, it } from 'vitest';
import {
  briToLevel,
  celsiusToMatter,
  humidityToMatter,
  levelToBri,
  luxToMatter,
  matterHueToDegrees,
  matterSatToPercent,
  matterToXy,
  transitionSeconds,
  xyToMatter,
} from '../../plugins/matter/convert.ts';
import { parsePress, sensorShape } from '../../plugins/matter/sensor-endpoints.ts';

describe('matter conversions', () => {
  it('level 1..254 ↔ bri 1..255 with the ends exact, and every level survives the round trip', () => {
    expect(levelToBri(1)).toBe(1);
    expect(levelToBri(254)).toBe(255);
    expect(briToLevel(1)).toBe(1);
    expect(briToLevel(255)).toBe(254);
    expect(briToLevel(0)).toBe(1);
    for (let level = 1; level <= 254; level++) expect(briToLevel(levelToBri(level))).toBe(level);
  });

  it('CurrentX/CurrentY = round(x·65536), at most 65279; back /65536', () => {
    expect(xyToMatter([0.3127, 0.329])).toEqual([Math.round(0.3127 * 65536), Math.round(0.329 * 65536)]);
    expect(xyToMatter([1, 1])).toEqual([65279, 65279]);
    expect(matterToXy(19661, 39322)).toEqual([0.3, 0.6]);
  });

  it('hue 0..254 is the whole circle, saturation 0..254 is 0..100 %, transition tenths → seconds', () => {
    expect(matterHueToDegrees(254)).toBe(360);
    expect(matterHueToDegrees(127)).toBe(180);
    expect(matterSatToPercent(254)).toBe(100);
    expect(transitionSeconds(15)).toBe(1.5);
    expect(transitionSeconds(null)).toBeUndefined();
  });
});

describe('sensor tables', () => {
  const view = (type: string, events: string[]) =>
    ({ _id: 's', siteid: 'x', name: 'S', vendor: 'v', type, events, actions: {}, new: false }) as never;

  it('presses: buttonN-action, inputN (Shelly, from 0), bare numbers and bare actions', () => {
    expect(parsePress('button2-double')).toEqual({ button: 2, press: { presses: 2 } });
    expect(parsePress('input0-long_push')).toEqual({ button: 1, press: { long: true } });
    expect(parsePress('3')).toEqual({ button: 3, press: { presses: 1 } });
    expect(parsePress('long')).toEqual({ button: 1, press: { long: true } });
    expect(parsePress('constructor')).toBeNull();
    expect(parsePress('0')).toBeNull();
  });

  it('motion → occupancy, open/close → contact, buttons → a switch with as many positions', () => {
    expect(sensorShape(view('pir', ['motion', 'no_motion']))?.type).toBe('occupancy');
    expect(sensorShape(view('door', ['open', 'close']))?.type).toBe('contact');
    expect(sensorShape(view('remote', ['button1-single', 'button4-long']))).toMatchObject({
      type: 'switch',
      buttons: 4,
    });
    expect(sensorShape(view('thing', ['beep']))).toBeNull();
  });
});

describe('matter measurement scales', () => {
  it('°C → 0.01 °C, % → 0.01 %, lux → 10000·log10(lux)+1, clamped to what the attributes hold', () => {
    expect(celsiusToMatter(21.5)).toBe(2150);
    expect(celsiusToMatter(-40)).toBe(-4000);
    expect(celsiusToMatter(-300)).toBe(-27315);
    expect(humidityToMatter(40.25)).toBe(4025);
    expect(humidityToMatter(104)).toBe(10000);
    expect(luxToMatter(1)).toBe(1);
    expect(luxToMatter(1000)).toBe(30001);
    expect(luxToMatter(0)).toBe(0);
    expect(luxToMatter(0.5)).toBe(1);
    expect(luxToMatter(1e9)).toBe(0xfffe);
  });
});
