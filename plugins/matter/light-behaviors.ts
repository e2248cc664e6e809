/**
 * The cluster servers of a bridged light. A command from a controller becomes a Hearth light command
 * (the lighting plugin's `setLightState`: the site API's coalescing, deadline and history); only once
 * Hearth took it does the Matter state move, so a refused command leaves the attributes as they were and
 * the controller gets the status of the failure (docs/matter.md#commands-both-ways-on-the-paths-every-client-uses).
 */
import { ColorControlServer } from '@matter/main/behaviors/color-control';
import { LevelControlServer } from '@matter/main/behaviors/level-control';
import { OnOffServer } from '@matter/main/behaviors/on-off';
import { ColorControl } from '@matter/main/clusters/color-control';
import { LevelControl } from '@matter/main/clusters/level-control';
import type { LightStateRequest } from '../lighting/types.ts';
import {
  levelToBri,
  matterEnhancedHueToDegrees,
  matterHueToDegrees,
  matterSatToPercent,
  matterToXy,
  transitionSeconds,
} from './convert.ts';

/** Sends a light command to Hearth for the light an endpoint stands for; throws a Matter status error. */
export type Commander = (endpointId: string, request: LightStateRequest | 'on') => Promise<void>;

/** One commander per bridge, found by the endpoint's owner node id (set when the bridge starts). */
const commanders = new Map<string, Commander>();
export const setCommander = (nodeId: string, c: Commander | null): void => {
  if (c) commanders.set(nodeId, c);
  else commanders.delete(nodeId);
};

interface HasEndpoint {
  endpoint: { id: string; owner?: unknown };
}

function send(b: HasEndpoint, request: LightStateRequest | 'on'): Promise<void> {
  // The endpoint's id is `<nodeId>:<light id>` so the bridge and the light are known without a lookup table.
  const [nodeId, lightId] = splitId(b.endpoint.id);
  const c = commanders.get(nodeId);
  if (!c) return Promise.reject(new Error('bridge stopped'));
  return c(lightId, request);
}

export const endpointId = (nodeId: string, id: string): string => `${nodeId}-${id}`;
const splitId = (id: string): [string, string] => {
  const cut = id.indexOf('-');
  return [id.slice(0, cut), id.slice(cut + 1)];
};

/*
 * Each handler changes only its own cluster's state (locked for the command). The light's other attributes
 * follow from Hearth's confirmation (`MatterBridge.lightChanged`), which may arrive while the command is
 * still being answered: touching another cluster here would contend for its lock.
 */

/**
 * The one way a Matter command becomes a Hearth command: the request with Matter's TransitionTime
 * (tenths of a second, null for the device's default) as Hearth's `transition` in seconds.
 */
function command(b: HasEndpoint, request: LightStateRequest, transitionTime: number | null): Promise<void> {
  const transition = transitionSeconds(transitionTime);
  return send(b, transition === undefined ? request : { ...request, transition });
}

/**
 * A colour command keeps the light's on/off and level (Hearth's command carries them; Matter's does not):
 * a light that is off takes the colour for when it is switched on (Matter 1.3 §3.2.8, "ExecuteIfOff").
 */
function colourCommand(
  b: ColorControlServer,
  colour: Pick<LightStateRequest, 'ct' | 'xy' | 'hue' | 'sat'>,
  transitionTime: number,
): Promise<void> {
  return command(b, { ...levelOf(b), ...colour }, transitionTime);
}

function levelOf(b: ColorControlServer): { on: boolean; bri?: number } {
  if (!b.agent.get(HearthOnOffServer).state.onOff) return { on: false };
  const level = b.agent.get(HearthLevelControlServer).state.currentLevel;
  return level === null ? { on: true } : { on: true, bri: levelToBri(level) };
}

/** What both colour servers keep of a colour temperature (the ColorTemperature feature's attributes). */
interface ColourTemperatureState {
  colorTempPhysicalMinMireds: number;
  colorTempPhysicalMaxMireds: number;
  colorTemperatureMireds: number;
  colorMode: ColorControl.ColorMode;
  enhancedColorMode: ColorControl.EnhancedColorMode;
}

/** MoveToColorTemperature on either colour server: clamped to the light's range, then Hearth's `ct`. */
async function moveToColourTemperature(
  b: ColorControlServer & { state: ColourTemperatureState },
  targetMireds: number,
  transitionTime: number,
): Promise<void> {
  const mireds = Math.min(
    b.state.colorTempPhysicalMaxMireds,
    Math.max(b.state.colorTempPhysicalMinMireds, targetMireds),
  );
  await colourCommand(b, { ct: mireds }, transitionTime);
  b.state.colorTemperatureMireds = mireds;
  setMode(b, ColorControl.ColorMode.ColorTemperatureMireds);
}

/** ColorMode and EnhancedColorMode say the same for every mode but enhanced hue, which Hearth does not keep. */
function setMode(b: { state: ColourTemperatureState }, mode: ColorControl.ColorMode): void {
  b.state.colorMode = mode;
  b.state.enhancedColorMode = mode as number as ColorControl.EnhancedColorMode;
}

export class HearthOnOffServer extends OnOffServer.with('Lighting') {
  override async on(): Promise<void> {
    await send(this, 'on');
    this.state.onOff = true;
  }

  override async off(): Promise<void> {
    await send(this, { on: false });
    this.state.onOff = false;
  }
}

/** Whether the light is on in Matter's eyes (the OnOff cluster on the same endpoint). */
function isOn(b: LevelControlServer): boolean {
  return b.agent.get(HearthOnOffServer).state.onOff;
}

export class HearthLevelControlServer extends LevelControlServer.with('OnOff', 'Lighting') {
  override async moveToLevelLogic(
    level: number,
    transitionTime: number | null,
    withOnOff: boolean,
    _options: LevelControl.Options = {},
  ): Promise<void> {
    // spec: without "with on/off" a light that is off keeps its level for later and stays off.
    if (withOnOff || isOn(this)) await command(this, { on: true, bri: levelToBri(level) }, transitionTime);
    this.state.currentLevel = level;
  }

  override stepLogic(
    stepMode: LevelControl.StepMode,
    stepSize: number,
    transitionTime: number | null,
    withOnOff: boolean,
    options: LevelControl.Options = {},
  ): Promise<void> {
    const direction = stepMode === LevelControl.StepMode.Up ? 1 : -1;
    const target = Math.min(this.maxLevel, Math.max(this.minLevel, this.currentLevel + direction * stepSize));
    return this.moveToLevelLogic(target, transitionTime, withOnOff, options);
  }

  override moveLogic(
    moveMode: LevelControl.MoveMode,
    rate: number | null,
    withOnOff: boolean,
    options: LevelControl.Options = {},
  ): Promise<void> {
    // A continuous move becomes one move to the end of the range, taking as long as the rate says.
    const target = moveMode === LevelControl.MoveMode.Up ? this.maxLevel : this.minLevel;
    const perSecond = rate ?? this.state.defaultMoveRate ?? null;
    const tenths = perSecond ? Math.round((Math.abs(target - this.currentLevel) / perSecond) * 10) : null;
    return this.moveToLevelLogic(target, tenths, withOnOff, options);
  }
}

/** Colour temperature only (Color Temperature Light). */
export class HearthColorTemperatureServer extends ColorControlServer.with('ColorTemperature') {
  override moveToColorTemperatureLogic(targetMireds: number, transitionTime: number): Promise<void> {
    return moveToColourTemperature(this, targetMireds, transitionTime);
  }
}

/** xy, hue/saturation and (when the light has it) colour temperature (Extended Color Light). */
export class HearthColorControlServer extends ColorControlServer.with(
  'Xy',
  'ColorTemperature',
  'HueSaturation',
) {
  override async moveToColorLogic(targetX: number, targetY: number, transitionTime: number): Promise<void> {
    await colourCommand(this, { xy: matterToXy(targetX, targetY) }, transitionTime);
    this.state.currentX = targetX;
    this.state.currentY = targetY;
    setMode(this, ColorControl.ColorMode.CurrentXAndCurrentY);
  }

  override moveToColorTemperatureLogic(targetMireds: number, transitionTime: number): Promise<void> {
    return moveToColourTemperature(this, targetMireds, transitionTime);
  }

  override moveToHueAndSaturationLogic(
    targetHue: number,
    targetSaturation: number,
    transitionTime: number,
  ): Promise<void> {
    return this.#hueAndSaturation(matterHueToDegrees(targetHue), targetSaturation, transitionTime, targetHue);
  }

  override moveToEnhancedHueAndSaturationLogic(
    targetEnhancedHue: number,
    targetSaturation: number,
    transitionTime: number,
  ): Promise<void> {
    // CurrentHue (0–254) has no exact value for an enhanced hue: it keeps what it was.
    return this.#hueAndSaturation(
      matterEnhancedHueToDegrees(targetEnhancedHue),
      targetSaturation,
      transitionTime,
    );
  }

  override moveToHueLogic(
    targetHue: number,
    _direction: ColorControl.Direction,
    transitionTime: number,
    isEnhancedHue = false,
  ): Promise<void> {
    return isEnhancedHue
      ? this.moveToEnhancedHueAndSaturationLogic(targetHue, this.state.currentSaturation, transitionTime)
      : this.moveToHueAndSaturationLogic(targetHue, this.state.currentSaturation, transitionTime);
  }

  override moveToSaturationLogic(targetSaturation: number, transitionTime: number): Promise<void> {
    return this.moveToHueAndSaturationLogic(this.state.currentHue, targetSaturation, transitionTime);
  }

  /** Hue (in degrees) and saturation to Hearth's `hue`/`sat`; `currentHue` set when the hue was Matter's 0–254. */
  async #hueAndSaturation(
    degrees: number,
    saturation: number,
    transitionTime: number,
    currentHue?: number,
  ): Promise<void> {
    await colourCommand(this, { hue: degrees, sat: matterSatToPercent(saturation) }, transitionTime);
    if (currentHue !== undefined) this.state.currentHue = currentHue;
    this.state.currentSaturation = saturation;
    setMode(this, ColorControl.ColorMode.CurrentHueAndCurrentSaturation);
  }
}
