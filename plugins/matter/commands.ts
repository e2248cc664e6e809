/** `hearth matter ...`: status of the bridges and pairing one with a phone (QR code on the terminal). */
import { renderUnicodeCompact } from 'uqr';
import { type CliCommand, adminCall as call } from '../../core/sdk.ts';

interface BridgeOut {
  site: string;
  port: number;
  commissioned: boolean;
  manualPairingCode: string | null;
  qrPayload: string | null;
  windowOpenUntil: string | null;
  fabrics: Array<{ fabricIndex: number; vendorId: number; label: string }>;
}

/** The 11-digit manual code as phones print it: 1234-567-8901. */
export const groupedCode = (code: string): string =>
  code.length === 11 ? `${code.slice(0, 4)}-${code.slice(4, 7)}-${code.slice(7)}` : code;

export const matterCommands: CliCommand[] = [
  {
    name: 'matter status',
    usage: 'hearth matter status',
    summary: 'Lists the Matter bridges: site, port, commissioning window and the controllers (fabrics)',
    readsOnly: true,
    async run(_input, io) {
      const out = (await call(io, 'GET', '/admin/matter')) as { bridges: BridgeOut[] } | null;
      if (!out) return 1;
      if (out.bridges.length === 0) io.out('no Matter bridge is running');
      for (const b of out.bridges) {
        const window = b.windowOpenUntil ? `window open until ${b.windowOpenUntil}` : 'window closed';
        io.out(
          `site ${b.site} udp/${b.port} ${b.commissioned ? 'commissioned' : 'not commissioned'}, ${window}`,
        );
        for (const f of b.fabrics)
          io.out(
            `  fabric ${f.fabricIndex}: vendor 0x${f.vendorId.toString(16).padStart(4, '0')} "${f.label}"`,
          );
      }
      return 0;
    },
  },
  {
    name: 'matter pair',
    usage: 'hearth matter pair <site id>',
    summary: "Opens the commissioning window of a site's bridge and prints its QR code and manual code",
    positionals: [1, 1],
    async run({ positionals }, io) {
      const site = encodeURIComponent(positionals[0] ?? '');
      const b = (await call(io, 'POST', `/admin/matter/${site}/window`)) as BridgeOut | null;
      if (!b?.qrPayload || !b.manualPairingCode) return 1;
      io.out(renderUnicodeCompact(b.qrPayload, { border: 2 }));
      io.out(`QR code payload: ${b.qrPayload}`);
      io.out(`Manual pairing code: ${groupedCode(b.manualPairingCode)}`);
      io.out(`Scan it in Apple Home, Google Home, Alexa or Home Assistant before ${b.windowOpenUntil}.`);
      return 0;
    },
  },
];
