/**
 * One Matter bridge: a matter.js server node for one site, an Aggregator with one bridged endpoint per
 * light and sensor of the site, its commissioning window and its fabrics (docs/matter.md).
 */
import { Endpoint, Environment, ServerNode, VendorId } from '@matter/main';
import { ActionsServer } from '@matter/main/behaviors/actions';
import { BridgedDeviceBasicInformationServer } from '@matter/main/behaviors/bridged-device-basic-information';
import { AggregatorEndpoint } from '@matter/main/endpoints/aggregator';
import { DeviceCommissioner, FabricManager } from '@matter/main/protocol';
import { Status, StatusResponseError } from '@matter/main/types';
import type { Logger } from 'pino';
import { type DocStore, VERSION } from '../../core/sdk.ts';
import type { SensorReadings } from '../../drivers/lighting/index.ts';
import type { LightingExports, LightStateRequest, LightView, SensorView } from '../lighting/types.ts';
import { endpointId, setCommander } from './light-behaviors.ts';
import { label, lightAttributes, lightEndpoint, lightKind, lightShape } from './light-endpoints.ts';
import {
  MEASURED_READINGS,
  type MeasuredReading,
  measuredReadings,
  readingEndpoint,
  readingKey,
  setReading,
} from './reading-endpoints.ts';
import { roomLists } from './rooms.ts';
import { type SensorPusher, type SensorShape, sensorEndpoint, sensorShape } from './sensor-endpoints.ts';
import { type NodeDoc, useHearthStorage } from './storage.ts';

/** Hearth's vendor id while it has none of its own: the CSA's test vendor 0xFFF1 (docs/matter.md#vendor-and-product-ids). */
const VENDOR_ID = 0xfff1;
const PRODUCT_ID = 0x8001;
/** Hearth's version as Matter's 32-bit SoftwareVersion: major·10000 + minor·100 + patch. */
const SOFTWARE_VERSION = VERSION.split(/[.-]/)
  .slice(0, 3)
  .reduce((n, part, i) => n + (Number(part) || 0) * [10000, 100, 1][i]!, 0);

export interface BridgeOptions {
  siteId: string;
  siteName: string;
  port: number;
  listen: string;
  windowSeconds: number;
  passcode: number;
  discriminator: number;
  plugs: ReadonlySet<string>;
  lighting: LightingExports;
  doc: DocStore<NodeDoc>;
  log: Logger;
}

export interface FabricView {
  fabricIndex: number;
  vendorId: number;
  label: string;
}

/** The admin API's bridge object (README "Admin API"). */
export interface BridgeView {
  site: string;
  port: number;
  commissioned: boolean;
  manualPairingCode: string | null;
  qrPayload: string | null;
  windowOpenUntil: string | null;
  fabrics: FabricView[];
}

interface Bridged {
  endpoint: Endpoint;
  /** What the endpoint was built for: a change of it means a new endpoint. */
  shape: string;
  name: string;
  kind: 'light' | 'sensor';
  sensor?: SensorPusher;
  /** On a measurement's endpoint: which reading it shows. */
  reading?: MeasuredReading;
}

export class MatterBridge {
  readonly siteId: string;
  readonly #o: BridgeOptions;
  #node!: ServerNode;
  #aggregator!: Endpoint;
  readonly #bridged = new Map<string, Bridged>();
  #windowUntil: Date | null = null;
  #windowTimer: NodeJS.Timeout | null = null;
  /** One callback for the life of the bridge: matter.js refuses a second one while a window is open. */
  readonly #onWindowEnd = () => this.#windowEnded();
  #syncing: Promise<void> = Promise.resolve();
  /** Set from the last fabric's removal until matter.js has reset the node and it is online again. */
  #reset: Promise<void> | null = null;

  constructor(o: BridgeOptions) {
    this.#o = o;
    this.siteId = o.siteId;
  }

  async start(): Promise<void> {
    const env = new Environment(`hearth-${this.siteId}`, Environment.default);
    useHearthStorage(env, this.#o.doc);
    const ipv6Only = this.#o.listen.includes(':') && this.#o.listen !== '::';
    this.#node = await ServerNode.create({
      id: this.siteId,
      environment: env,
      network: {
        port: this.#o.port,
        ...(this.#o.listen ? { listeningAddressIpv6: this.#o.listen } : {}),
        ipv4: !ipv6Only,
      },
      // Hearth opens the window itself (POST /admin/matter/:site/window): never at start, never forever.
      commissioning: { passcode: this.#o.passcode, discriminator: this.#o.discriminator, enabled: false },
      productDescription: {
        name: label(`Hearth ${this.#o.siteName}`),
        deviceType: AggregatorEndpoint.deviceType,
      },
      basicInformation: {
        vendorName: 'Hearth',
        vendorId: VendorId(VENDOR_ID),
        productName: 'Hearth bridge',
        productLabel: 'Bridge',
        productId: PRODUCT_ID,
        nodeLabel: label(this.#o.siteName),
        hardwareVersion: 1,
        hardwareVersionString: '1',
        softwareVersion: SOFTWARE_VERSION,
        softwareVersionString: VERSION,
        serialNumber: this.siteId.slice(0, 32),
        uniqueId: `hearth-${this.siteId}`.slice(0, 32),
      },
    });
    // The Actions cluster carries only the rooms (rooms.ts): no actions.
    this.#aggregator = new Endpoint(AggregatorEndpoint.with(ActionsServer), {
      id: 'lights',
      actions: { actionList: [], endpointLists: [] },
    });
    await this.#node.add(this.#aggregator);
    this.#node.lifecycle.decommissioned.on(() => this.#resetting());
    setCommander(this.siteId, (lightId, request) => this.#command(lightId, request));
    await this.sync();
    await this.#node.start();
    // Endpoint numbers are certain only once the node runs: the Room lists name endpoints by number.
    await this.sync();
  }

  async stop(): Promise<void> {
    this.#clearWindowTimer();
    setCommander(this.siteId, null);
    await this.#syncing.catch(() => {});
    await this.#node?.close();
  }

  get port(): number {
    const p = this.#node.state.network.operationalPort;
    return p > 0 ? p : this.#o.port;
  }

  // ---- Hearth → Matter ----

  /** Brings the endpoints in line with the site's lights and sensors (added, removed, renamed, changed). */
  sync(): Promise<void> {
    this.#syncing = this.#syncing
      .then(() => this.#sync())
      .catch((err: unknown) => {
        this.#o.log.error({ err, site: this.siteId }, 'Matter bridge not in step with the site');
      });
    return this.#syncing;
  }

  async #sync(): Promise<void> {
    const lights = this.#o.lighting.lights(this.siteId).filter((l) => !l.new);
    const sensors = this.#o.lighting.sensors(this.siteId).filter((s) => !s.new);
    const wanted = new Map<
      string,
      { shape: string; make: () => Bridged | null; name: string; view: LightView | SensorView }
    >();
    for (const l of lights) {
      const kind = lightKind(l, this.#o.plugs);
      wanted.set(l._id, {
        shape: lightShape(l, this.#o.plugs),
        name: l.name,
        view: l,
        make: () => ({
          endpoint: lightEndpoint(this.siteId, l, kind, this.#reachable(l._id)),
          shape: lightShape(l, this.#o.plugs),
          name: l.name,
          kind: 'light',
        }),
      });
    }
    for (const s of sensors) {
      for (const [reading, value] of measuredReadings(s)) {
        const key = readingKey(s._id, reading);
        wanted.set(key, {
          shape: reading,
          name: s.name,
          view: s,
          make: () => ({
            endpoint: readingEndpoint(
              endpointId(this.siteId, key),
              s,
              reading,
              value,
              this.#reachable(s._id),
            ),
            shape: reading,
            name: s.name,
            kind: 'sensor',
            reading,
          }),
        });
      }
      const shape: SensorShape | null = sensorShape(s);
      if (!shape) continue;
      wanted.set(s._id, {
        shape: shape.key,
        name: s.name,
        view: s,
        make: () => {
          const made = sensorEndpoint(endpointId(this.siteId, s._id), s, shape, this.#reachable(s._id));
          return {
            endpoint: made.endpoint,
            shape: shape.key,
            name: s.name,
            kind: 'sensor',
            sensor: made.push,
          };
        },
      });
    }
    for (const [id, b] of this.#bridged) {
      const w = wanted.get(id);
      if (!w || w.shape !== b.shape) {
        this.#bridged.delete(id);
        await b.endpoint.delete();
      }
    }
    for (const [id, w] of wanted) {
      const had = this.#bridged.get(id);
      if (!had) {
        // One device matter.js refuses must not keep the others out: it is logged and tried again next time.
        try {
          const b = w.make();
          if (!b) continue;
          await this.#aggregator.add(b.endpoint);
          this.#bridged.set(id, b);
        } catch (err) {
          this.#o.log.error({ err, site: this.siteId, device: id }, 'device not added to the Matter bridge');
        }
      } else if (had.name !== w.name) {
        had.name = w.name;
        await had.endpoint.setStateOf(BridgedDeviceBasicInformationServer, { nodeLabel: label(w.name) });
      }
    }
    await this.#syncRooms();
  }

  /** The site's groups as the Aggregator's Room lists (rooms.ts), written only when they changed. */
  async #syncRooms(): Promise<void> {
    const lists = roomLists(this.#o.lighting.groups(this.siteId), (id) => {
      const b = this.#bridged.get(id);
      return b?.kind === 'light' ? b.endpoint.maybeNumber : undefined;
    });
    const now = this.#aggregator.stateOf(ActionsServer).endpointLists;
    if (JSON.stringify(now) !== JSON.stringify(lists))
      await this.#aggregator.setStateOf(ActionsServer, { endpointLists: lists });
  }

  /** A light's confirmed state changed in Hearth (any client, any driver). */
  async lightChanged(lightId: string): Promise<void> {
    const b = this.#bridged.get(lightId);
    if (b?.kind !== 'light') return;
    const light = this.#o.lighting.lights(this.siteId).find((l) => l._id === lightId);
    if (!light) return;
    await b.endpoint.set(lightAttributes(light, lightKind(light, this.#o.plugs)));
  }

  async sensorEvent(sensorId: string, event: string): Promise<void> {
    const b = this.#bridged.get(sensorId);
    await b?.sensor?.(event);
  }

  /**
   * A sensor's readings changed: its measurement endpoints take the new values; a reading it never had
   * before gets its endpoint (a sync, which reads the value from Hearth).
   */
  async sensorReadings(sensorId: string, readings: SensorReadings): Promise<void> {
    let missing = false;
    for (const reading of MEASURED_READINGS) {
      const value = readings[reading];
      if (typeof value !== 'number') continue;
      const b = this.#bridged.get(readingKey(sensorId, reading));
      if (b?.reading) await setReading(b.endpoint, b.reading, value);
      else missing = true;
    }
    if (missing) await this.sync();
  }

  /** Driver links went up or down: every endpoint's `reachable` follows its own driver's. */
  async reachabilityChanged(): Promise<void> {
    for (const [id, b] of this.#bridged) {
      // A measurement's endpoint follows its sensor's link (its key is `<sensor id>-<suffix>`).
      const reachable = this.#reachable(b.reading ? id.slice(0, id.lastIndexOf('-')) : id);
      if (b.endpoint.stateOf(BridgedDeviceBasicInformationServer).reachable !== reachable) {
        await b.endpoint.setStateOf(BridgedDeviceBasicInformationServer, { reachable });
      }
    }
  }

  #reachable(id: string): boolean {
    return this.#o.lighting.reachable(this.siteId, id);
  }

  // ---- Matter → Hearth ----

  async #command(lightId: string, request: LightStateRequest | 'on'): Promise<void> {
    // Matter 1.3 §9.13.5: a bridged device that is not reachable cannot act; the controller shows it as
    // not responding. Nothing is queued in Hearth for a link that is down.
    if (!this.#reachable(lightId))
      throw new StatusResponseError(`light ${lightId} is not reachable`, Status.Failure);
    try {
      await this.#o.lighting.setLightState(this.siteId, lightId, request);
    } catch (err) {
      this.#o.log.info({ err, site: this.siteId, light: lightId }, 'Matter command refused');
      throw matterStatus(err, lightId);
    }
  }

  // ---- commissioning ----

  /**
   * The last fabric is gone: matter.js erases the node's state (fabrics, ACLs, sessions; the Matter 1.3
   * §13.4 factory reset) and starts it again, with its endpoints, the same passcode and no window open
   * (docs/matter.md#when-the-last-controller-leaves). Until it is back and in step with the site again, a
   * window waits for it.
   */
  #resetting(): void {
    this.#windowEnded();
    this.#o.log.info({ site: this.siteId }, 'Matter bridge has no controller left: resetting it');
    const reset: Promise<void> = new Promise<void>((resolve) => {
      const back = () => {
        this.#node.lifecycle.online.off(back);
        // While matter.js rebuilt the node its aggregator refused new endpoints: a light added or removed in
        // Hearth meanwhile reaches it now, before a window opens for a controller to read the parts list.
        void this.sync().then(() => {
          if (this.#reset === reset) this.#reset = null;
          this.#o.log.info({ site: this.siteId }, 'Matter bridge reset: ready to be paired again');
          resolve();
        });
      };
      this.#node.lifecycle.online.on(back);
    });
    this.#reset = reset;
  }

  /** Opens the commissioning window, or keeps an open one open for another full period. */
  async openWindow(): Promise<void> {
    if (this.#reset) await withTimeout(this.#reset, RESET_WAIT_MS);
    const commissioner = this.#node.env.get(DeviceCommissioner);
    await commissioner.allowBasicCommissioning(this.#onWindowEnd);
    this.#clearWindowTimer();
    const ms = this.#o.windowSeconds * 1000;
    this.#windowUntil = new Date(Date.now() + ms);
    this.#windowTimer = setTimeout(() => void this.closeWindow(), ms);
    this.#windowTimer.unref();
    this.#o.log.info(
      { site: this.siteId, until: this.#windowUntil.toISOString() },
      'Matter commissioning window open',
    );
  }

  async closeWindow(): Promise<void> {
    this.#clearWindowTimer();
    await this.#node.env.get(DeviceCommissioner).endCommissioning();
    this.#windowEnded();
  }

  #windowEnded(): void {
    if (this.#windowUntil) this.#o.log.info({ site: this.siteId }, 'Matter commissioning window closed');
    this.#clearWindowTimer();
    this.#windowUntil = null;
  }

  #clearWindowTimer(): void {
    if (this.#windowTimer) clearTimeout(this.#windowTimer);
    this.#windowTimer = null;
  }

  fabrics(): FabricView[] {
    return this.#node.env.get(FabricManager).fabrics.map((f) => ({
      fabricIndex: f.fabricIndex,
      vendorId: f.rootVendorId,
      label: f.label,
    }));
  }

  /** Removes a fabric as a controller's RemoveFabric would; false when there is no such fabric. */
  async removeFabric(fabricIndex: number): Promise<boolean> {
    const fabric = this.#node.env.get(FabricManager).fabrics.find((f) => f.fabricIndex === fabricIndex);
    if (!fabric) return false;
    await fabric.delete();
    return true;
  }

  /** The bridge's pairing codes, for the log redactor: they carry the passcode. */
  codes(): string[] {
    const c = this.#node.state.commissioning.pairingCodes;
    return [c.manualPairingCode, c.qrPairingCode];
  }

  view(): BridgeView {
    const open = this.#windowUntil !== null;
    const codes = this.#node.state.commissioning.pairingCodes;
    return {
      site: this.siteId,
      port: this.port,
      commissioned: this.fabrics().length > 0,
      manualPairingCode: open ? codes.manualPairingCode : null,
      qrPayload: open ? codes.qrPairingCode : null,
      windowOpenUntil: this.#windowUntil?.toISOString() ?? null,
      fabrics: this.fabrics(),
    };
  }
}

/** How long a window asked for during the reset waits for the node (matter.js takes about a second). */
const RESET_WAIT_MS = 30_000;

const withTimeout = (p: Promise<void>, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([p, elapsed]).finally(() => clearTimeout(timer));
};

/**
 * A refused Hearth command as the Matter status a controller expects: an unknown light is NotFound, a light
 * whose link is down or that did not answer is Failure / Timeout, a value it cannot show is ConstraintError.
 */
function matterStatus(err: unknown, lightId: string): StatusResponseError {
  const status = (err as { status?: number }).status;
  const code =
    status === 404
      ? Status.NotFound
      : status === 400 || status === 409
        ? Status.ConstraintError
        : status === 504
          ? Status.Timeout
          : Status.Failure;
  return new StatusResponseError(`light ${lightId}: ${(err as Error).message ?? 'refused'}`, code);
}
