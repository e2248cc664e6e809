/**
 * The DNS-SD records of the hub's two services (RFC 6763): a PTR from `_http._tcp.local` to each instance,
 * and per instance an SRV (port, host) and a TXT saying which service it is (`role=console` or
 * `role=household`), its path and the version. The host's A records ride along as additional records
 * (RFC 6763 §12.2); the host name itself stays the system responder's to answer.
 */
export const HTTP_SERVICE = '_http._tcp.local';
/** RFC 6763 §9: the question a browser of every service type asks. */
export const SERVICE_TYPES = '_services._dns-sd._udp.local';

/** RFC 6762 §10: host-related records 120 s, the others 75 minutes. */
const HOST_TTL = 120;
const OTHER_TTL = 4500;

export interface AnnouncedService {
  /** The instance's label, e.g. "Hearth console". */
  instance: string;
  port: number;
  txt: Record<string, string>;
}

export interface DnsRecord {
  name: string;
  type: 'PTR' | 'SRV' | 'TXT' | 'A';
  ttl: number;
  data: unknown;
  flush?: boolean;
}

export interface Question {
  name: string;
  type: string;
}

export const fullName = (s: AnnouncedService): string => `${s.instance}.${HTTP_SERVICE}`;

function instanceRecords(s: AnnouncedService, host: string, ttl: (t: number) => number): DnsRecord[] {
  const name = fullName(s);
  return [
    {
      name,
      type: 'SRV',
      ttl: ttl(HOST_TTL),
      flush: true,
      data: { priority: 0, weight: 0, port: s.port, target: host },
    },
    {
      name,
      type: 'TXT',
      ttl: ttl(OTHER_TTL),
      flush: true,
      data: Object.entries(s.txt).map(([k, v]) => Buffer.from(`${k}=${v}`)),
    },
  ];
}

/** Every record the hub owns (an announcement; with `goodbye` at TTL 0, RFC 6762 §10.1). */
export function allRecords(
  services: AnnouncedService[],
  host: string,
  addresses: string[],
  goodbye = false,
): { answers: DnsRecord[]; additionals: DnsRecord[] } {
  const ttl = (t: number) => (goodbye ? 0 : t);
  return {
    answers: [
      ...services.map(
        (s): DnsRecord => ({ name: HTTP_SERVICE, type: 'PTR', ttl: ttl(OTHER_TTL), data: fullName(s) }),
      ),
      ...services.flatMap((s) => instanceRecords(s, host, ttl)),
    ],
    additionals: goodbye
      ? []
      : addresses.map((a): DnsRecord => ({ name: host, type: 'A', ttl: HOST_TTL, flush: true, data: a })),
  };
}

const wants = (q: Question, type: string) => q.type === type || q.type === 'ANY';

/** The answer to a query's questions, or null when none is about one of our names (avahi's, or nobody's). */
export function answer(
  questions: Question[],
  services: AnnouncedService[],
  host: string,
  addresses: string[],
): { answers: DnsRecord[]; additionals: DnsRecord[] } | null {
  const answers: DnsRecord[] = [];
  const related: DnsRecord[] = [];
  for (const q of questions) {
    const name = q.name.toLowerCase();
    if (name === HTTP_SERVICE && wants(q, 'PTR')) {
      for (const s of services) {
        answers.push({ name: HTTP_SERVICE, type: 'PTR', ttl: OTHER_TTL, data: fullName(s) });
        related.push(...instanceRecords(s, host, (t) => t));
      }
    } else if (name === SERVICE_TYPES && wants(q, 'PTR')) {
      answers.push({ name: SERVICE_TYPES, type: 'PTR', ttl: OTHER_TTL, data: HTTP_SERVICE });
    } else {
      const s = services.find((x) => fullName(x).toLowerCase() === name);
      if (!s) continue;
      answers.push(...instanceRecords(s, host, (t) => t).filter((r) => wants(q, r.type)));
    }
  }
  if (answers.length === 0) return null;
  const hostRecords = addresses.map(
    (a): DnsRecord => ({ name: host, type: 'A', ttl: HOST_TTL, flush: true, data: a }),
  );
  const additionals = [...related.filter((r) => !answers.includes(r)), ...hostRecords];
  return { answers, additionals };
}

/** Whether answers (heard while probing, before we answer ourselves) name one of our instances: another host has it. */
export function nameTaken(answers: Array<{ name: string }>, services: AnnouncedService[]): boolean {
  const ours = new Set(services.map((s) => fullName(s).toLowerCase()));
  return answers.some((r) => ours.has(r.name.toLowerCase()));
}
