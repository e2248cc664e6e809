/** `hearth status`: where to open the hub from a phone, and whether it still waits to be set up. */
import type { CliCommand } from '../../core/sdk.ts';

interface OwnerView {
  claimed: boolean;
  claimedAt: string | null;
  password: boolean;
  setupCodeRequired: boolean;
  setupCode: string | null;
  addresses: { console: string[]; household: string[] };
}

export const statusCommand: CliCommand = {
  name: 'status',
  usage: 'hearth status',
  summary: 'Print the addresses a phone can open, and whether the hub is set up',
  readsOnly: true,
  async run(_input, io) {
    const hub = await io.admin.request('GET', '/admin/hub');
    const res = await io.admin.request('GET', '/admin/console/owner');
    if (hub.status !== 200 || res.status !== 200) {
      io.err(`hub answered ${hub.status === 200 ? res.status : hub.status}`);
      return 1;
    }
    const h = hub.body as { version?: string; state?: string };
    const o = res.body as OwnerView;
    io.out(`Hearth ${h.version ?? ''} is ${h.state ?? 'running'}.`);
    io.out('Open the console from a phone or computer on this network:');
    for (const a of o.addresses.console) io.out(`  ${a}`);
    io.out('The household app starts at:');
    for (const a of o.addresses.household) io.out(`  ${a}`);
    if (!o.claimed) {
      io.out('Nobody has set up this hub yet: the console offers "Set up this hub".');
      if (o.setupCode)
        io.out(
          `Setup code${o.setupCodeRequired ? '' : ' (asked only when plugins.console.claim.setupCode is on)'}: ${o.setupCode}`,
        );
    } else
      io.out(
        `Set up${o.claimedAt ? ` on ${o.claimedAt}` : ''}; sign in with the ${o.password ? 'owner password' : 'admin key'}.`,
      );
    return 0;
  },
};
