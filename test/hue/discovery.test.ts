import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { bridgesFromRecords, HUE_SERVICE, type MdnsRecord } from '../../drivers/hue/discovery.ts';

/** An mDNS answer as a bridge sends it, through the real DNS codec (encode, then decode). */
function bridgeAnswer(instance: string, bridgeId: string, ip: string, port = 443): MdnsRecord[] {
  const target = `${instance.replace(/\W+/g, '-')}.local`;
  const name = `${instance}.${HUE_SERVICE}`;
  const packet = dnsPacket.decode(
    dnsPacket.encode({
      type: 'response',
      answers: [{ name: HUE_SERVICE, type: 'PTR', data: name }],
      additionals: [
        { name, type: 'SRV', data: { target, port, priority: 0, weight: 0 } },
        { name, type: 'TXT', data: [`bridgeid=${bridgeId}`, 'modelid=BSB002'] },
        { name: target, type: 'A', data: ip },
      ],
    }),
  );
  return [...(packet.answers ?? []), ...(packet.additionals ?? [])] as MdnsRecord[];
}

describe('hue mDNS discovery', () => {
  it('reads bridge id, address and port from the records of a bridge answer', () => {
    const found = bridgesFromRecords([
      ...bridgeAnswer('Hue Bridge - 4A5B6C', '001788FFFE4A5B6C', '192.168.1.20'),
      ...bridgeAnswer('Hue Bridge - 000001', '001788fffe000001', '192.168.1.21', 8443),
    ]);
    expect(found).toEqual([
      { bridgeId: '001788fffe4a5b6c', host: '192.168.1.20', port: 443, name: 'Hue Bridge - 4A5B6C' },
      { bridgeId: '001788fffe000001', host: '192.168.1.21', port: 8443, name: 'Hue Bridge - 000001' },
    ]);
  });

  it('ignores answers without a valid bridge id or an address', () => {
    const noAddress = bridgeAnswer('Hue Bridge - X', '001788fffe4a5b6c', '192.168.1.20').filter(
      (r) => r.type !== 'A',
    );
    const badId = bridgeAnswer('Hue Bridge - Y', 'not-a-bridge', '192.168.1.22');
    expect(bridgesFromRecords([...noAddress, ...badId])).toEqual([]);
  });
});
