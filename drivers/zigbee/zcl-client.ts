/** ZCL requests over the adapter: commands to a device, and reads/configures that wait for the answer. */

import { type Destination, HEARTH_ENDPOINT, type RadioAdapter } from './radio.ts';
import { Global } from './zcl/clusters.ts';
import type { ClusterCommand } from './zcl/commands.ts';
import {
  type AttrRecord,
  decodeReadRsp,
  encodeConfigureReporting,
  encodeRead,
  encodeWrite,
  type ReportingConfig,
  writeSucceeded,
} from './zcl/foundation.ts';
import { decodeZcl, encodeZcl, type ZclFrame } from './zcl/frame.ts';

interface Answer {
  nwk: number;
  cluster: number;
  tsn: number;
  resolve: (f: ZclFrame) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ZclClient {
  #tsn = 0;
  #answers: Answer[] = [];
  readonly #adapter: RadioAdapter;
  readonly #answerMs: number;

  constructor(adapter: RadioAdapter, answerMs = 5000) {
    this.#adapter = adapter;
    this.#answerMs = answerMs;
  }

  #nextTsn(): number {
    this.#tsn = (this.#tsn + 1) & 0xff;
    return this.#tsn;
  }

  /** Offers an incoming frame to the requests waiting for it; true when one took it. */
  answer(nwk: number, cluster: number, frame: ZclFrame): boolean {
    const a = this.#answers.find((x) => x.nwk === nwk && x.cluster === cluster && x.tsn === frame.tsn);
    if (!a) return false;
    clearTimeout(a.timer);
    this.#answers.splice(this.#answers.indexOf(a), 1);
    a.resolve(frame);
    return true;
  }

  async command(d: Destination, c: ClusterCommand): Promise<void> {
    const zcl = encodeZcl({
      kind: 1,
      fromServer: false,
      disableDefaultResponse: true,
      tsn: this.#nextTsn(),
      command: c.command,
      payload: c.payload,
    });
    await this.#adapter.send(d, c.cluster, zcl);
  }

  /** A cluster-specific command with the device's answer (add group → add group response). */
  request(d: Destination, c: ClusterCommand): Promise<ZclFrame> {
    return this.#ask(d, c.cluster, 1, c.command, c.payload);
  }

  /** One command to every member of Zigbee group `group`. */
  async groupcast(group: number, c: ClusterCommand): Promise<void> {
    const zcl = encodeZcl({
      kind: 1,
      fromServer: false,
      disableDefaultResponse: true,
      tsn: this.#nextTsn(),
      command: c.command,
      payload: c.payload,
    });
    await this.#adapter.sendGroup(group, c.cluster, zcl);
  }

  #global(d: Destination, cluster: number, command: number, payload: Buffer): Promise<ZclFrame> {
    return this.#ask(d, cluster, 0, command, payload);
  }

  async #ask(
    d: Destination,
    cluster: number,
    kind: 0 | 1,
    command: number,
    payload: Buffer,
  ): Promise<ZclFrame> {
    const tsn = this.#nextTsn();
    const nwk = this.#adapter.nwkOf(d);
    const answered = new Promise<ZclFrame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#answers = this.#answers.filter((x) => x.timer !== timer);
        reject(new Error(`no ZCL answer from ${d.ieee} on cluster 0x${cluster.toString(16)}`));
      }, this.#answerMs);
      this.#answers.push({ nwk, cluster, tsn, resolve, timer });
    });
    answered.catch(() => {});
    const zcl = encodeZcl({ kind, fromServer: false, disableDefaultResponse: true, tsn, command, payload });
    await this.#adapter.send(d, cluster, zcl);
    return answered;
  }

  async read(d: Destination, cluster: number, attrs: number[]): Promise<AttrRecord[]> {
    const f = await this.#global(d, cluster, Global.READ, encodeRead(attrs));
    return f.command === Global.READ_RSP ? decodeReadRsp(f.payload) : [];
  }

  /** Writes attributes and waits for the device's answer; throws when it refused any. */
  async write(d: Destination, cluster: number, records: AttrRecord[]): Promise<void> {
    const f = await this.#global(d, cluster, Global.WRITE, encodeWrite(records));
    if (f.command !== Global.WRITE_RSP || !writeSucceeded(f.payload))
      throw new Error(`${d.ieee} refused the attribute write on cluster 0x${cluster.toString(16)}`);
  }

  async configureReporting(d: Destination, cluster: number, configs: ReportingConfig[]): Promise<void> {
    await this.#global(d, cluster, Global.CONFIGURE_REPORTING, encodeConfigureReporting(configs));
  }

  close(): void {
    for (const a of this.#answers.splice(0)) clearTimeout(a.timer);
  }
}

export { decodeZcl, HEARTH_ENDPOINT };
