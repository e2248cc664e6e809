import { describe, expect, it } from 'vitest';
import { Attr, Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import {
  moveToColorTemp,
  moveToLevelWithOnOff,
  moveToXy,
  onOff,
  remoteEvent,
} from '../../drivers/zigbee/zcl/commands.ts';
import {
  decodeConfigureReporting,
  decodeReadRsp,
  decodeReport,
  encodeConfigureReporting,
  encodeRead,
  encodeReadRsp,
  encodeReport,
} from '../../drivers/zigbee/zcl/foundation.ts';
import { decodeZcl, encodeZcl, ZclFrameError } from '../../drivers/zigbee/zcl/frame.ts';
import { DataType, decodeValue, encodeValue } from '../../drivers/zigbee/zcl/types.ts';
import {
  HUE_BUTTON_CLUSTER,
  HUE_DIMMER_EVENTS,
  vendorEvent,
} from '../../drivers/zigbee/zcl/vendor-remotes.ts';

const cmd = (c: { command: number; payload: Buffer }, tsn: number) =>
  encodeZcl({
    kind: 1,
    fromServer: false,
    disableDefaultResponse: true,
    tsn,
    command: c.command,
    payload: c.payload,
  }).toString('hex');

describe('ZCL frames', () => {
  it('encodes on, off and move-to-level-with-on/off as the documented bytes', () => {
    expect(cmd(onOff(true), 5)).toBe('110501');
    expect(cmd(onOff(false), 6)).toBe('110600');
    // level 128, transition 1 s = 10 tenths
    expect(cmd(moveToLevelWithOnOff(128, 1), 7)).toBe('110704800a00');
    // no transition: 0xFFFF, the device's default
    expect(cmd(moveToLevelWithOnOff(0), 8)).toBe('11080401ffff');
  });

  it('encodes colour temperature in mirek and xy scaled to 0..65279', () => {
    expect(cmd(moveToColorTemp(370, 0.4), 1)).toBe('11010a72010400');
    expect(cmd(moveToXy(0x4ccc, 0x5555, 0), 2)).toBe('110207cc4c55550000');
  });

  it('reads onOff as 10 <tsn> 00 00 00 and decodes the answer', () => {
    const read = encodeZcl({
      kind: 0,
      fromServer: false,
      disableDefaultResponse: true,
      tsn: 3,
      command: 0,
      payload: encodeRead([Attr.ON_OFF]),
    });
    expect(read.toString('hex')).toBe('1003000000');
    const rsp = encodeReadRsp([
      { attr: 0, type: DataType.BOOL, value: true },
      { attr: 0x4000, status: 0x86 },
    ]);
    expect(decodeReadRsp(rsp)).toEqual([{ attr: 0, type: DataType.BOOL, value: true }]);
  });

  it('decodes an attribute report with a manufacturer code and strings', () => {
    const payload = encodeReport([
      { attr: Attr.BASIC_MODEL, type: DataType.CHAR_STR, value: 'TRADFRI bulb' },
      { attr: 0x0000, type: DataType.UINT8, value: 3 },
    ]);
    const f = decodeZcl(
      encodeZcl({
        kind: 0,
        fromServer: true,
        disableDefaultResponse: true,
        manufacturerCode: 0x117c,
        tsn: 9,
        command: 0x0a,
        payload,
      }),
    );
    expect(f).toMatchObject({ kind: 0, fromServer: true, manufacturerCode: 0x117c, tsn: 9, command: 0x0a });
    expect(decodeReport(f.payload).map((r) => r.value)).toEqual(['TRADFRI bulb', 3]);
  });

  it('encodes configure reporting with a reportable change for analogue types only', () => {
    const p = encodeConfigureReporting([
      { attr: 0, type: DataType.BOOL, minSeconds: 0, maxSeconds: 300 },
      { attr: 0, type: DataType.UINT8, minSeconds: 1, maxSeconds: 300, change: 1 },
    ]);
    expect(p.toString('hex')).toBe('0000001000002c01' + '000000200100' + '2c0101');
    expect(decodeConfigureReporting(p)).toHaveLength(2);
  });

  it('refuses truncated frames', () => {
    expect(() => decodeZcl(Buffer.from('18', 'hex'))).toThrow(ZclFrameError);
    expect(() => decodeReport(Buffer.from('000021ff', 'hex'))).toThrow(RangeError);
  });

  it("names a remote's buttons", () => {
    expect(remoteEvent(Cluster.ON_OFF, 2, Buffer.alloc(0))).toBe('toggle');
    expect(remoteEvent(Cluster.LEVEL, 0x05, Buffer.of(0, 83))).toBe('brightness_move_up');
    expect(remoteEvent(Cluster.LEVEL, 0x06, Buffer.of(1, 43, 5, 0))).toBe('brightness_step_down');
    expect(remoteEvent(Cluster.LEVEL, 0x07, Buffer.alloc(0))).toBe('brightness_stop');
    expect(remoteEvent(Cluster.SCENES, 0x05, Buffer.of(0, 0, 3))).toBe('recall_scene_3');
    expect(remoteEvent(Cluster.COLOR, 0x07, Buffer.alloc(0))).toBe(null);
  });
});

describe('vendor remote frames', () => {
  it('decodes the IKEA arrow frames (manufacturer 0x117C, Scenes 0x07/0x08/0x09) with the hold direction kept for the release', () => {
    const held = {};
    // A right-arrow click as an IKEA remote sends it: 05 7c11 <tsn> 07 0001 0d00.
    expect(vendorEvent(Cluster.SCENES, decodeZcl(Buffer.from('057c111d0700010d00', 'hex')), held)).toBe(
      'arrow_right_click',
    );
    expect(vendorEvent(Cluster.SCENES, decodeZcl(Buffer.from('057c111e0701010d00', 'hex')), held)).toBe(
      'arrow_left_click',
    );
    // Value 2 comes with a held toggle button: not an arrow.
    expect(vendorEvent(Cluster.SCENES, decodeZcl(Buffer.from('057c111f0702000000', 'hex')), held)).toBeNull();
    expect(vendorEvent(Cluster.SCENES, decodeZcl(Buffer.from('057c112008000d', 'hex')), held)).toBe(
      'arrow_right_hold',
    );
    expect(vendorEvent(Cluster.SCENES, decodeZcl(Buffer.from('057c112109b004', 'hex')), held)).toBe(
      'arrow_right_release',
    );
    // A release with no hold before it says nothing.
    expect(vendorEvent(Cluster.SCENES, decodeZcl(Buffer.from('057c112209b004', 'hex')), held)).toBeNull();
    // The same command ids without IKEA's manufacturer code are not arrows.
    expect(vendorEvent(Cluster.SCENES, decodeZcl(Buffer.from('01230701010d00', 'hex')), held)).toBeNull();
  });

  it('decodes the Hue dimmer notification (cluster 0xFC00, manufacturer 0x100B, server to client)', () => {
    const f = (button: number, type: number) =>
      decodeZcl(
        Buffer.from(
          `1d0b1001 00 ${button.toString(16).padStart(2, '0')}003000 ${type.toString(16).padStart(2, '0')}210000`.replaceAll(
            ' ',
            '',
          ),
          'hex',
        ),
      );
    expect(vendorEvent(HUE_BUTTON_CLUSTER, f(1, 0), {})).toBe('on_press');
    expect(vendorEvent(HUE_BUTTON_CLUSTER, f(2, 1), {})).toBe('up_hold');
    expect(vendorEvent(HUE_BUTTON_CLUSTER, f(3, 2), {})).toBe('down_press_release');
    expect(vendorEvent(HUE_BUTTON_CLUSTER, f(4, 3), {})).toBe('off_hold_release');
    expect(vendorEvent(HUE_BUTTON_CLUSTER, f(5, 0), {})).toBeNull();
    expect(HUE_DIMMER_EVENTS).toHaveLength(16);
  });

  it('encodes an IEEE address attribute (the IAS CIE address) little-endian', () => {
    expect(encodeValue(DataType.IEEE_ADDR, '0x00124b0099887766').toString('hex')).toBe('66778899004b1200');
    expect(decodeValue(DataType.IEEE_ADDR, Buffer.from('66778899004b1200', 'hex'), 0)).toEqual({
      value: '0x00124b0099887766',
      size: 8,
    });
  });
});
