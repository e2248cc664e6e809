/**
 * The hub's mDNS announcement, asked directly: a real multicast-dns client sends its question by unicast to
 * the hub's responder on loopback (a loopback interface carries no multicast here; the sockets, the DNS
 * codec and the records are the real thing) and gets the console's and the household app's `_http._tcp`
 * instances, their ports, which is which and the version. Questions about names that are not the hub's
 * (the host name avahi owns, another service type) get no answer at all.
 */
import { createSocket } from 'node:dgram';
import makeMdns from 'multicast-dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../core/version.ts';
import { shortId } from '../../plugins/console/mdns/announce.ts';
import { allRecords, answer, nameTaken } from '../../plugins/console/mdns/records.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface Rec {
  name: string;
  type: string;
  ttl?: number;
  data: unknown;
}

/** Asks the responder at 127.0.0.1:`port` one question; the answer packet, or null after `ms`. */
async function ask(port: number, name: string, type: 'PTR' | 'SRV' | 'TXT' | 'A', ms = 400) {
  const client = makeMdns({ port, ip: '127.0.0.1', multicast: false, bind: false });
  try {
    return await new Promise<{ id?: number; answers: Rec[]; additionals: Rec[] } | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), ms);
      client.on('response', (packet) => {
        clearTimeout(timer);
        resolve(packet as never);
      });
      client.query([{ name, type }]);
    });
  } finally {
    client.destroy();
  }
}

const txt = (r: Rec | undefined) =>
  Object.fromEntries(
    ((r?.data ?? []) as Buffer[]).map((b) => b.toString('utf8').split('=') as [string, string]),
  );

describe('the hub answers mDNS for its console and household app', () => {
  let t: TestHub;
  let port: number;
  beforeAll(async () => {
    port = await freeUdpPort();
    t = await startTestHub({
      plugins: ['console', 'lighting'],
      config: { plugins: { console: { announce: { enabled: true, address: '127.0.0.1', port } } } },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers a PTR question for _http._tcp.local with both instances, their SRV and TXT', async () => {
    let reply = await ask(port, '_http._tcp.local', 'PTR');
    // The socket binds in the background of the start; one more try covers a question sent before.
    reply ??= await ask(port, '_http._tcp.local', 'PTR', 1000);
    expect(reply).not.toBeNull();
    const all = [...(reply?.answers ?? []), ...(reply?.additionals ?? [])];
    const ptr = all.filter((r) => r.type === 'PTR').map((r) => r.data);
    expect(ptr.sort()).toEqual(['Hearth console._http._tcp.local', 'Hearth household._http._tcp.local']);
    const srv = (n: string) =>
      all.find((r) => r.type === 'SRV' && r.name === n)?.data as { port: number; target: string };
    const adminPort = Number(new URL(t.adminUrl).port);
    const mainPort = Number(new URL(t.url).port);
    expect(srv('Hearth console._http._tcp.local').port).toBe(adminPort);
    expect(srv('Hearth household._http._tcp.local').port).toBe(mainPort);
    expect(srv('Hearth console._http._tcp.local').target).toMatch(/\.local$/);
    expect(txt(all.find((r) => r.type === 'TXT' && r.name === 'Hearth console._http._tcp.local'))).toEqual({
      role: 'console',
      path: '/admin/ui/',
      version: VERSION,
    });
    expect(txt(all.find((r) => r.type === 'TXT' && r.name === 'Hearth household._http._tcp.local'))).toEqual({
      role: 'household',
      path: '/',
      version: VERSION,
    });
    // The host's address rides along, so the SRV target resolves without a second question.
    expect(all.filter((r) => r.type === 'A').map((r) => r.data)).toEqual(['127.0.0.1']);
  });

  it('answers a question for one instance, and the addresses it names open the console and the start page', async () => {
    const reply = await ask(port, 'Hearth console._http._tcp.local', 'SRV', 1000);
    const srv = reply?.answers.find((r) => r.type === 'SRV')?.data as { port: number };
    const console = await fetch(`http://127.0.0.1:${srv.port}/`, { redirect: 'manual' });
    expect(console.status).toBe(302);
    expect(console.headers.get('location')).toBe('/admin/ui/');
    const household = await fetch(`${t.url}/`);
    expect(household.status).toBe(200);
    expect(await household.text()).toContain('household link');
  });

  it('stays silent about names that are not its own (the host name is avahi’s)', async () => {
    expect(await ask(port, 'raspberrypi.local', 'A')).toBeNull();
    expect(await ask(port, '_hue._tcp.local', 'PTR')).toBeNull();
    expect(await ask(port, 'Someone else._http._tcp.local', 'SRV')).toBeNull();
  });
});

describe('the announcement records', () => {
  const services = [{ instance: 'Hearth console', port: 9001, txt: { role: 'console' } }];
  it('says goodbye with TTL 0 (RFC 6762 §10.1) and answers the service-type browse (RFC 6763 §9)', () => {
    const bye = allRecords(services, 'hub.local', ['192.168.1.2'], true);
    expect(bye.answers.every((r) => r.ttl === 0)).toBe(true);
    expect(bye.additionals).toEqual([]);
    const types = answer([{ name: '_services._dns-sd._udp.local', type: 'PTR' }], services, 'hub.local', []);
    expect(types?.answers).toEqual([
      { name: '_services._dns-sd._udp.local', type: 'PTR', ttl: 4500, data: '_http._tcp.local' },
    ]);
    expect(answer([{ name: 'hub.local', type: 'A' }], services, 'hub.local', ['192.168.1.2'])).toBeNull();
  });

  it('takes a name another host answers for (RFC 6762 §8.1) as taken; the short id is four stable hex digits', () => {
    expect(nameTaken([{ name: 'hearth CONSOLE._http._tcp.local' }], services)).toBe(true);
    expect(nameTaken([{ name: 'Hearth household._http._tcp.local' }], services)).toBe(false);
    expect(shortId()).toMatch(/^[0-9A-F]{4}$/);
    expect(shortId()).toBe(shortId());
  });
});
