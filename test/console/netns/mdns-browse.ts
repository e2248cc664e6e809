/**
 * Run inside a network namespace of its own (see mdns-multicast.test.ts): boots a hub that announces on the
 * real mDNS group (224.0.0.251:5353), then browses `_http._tcp.local` with a multicast-dns client on the
 * same group and port, as a phone's browser does, and prints what it found as one JSON line.
 */
import makeMdns from 'multicast-dns';
import { startTestHub } from '../../helpers/hub.ts';

interface Rec {
  name: string;
  type: string;
  data: unknown;
}

const t = await startTestHub({
  plugins: ['console', 'lighting'],
  config: { plugins: { console: { announce: { enabled: true } } } },
});
const browser = makeMdns();
const found = new Map<string, { port: number; txt: string[] }>();
const records: Rec[] = [];
browser.on('response', (packet) => {
  records.push(...([...(packet.answers ?? []), ...(packet.additionals ?? [])] as Rec[]));
  for (const ptr of records.filter((r) => r.type === 'PTR' && r.name === '_http._tcp.local')) {
    const instance = String(ptr.data);
    const srv = records.find((r) => r.type === 'SRV' && r.name === instance);
    const txt = records.find((r) => r.type === 'TXT' && r.name === instance);
    if (srv && txt)
      found.set(instance, {
        port: (srv.data as { port: number }).port,
        txt: (txt.data as Buffer[]).map((b) => b.toString('utf8')),
      });
  }
});
// The responder answers once its names are probed (about a second): ask again until both are found.
const deadline = Date.now() + 20_000;
while (found.size < 2 && Date.now() < deadline) {
  browser.query([{ name: '_http._tcp.local', type: 'PTR' }]);
  await new Promise((r) => setTimeout(r, 500));
}
browser.destroy();
process.stdout.write(
  `${JSON.stringify({
    adminPort: Number(new URL(t.adminUrl).port),
    mainPort: Number(new URL(t.url).port),
    services: Object.fromEntries(found),
  })}\n`,
);
await t.stop();
process.exit(0);
