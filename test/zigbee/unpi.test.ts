import { describe, expect, it } from 'vitest';
import { decodeMt, mtFrame } from '../../drivers/zigbee/znp/mt.ts';
import { encodeFrame, type Frame, FrameType, Subsystem, UnpiParser } from '../../drivers/zigbee/znp/unpi.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const collect = () => {
  const frames: Frame[] = [];
  const parser = new UnpiParser((f) => frames.push(f));
  return { frames, parser };
};

describe('UNPI framing', () => {
  it('encodes SYS_PING and SYS_VERSION as the documented bytes', () => {
    expect(encodeFrame(mtFrame('sysPing')).toString('hex')).toBe('fe00210120');
    expect(encodeFrame(mtFrame('sysVersion')).toString('hex')).toBe('fe00210223');
  });

  it('encodes an AF_DATA_REQUEST with LEN, CMD0/CMD1 and the XOR checksum', () => {
    const f = encodeFrame(
      mtFrame('afDataRequest', {
        dstAddr: 0x1234,
        dstEndpoint: 1,
        srcEndpoint: 1,
        clusterId: 0x0006,
        transId: 7,
        options: 0x30,
        radius: 30,
        data: hex('11 05 01'),
      }),
    );
    expect(f.toString('hex')).toBe('fe0d240134120101060007301e0311050137');
  });

  it('parses a frame split byte by byte across reads', () => {
    const { frames, parser } = collect();
    for (const b of hex('fe 02 61 01 59 06 3d')) parser.push(Buffer.of(b));
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: FrameType.SRSP, subsystem: Subsystem.SYS, command: 0x01 });
    expect(decodeMt(frames[0] as Frame)?.fields).toMatchObject({ capabilities: 0x0659 });
  });

  it('parses several frames merged into one read, and skips garbage before and between them', () => {
    const { frames, parser } = collect();
    const ping = encodeFrame(mtFrame('sysPing'));
    parser.push(Buffer.concat([hex('00 13 37'), ping, hex('aa'), ping, ping]));
    expect(frames).toHaveLength(3);
    expect(parser.stats.garbage).toBe(4);
  });

  it('drops a frame with a bad FCS and resynchronises on the next good one', () => {
    const { frames, parser } = collect();
    const bad = Buffer.from(encodeFrame(mtFrame('sysPing')));
    bad[4] = (bad[4] as number) ^ 0xff;
    parser.push(Buffer.concat([bad, encodeFrame(mtFrame('sysVersion'))]));
    expect(frames.map((f) => f.command)).toEqual([0x02]);
    expect(parser.stats.badFcs).toBe(1);
  });

  it('does not lose a real frame that follows a false SOF inside garbage', () => {
    const { frames, parser } = collect();
    // 0xFE with a plausible length, then the real frame: the false one fails its FCS.
    parser.push(Buffer.concat([hex('fe 03 00'), encodeFrame(mtFrame('sysPing'))]));
    expect(frames.map((f) => f.command)).toEqual([0x01]);
  });

  it('refuses to encode more than 250 data bytes', () => {
    expect(() =>
      encodeFrame({ type: FrameType.AREQ, subsystem: Subsystem.AF, command: 0, data: Buffer.alloc(251) }),
    ).toThrow(RangeError);
  });

  it('survives random bytes without throwing', () => {
    const { parser } = collect();
    for (let i = 0; i < 200; i++) {
      const chunk = Buffer.alloc(1 + Math.floor(Math.random() * 40));
      for (let j = 0; j < chunk.length; j++)
        chunk[j] = Math.random() < 0.2 ? 0xfe : Math.floor(Math.random() * 256);
      expect(() => parser.push(chunk)).not.toThrow();
    }
  });
});

describe('MT commands', () => {
  it('decodes UTIL_GET_DEVICE_INFO with its IEEE address most significant first', () => {
    const f = mtFrame(
      'utilGetDeviceInfo',
      { status: 0, ieee: '0x00124b0012345678', nwkAddr: 0, deviceType: 7, deviceState: 9, assoc: [0x1234] },
      true,
    );
    expect(f.data.subarray(1, 9).toString('hex')).toBe('78563412004b1200');
    expect(decodeMt(f)?.fields).toMatchObject({
      ieee: '0x00124b0012345678',
      deviceState: 9,
      assoc: [0x1234],
    });
  });

  it('round-trips an AF_INCOMING_MSG carrying a ZCL payload', () => {
    const fields = {
      groupId: 0,
      clusterId: 6,
      srcAddr: 0x4321,
      srcEndpoint: 1,
      dstEndpoint: 1,
      wasBroadcast: 0,
      linkQuality: 200,
      securityUse: 0,
      timestamp: 123456,
      transSeq: 9,
      data: hex('18 01 0a 00 00 10 01'),
      tail: hex('21 43 1e'),
    };
    const m = decodeMt(mtFrame('afIncomingMsg', fields));
    expect(m?.name).toBe('afIncomingMsg');
    expect(m?.fields).toEqual(fields);
  });

  it('throws on a payload shorter than its fields, and ignores unknown commands', () => {
    expect(() =>
      decodeMt({ type: FrameType.AREQ, subsystem: Subsystem.AF, command: 0x80, data: hex('00') }),
    ).toThrow(/transId|endpoint/);
    expect(
      decodeMt({ type: FrameType.AREQ, subsystem: Subsystem.DEBUG, command: 0x7f, data: Buffer.alloc(0) }),
    ).toBe(null);
  });
});
