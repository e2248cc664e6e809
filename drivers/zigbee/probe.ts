/**
 * Which kind of stick is on the port (docs/zigbee.md#finding-the-stick): a forced kind is taken as is;
 * otherwise the /dev/serial/by-id name hints which protocol to try first, then a Z-Stack SYS_PING and an
 * ASH reset tell. Each probe reads the line through its own view, so a losing parser sees nothing after.
 */
import { EzspAdapter, type EzspTimings } from './ezsp/adapter.ts';
import type { RadioAdapter, StickKind } from './radio.ts';
import { type AdapterTimings, ZStackAdapter } from './znp/adapter.ts';
import type { Transport } from './znp/transport.ts';

/** By-id name fragments of Silicon Labs EFR32 sticks (ZBT-1/SkyConnect, ZBDongle-E, SLZB-06M/07, CP210x bridges). */
const EZSP_NAMES = [
  /skyconnect/i,
  /home_assistant_connect_zbt-1/i,
  /zbt-1/i,
  /zbdongle-e/i,
  /dongle_plus_v2/i,
  /slzb-06m/i,
  /slzb-07/i,
  /efr32/i,
  /ezsp/i,
  /silicon_labs/i,
];

export function kindFromName(path: string): StickKind | null {
  const name = path.split('/').pop() ?? '';
  if (EZSP_NAMES.some((r) => r.test(name))) return 'ezsp';
  if (/sonoff_zigbee_3\.0_usb_dongle_plus|slzb-06|zig-a-zig-ah|cc2652|cc1352|texas_instruments/i.test(name))
    return 'znp';
  return null;
}

/** Views of one transport: only the active view's listeners get data. */
class Mux {
  #active: { data: Array<(b: Buffer) => void> } | null = null;
  readonly #closes: Array<(err?: Error) => void> = [];
  constructor(private readonly t: Transport) {
    t.onData((b) => {
      for (const l of this.#active?.data ?? []) l(b);
    });
    t.onClose((err) => {
      for (const l of this.#closes) l(err);
    });
  }

  /** A view that owns the port (`owner`: closing it closes the port) or a probe's (closing it detaches). */
  view(owner: boolean): Transport {
    const v = { data: [] as Array<(b: Buffer) => void> };
    this.#active = v;
    const t = this.t;
    const mine: Array<(err?: Error) => void> = [];
    const closes = this.#closes;
    return {
      write: (bytes) => t.write(bytes),
      onData: (l) => v.data.push(l),
      onClose: (l) => {
        mine.push(l);
        closes.push(l);
      },
      ...(t.pulseModemLines ? { pulseModemLines: () => t.pulseModemLines?.() ?? Promise.resolve() } : {}),
      close: async () => {
        v.data.length = 0;
        for (const l of mine) closes.splice(closes.indexOf(l), 1);
        if (owner) await t.close();
      },
    };
  }
}

export interface ProbeTimings {
  znp: Partial<AdapterTimings>;
  ezsp: Partial<EzspTimings>;
}

export interface Probed {
  adapter: RadioAdapter;
  kind: StickKind;
  /** How the kind was decided, for the status and the log. */
  how: 'forced' | 'probe';
}

/** A quick answer to SYS_PING (no bootloader fallback: that comes last). */
async function znpAnswers(mux: Mux, t: ProbeTimings): Promise<boolean> {
  const a = new ZStackAdapter(mux.view(false), t.znp);
  const ok = await a.znp.request('sysPing', {}, t.znp.pingMs ?? 250).then(
    () => true,
    () => false,
  );
  await a.close();
  return ok;
}

async function ezspAnswers(mux: Mux, t: ProbeTimings): Promise<boolean> {
  const a = new EzspAdapter(mux.view(false), {
    ...t.ezsp,
    ash: { ...t.ezsp.ash, resetMs: t.ezsp.ash?.resetMs ?? 1500 },
  });
  const ok = await a.ash.reset().then(
    () => true,
    () => false,
  );
  await a.close();
  return ok;
}

/** The adapter for the stick on `transport`. Throws when neither kind answers. */
export async function probeStick(
  transport: Transport,
  path: string,
  forced: StickKind | 'auto',
  t: ProbeTimings,
): Promise<Probed> {
  const mux = new Mux(transport);
  const make = (kind: StickKind): RadioAdapter =>
    kind === 'znp' ? new ZStackAdapter(mux.view(true), t.znp) : new EzspAdapter(mux.view(true), t.ezsp);
  if (forced !== 'auto') return { adapter: make(forced), kind: forced, how: 'forced' };
  const order: StickKind[] = kindFromName(path) === 'ezsp' ? ['ezsp', 'znp'] : ['znp', 'ezsp'];
  for (const kind of order) {
    const ok = kind === 'znp' ? await znpAnswers(mux, t) : await ezspAnswers(mux, t);
    if (ok) return { adapter: make(kind), kind, how: 'probe' };
  }
  // Neither answered at once: a Z-Stack stick may sit in its serial bootloader (the adapter's ping skips it).
  return { adapter: make('znp'), kind: 'znp', how: 'probe' };
}
