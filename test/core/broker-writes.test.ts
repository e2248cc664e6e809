/**
 * How the embedded broker writes deliveries to a connection (`shapeWrites`): packets written the way aedes
 * writes them (mqtt-packet's writeToStream, each delivery from its own setImmediate) into a real Duplex
 * that records every write it gets from the stream machinery.
 */
import { Duplex } from 'node:stream';
import mqttPacket from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { shapeWrites } from '../../core/mqtt/connection-guard.ts';

/** A Duplex that records, per call, how many packets' bytes left in one write (what `writev` would send). */
function recordingStream() {
  const flushes: Buffer[] = [];
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      flushes.push(chunk);
      cb();
    },
    writev(chunks, cb) {
      flushes.push(Buffer.concat(chunks.map((c) => c.chunk as Buffer)));
      cb();
    },
  });
  return { stream, flushes };
}

const publish = (topic: string) =>
  ({ cmd: 'publish', topic, payload: Buffer.from('x'), qos: 0, retain: false, dup: false }) as const;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('embedded broker: writes to one connection', () => {
  it('sends the deliveries decided in one turn together in that turn, not one turn later (a bulb command waited for the next loop turn)', async () => {
    const { stream, flushes } = recordingStream();
    const shaper = shapeWrites(stream, 1 << 20);
    // aedes decides both deliveries synchronously, then writes each from its own setImmediate.
    shaper.expect();
    shaper.expect();
    setImmediate(() => mqttPacket.writeToStream(publish('a/1'), stream));
    setImmediate(() => mqttPacket.writeToStream(publish('a/2'), stream));
    // Queued behind aedes' writes in the same check phase: both must have left by now, in one piece.
    await turn();
    expect(flushes).toHaveLength(1);
    expect(flushes[0]!.includes('a/1')).toBe(true);
    expect(flushes[0]!.includes('a/2')).toBe(true);
  });

  it('releases the socket one turn later when an expected delivery is never written (the client went away)', async () => {
    const { stream, flushes } = recordingStream();
    const shaper = shapeWrites(stream, 1 << 20);
    shaper.expect();
    mqttPacket.writeToStream({ cmd: 'pingresp' }, stream);
    await turn();
    expect(flushes).toHaveLength(0);
    await turn();
    expect(flushes).toHaveLength(1);
    expect(flushes[0]![0]! >> 4).toBe(13); // PINGRESP (MQTT 3.1.1 §2.2.1)
  });

  it('still holds a PUBLISH nobody announced until the next turn, with what follows it', async () => {
    const { stream, flushes } = recordingStream();
    shapeWrites(stream, 1 << 20);
    mqttPacket.writeToStream(publish('b/1'), stream);
    mqttPacket.writeToStream(publish('b/2'), stream);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(flushes).toHaveLength(0);
    await turn();
    expect(flushes).toHaveLength(1);
    expect(flushes[0]!.includes('b/2')).toBe(true);
  });

  it('answers a client at once when no delivery is pending', async () => {
    const { stream, flushes } = recordingStream();
    shapeWrites(stream, 1 << 20);
    mqttPacket.writeToStream({ cmd: 'pingresp' }, stream);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(flushes).toHaveLength(1);
  });
});
