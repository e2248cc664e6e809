/** The device table's lookup and the conversions its entries share. */
import { describe, expect, it } from 'vitest';
import { findDefinition } from '../../drivers/zigbee/devices/index.ts';
import {
  batteryFromMillivolts,
  luxFromZcl,
  standardReadings,
} from '../../drivers/zigbee/devices/readings.ts';
import { decodeXiaomiStruct, encodeXiaomiStruct } from '../../drivers/zigbee/devices/xiaomi-struct.ts';
import { decodeReport } from '../../drivers/zigbee/zcl/foundation.ts';
import { DataType } from '../../drivers/zigbee/zcl/types.ts';

describe('the device table', () => {
  it('finds an entry by model id (and manufacturer where the entry asks); an unknown device has none', () => {
    expect(findDefinition('LUMI', 'lumi.weather')?.model.model).toBe('WSDCGQ11LM');
    expect(findDefinition(undefined, 'lumi.sensor_switch.aq2')?.model.model).toBe('WXKG11LM');
    expect(findDefinition('IKEA of Sweden', 'TRADFRI remote control')?.model.model).toBe('E1524/E1810');
    // Same model string from another maker: not IKEA's remote.
    expect(findDefinition('Acme', 'TRADFRI remote control')).toBeNull();
    expect(findDefinition('Signify Netherlands B.V.', 'LCT001')?.model.gamut?.[0]).toEqual([0.675, 0.322]);
    expect(findDefinition('eWeLink', 'WB01')?.model.model).toBe('SNZB-01');
    expect(findDefinition('innr', 'SP 120')).toBeNull();
    expect(findDefinition('LUMI', undefined)).toBeNull();
  });

  it("decodes Xiaomi's heartbeat struct, carried in a character string, byte for byte", () => {
    const u16 = Buffer.alloc(2);
    u16.writeUInt16LE(3015);
    const temp = Buffer.alloc(2);
    temp.writeInt16LE(-512);
    const struct = encodeXiaomiStruct([
      { tag: 0x01, type: DataType.UINT16, bytes: u16 },
      { tag: 0x06, type: DataType.UINT40, bytes: Buffer.from([0xff, 0xfe, 0x80, 0, 1]) },
      { tag: 0x64, type: DataType.INT16, bytes: temp },
      { tag: 0x99, type: 0x77, bytes: Buffer.of(1) },
    ]);
    // As a report of Basic attribute 0xFF01, typed 0x42: bytes above 0x7F survive.
    const report = Buffer.concat([Buffer.of(0x01, 0xff, 0x42, struct.length), struct]);
    const [record] = decodeReport(report);
    expect(record?.raw?.equals(struct)).toBe(true);
    const values = decodeXiaomiStruct(record!.raw!);
    expect(values.get(0x01)).toBe(3015);
    expect(values.get(0x64)).toBe(-512);
    // An unknown type ends the walk rather than misreading what follows.
    expect(values.has(0x99)).toBe(false);
  });

  it('converts standard measurements and battery voltages', () => {
    expect(luxFromZcl(0)).toBe(0);
    expect(luxFromZcl(Math.round(10_000 * Math.log10(120) + 1))).toBe(120);
    expect(batteryFromMillivolts(3100)).toBe(100);
    expect(batteryFromMillivolts(2925)).toBe(50);
    expect(batteryFromMillivolts(2700)).toBe(0);
    const rec = (attr: number, value: number) => [{ attr, type: DataType.INT16, value }];
    expect(standardReadings(0x0402, rec(0, 2150))).toEqual({ temperature: 21.5 });
    // 0x8000: the sensor has no valid value.
    expect(standardReadings(0x0402, rec(0, -0x8000))).toEqual({});
    expect(standardReadings(0x0001, [{ attr: 0x21, type: DataType.UINT8, value: 0xff }])).toEqual({});
    expect(standardReadings(0x0001, [{ attr: 0x20, type: DataType.UINT8, value: 30 }])).toEqual({
      voltage: 3000,
    });
  });
});
