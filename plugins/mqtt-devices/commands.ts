/** `hearth mqtt ...` subcommands; each one calls the admin routes of the running hub (routes.ts). */

import { type CliCommand, adminCall as call } from '../../core/sdk.ts';

const jsonOption = { json: { type: 'boolean', description: 'Print JSON' } } as const;

interface CredentialOut {
  username: string;
  site: string | null;
  topics: string[] | null;
  operator?: 'read' | 'readwrite';
  password?: string;
  created?: string;
}

export const mqttCommands: CliCommand[] = [
  {
    name: 'mqtt credentials add',
    usage:
      'hearth mqtt credentials add <username> (--site <site id or name> [--topic <filter>]... | --operator read|readwrite) [--json]',
    summary:
      'Creates a device credential (or an operator one that sees the whole bus) and prints its password (shown once)',
    options: {
      ...jsonOption,
      site: { type: 'string', description: 'Site id or name (a device credential)' },
      topic: { type: 'string', multiple: true, description: 'Topic filter the device may use' },
      operator: {
        type: 'string',
        description: 'read or readwrite: an operator credential for the whole bus (no site, no topics)',
      },
    },
    positionals: [1, 1],
    check: ({ values }) => {
      const site = typeof values.site === 'string' && values.site !== '';
      const operator = values.operator;
      if (operator !== undefined && operator !== 'read' && operator !== 'readwrite')
        return '--operator must be read or readwrite';
      if (site === (operator !== undefined)) return 'give either --site or --operator';
      if (operator !== undefined && values.topic !== undefined) return '--topic needs --site';
      return null;
    },
    async run({ positionals: words, values }, io) {
      const site = values.site as string | undefined;
      const operator = values.operator as string | undefined;
      const json = values.json === true;
      const topics = values.topic as string[] | undefined;
      const c = (await call(io, 'POST', '/admin/mqtt/credentials', {
        username: words[0],
        ...(operator ? { operator } : { site }),
        ...(topics ? { topics } : {}),
      })) as CredentialOut | null;
      if (!c) return 1;
      if (json) io.out(JSON.stringify(c));
      else {
        io.out(`username: ${c.username}`);
        io.out(`password: ${c.password}`);
        if (c.operator) io.out(`operator: ${c.operator} (every topic, wildcards included)`);
        else {
          io.out(`site:     ${c.site}`);
          io.out(`topics:   ${c.topics ? c.topics.join(' ') : "(the site's devices and hearth/<site>/#)"}`);
        }
      }
      return 0;
    },
  },
  {
    name: 'mqtt credentials list',
    usage: 'hearth mqtt credentials list [--json]',
    summary: 'Lists device credentials (passwords are never shown again)',
    options: jsonOption,
    async run({ values }, io) {
      const list = (await call(io, 'GET', '/admin/mqtt/credentials')) as CredentialOut[] | null;
      if (!list) return 1;
      if (values.json === true) io.out(JSON.stringify(list));
      else
        for (const c of list)
          io.out(
            c.operator
              ? `${c.username}  operator ${c.operator}`
              : `${c.username}  site ${c.site}  ${c.topics ? c.topics.join(' ') : 'per-site'}`,
          );
      return 0;
    },
  },
  {
    name: 'mqtt credentials remove',
    usage: 'hearth mqtt credentials remove <username>',
    summary: 'Removes a device credential; the device is refused from its next publish or subscribe',
    positionals: [1, 1],
    async run({ positionals: [name = ''] }, io) {
      if ((await call(io, 'DELETE', `/admin/mqtt/credentials/${encodeURIComponent(name)}`)) === null)
        return 1;
      io.out(`removed ${name}`);
      return 0;
    },
  },
  {
    name: 'mqtt retained clear',
    usage: 'hearth mqtt retained clear (--topic <topic> | --filter <filter>)',
    summary: 'Clears retained messages of the hub broker (one topic, or every topic a filter matches)',
    options: {
      topic: { type: 'string', description: 'The topic to clear' },
      filter: { type: 'string', description: 'Clear every retained topic this filter matches' },
    },
    check: ({ values }) =>
      (values.topic === undefined) === (values.filter === undefined)
        ? 'give either --topic or --filter'
        : null,
    async run({ values }, io) {
      const topic = values.topic as string | undefined;
      const q =
        topic !== undefined
          ? `topic=${encodeURIComponent(topic)}`
          : `filter=${encodeURIComponent(values.filter as string)}`;
      const res = (await call(io, 'DELETE', `/admin/mqtt/retained?${q}`)) as { cleared?: number } | null;
      if (!res) return 1;
      io.out(`cleared ${res.cleared ?? 1}`);
      return 0;
    },
  },
  {
    name: 'mqtt retained',
    usage: 'hearth mqtt retained [--filter <filter>] [--json]',
    summary: 'Lists the retained messages of the hub broker (topic, size, short text payloads)',
    options: { ...jsonOption, filter: { type: 'string', description: 'Only topics this filter matches' } },
    async run({ values }, io) {
      const filter = values.filter as string | undefined;
      const q = filter ? `?filter=${encodeURIComponent(filter)}` : '';
      const list = (await call(io, 'GET', `/admin/mqtt/retained${q}`)) as Array<{
        topic: string;
        bytes: number;
        text?: string;
      }> | null;
      if (!list) return 1;
      if (values.json === true) io.out(JSON.stringify(list));
      else
        for (const m of list)
          io.out(`${m.topic}  ${m.bytes} B${m.text !== undefined ? `  ${m.text.slice(0, 60)}` : ''}`);
      return 0;
    },
  },
  {
    name: 'mqtt devices',
    usage: 'hearth mqtt devices [--site <site>] [--json]',
    summary: 'Lists the MQTT devices Hearth knows (new and unavailable ones are marked)',
    options: { ...jsonOption, site: { type: 'string', description: 'Only this site (id or name)' } },
    async run({ values }, io) {
      const json = values.json === true;
      const site = values.site as string | undefined;
      const q = site ? `?site=${encodeURIComponent(site)}` : '';
      const list = (await call(io, 'GET', `/admin/mqtt/devices${q}`)) as Array<
        Record<string, unknown>
      > | null;
      if (!list) return 1;
      if (json) io.out(JSON.stringify(list));
      else
        for (const d of list)
          io.out(
            `${String(d.mqttid)}  ${String(d.kind)}  site ${String(d.site)}${d.new ? '  NEW' : ''}${d.available === false ? '  unavailable' : ''}`,
          );
      return 0;
    },
  },
];
