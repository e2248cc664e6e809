/**
 * ZDO frames as they travel in APS data frames on profile 0x0000 (Zigbee spec §2.4): a request's cluster
 * is its id, the answer's the same with bit 15 set; every payload starts with a transaction sequence
 * number. Sticks that carry ZDO as plain APS frames (EZSP) use these; Z-Stack builds them itself.
 * IEEE addresses travel least significant byte first; here they are `0x` + 16 hex digits.
 */

export const ZDO_PROFILE = 0x0000;
export const ZDO_ENDPOINT = 0;

export const ZdoCluster = {
  NWK_ADDR_REQ: 0x0000,
  NODE_DESC_REQ: 0x0002,
  SIMPLE_DESC_REQ: 0x0004,
  ACTIVE_EP_REQ: 0x0005,
  DEVICE_ANNCE: 0x0013,
  BIND_REQ: 0x0021,
  MGMT_LEAVE_REQ: 0x0034,
  MGMT_PERMIT_JOINING_REQ: 0x0036,
  /** Bit 15: the response to a request. */
  RESPONSE: 0x8000,
} as const;

export const ieeeToBytes = (ieee: string): Buffer => Buffer.from(ieee.slice(2), 'hex').reverse();
export const ieeeFromBytes = (b: Buffer): string => `0x${Buffer.from(b).reverse().toString('hex')}`;

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n & 0xffff, 0);
  return b;
};

/** Request payloads (without the sequence number, which the sender puts first). */
export const zdoRequest = {
  nwkAddr: (ieee: string) => Buffer.concat([ieeeToBytes(ieee), Buffer.of(0, 0)]),
  nodeDesc: (nwk: number) => u16(nwk),
  activeEp: (nwk: number) => u16(nwk),
  simpleDesc: (nwk: number, endpoint: number) => Buffer.concat([u16(nwk), Buffer.of(endpoint)]),
  /** Bind to a unicast destination (address mode 3: IEEE address and endpoint). */
  bind: (srcIeee: string, srcEndpoint: number, cluster: number, dstIeee: string, dstEndpoint: number) =>
    Buffer.concat([
      ieeeToBytes(srcIeee),
      Buffer.of(srcEndpoint),
      u16(cluster),
      Buffer.of(3),
      ieeeToBytes(dstIeee),
      Buffer.of(dstEndpoint),
    ]),
  /** Flags 0: neither rejoin nor remove children. */
  mgmtLeave: (ieee: string) => Buffer.concat([ieeeToBytes(ieee), Buffer.of(0)]),
  permitJoining: (seconds: number) => Buffer.of(seconds, 1),
  deviceAnnce: (nwk: number, ieee: string, capabilities: number) =>
    Buffer.concat([u16(nwk), ieeeToBytes(ieee), Buffer.of(capabilities)]),
};

export class ZdoError extends Error {
  constructor(
    readonly cluster: number,
    readonly status: number,
  ) {
    super(`ZDO 0x${cluster.toString(16).padStart(4, '0')} answered status 0x${status.toString(16)}`);
    this.name = 'ZdoError';
  }
}

/** Response payloads (after the sequence number). */
export const zdoResponse = {
  status: (p: Buffer) => p[0] ?? 0xff,
  nwkAddr(p: Buffer): { ieee: string; nwk: number } {
    return { ieee: ieeeFromBytes(p.subarray(1, 9)), nwk: p.readUInt16LE(9) };
  },
  /** Node descriptor: logical type in bits 0-2 of its first byte, manufacturer code at bytes 3-4. */
  nodeDesc(p: Buffer): { nwk: number; logicalType: number; manufacturerCode: number } {
    return {
      nwk: p.readUInt16LE(1),
      logicalType: (p[3] as number) & 0x07,
      manufacturerCode: p.readUInt16LE(6),
    };
  },
  activeEp(p: Buffer): { nwk: number; endpoints: number[] } {
    const n = p[3] as number;
    return { nwk: p.readUInt16LE(1), endpoints: [...p.subarray(4, 4 + n)] };
  },
  simpleDesc(p: Buffer) {
    let o = 4;
    const endpoint = p[o++] as number;
    const profileId = p.readUInt16LE(o);
    const deviceId = p.readUInt16LE(o + 2);
    o += 5;
    const list = () => {
      const n = p[o++] as number;
      const out: number[] = [];
      for (let i = 0; i < n; i++, o += 2) out.push(p.readUInt16LE(o));
      return out;
    };
    const inClusters = list();
    const outClusters = list();
    return { nwk: p.readUInt16LE(1), endpoint, profileId, deviceId, inClusters, outClusters };
  },
  deviceAnnce(p: Buffer): { nwk: number; ieee: string; capabilities: number } {
    return { nwk: p.readUInt16LE(0), ieee: ieeeFromBytes(p.subarray(2, 10)), capabilities: p[10] ?? 0 };
  },
};

/** Response payload builders (the simulated stick's devices answer with these). */
export const zdoAnswer = {
  nodeDesc: (nwk: number, logicalType: number, manufacturerCode: number) => {
    const d = Buffer.alloc(13);
    d[0] = logicalType & 0x07;
    d[1] = 0x40;
    d[2] = logicalType === 1 ? 0x8e : 0x80;
    d.writeUInt16LE(manufacturerCode, 3);
    return Buffer.concat([Buffer.of(0), u16(nwk), d]);
  },
  activeEp: (nwk: number, endpoints: number[]) =>
    Buffer.concat([Buffer.of(0), u16(nwk), Buffer.of(endpoints.length, ...endpoints)]),
  simpleDesc: (
    nwk: number,
    s: { endpoint: number; profileId: number; deviceId: number; inClusters: number[]; outClusters: number[] },
  ) => {
    const body = Buffer.concat([
      Buffer.of(s.endpoint),
      u16(s.profileId),
      u16(s.deviceId),
      Buffer.of(1, s.inClusters.length),
      ...s.inClusters.map(u16),
      Buffer.of(s.outClusters.length),
      ...s.outClusters.map(u16),
    ]);
    return Buffer.concat([Buffer.of(0), u16(nwk), Buffer.of(body.length), body]);
  },
  nwkAddr: (ieee: string, nwk: number) => Buffer.concat([Buffer.of(0), ieeeToBytes(ieee), u16(nwk)]),
  status: (status = 0) => Buffer.of(status),
};
