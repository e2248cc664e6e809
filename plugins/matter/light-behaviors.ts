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
    if (withOnOff || isOn(this)) {
      const transition = transitionSeconds(transitionTime);
      await send(this, {
        on: true,
        bri: levelToBri(level),
        ...(transition === undefined ? {} : { transition }),
      });
    }
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
  override async moveToColorTemperatureLogic(targetMireds: number, transitionTime: number): Promise<void> {
    const mireds = Math.min(
      this.state.colorTempPhysicalMaxMireds,
      Math.max(this.state.colorTempPhysicalMinMireds, targetMireds),
    );
    await send(this, { ...levelOf(this), ct: mireds, ...optTransition(transitionTime) });
    this.state.colorTemperatureMireds = mireds;
    this.state.colorMode = ColorControl.ColorMode.ColorTemperatureMireds;
    this.state.enhancedColorMode = ColorControl.EnhancedColorMode.ColorTemperatureMireds;
  }
}

/** xy, hue/saturation and (when the light has it) colour temperature (Extended Color Light). */
export class HearthColorControlServer extends ColorControlServer.with(
  'Xy',
  'ColorTemperature',
  'HueSaturation',
) {
  override async moveToColorLogic(targetX: number, targetY: number, transitionTime: number): Promise<void> {
    await send(this, {
      ...levelOf(this),
      xy: matterToXy(targetX, targetY),
      ...optTransition(transitionTime),
    });
    this.state.currentX = targetX;
    this.state.currentY = targetY;
    this.#mode(ColorControl.ColorMode.CurrentXAndCurrentY);
  }

  override async moveToColorTemperatureLogic(targetMireds: number, transitionTime: number): Promise<void> {
    const mireds = Math.min(
      this.state.colorTempPhysicalMaxMireds,
      Math.max(this.state.colorTempPhysicalMinMireds, targetMireds),
    );
    await send(this, { ...levelOf(this), ct: mireds, ...optTransition(transitionTime) });
    this.state.colorTemperatureMireds = mireds;
    this.#mode(ColorControl.ColorMode.ColorTemperatureMireds);
  }

  override async moveToHueAndSaturationLogic(
    targetHue: number,
    targetSaturation: number,
    transitionTime: number,
  ): Promise<void> {
    await send(this, {
      ...levelOf(this),
      hue: matterHueToDegrees(targetHue),
      sat: matterSatToPercent(targetSaturation),
      ...optTransition(transitionTime),
    });
    this.state.currentHue = targetHue;
    this.state.currentSaturation = targetSaturation;
    this.#mode(ColorControl.ColorMode.CurrentHueAndCurrentSaturation);
  }

  override async moveToEnhancedHueAndSaturationLogic(
    targetEnhancedHue: number,
    targetSaturation: number,
    transitionTime: number,
  ): Promise<void> {
    await send(this, {
      ...levelOf(this),
      hue: matterEnhancedHueToDegrees(targetEnhancedHue),
      sat: matterSatToPercent(targetSaturation),
      ...optTransition(transitionTime),
    });
    this.state.currentSaturation = targetSaturation;
    this.#mode(ColorControl.ColorMode.CurrentHueAndCurrentSaturation);
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

  #mode(mode: ColorControl.ColorMode): void {
    this.state.colorMode = mode;
    this.state.enhancedColorMode = mode as number as ColorControl.EnhancedColorMode;
  }
}

const optTransition = (tenths: number): { transition?: number } => {
  const s = transitionSeconds(tenths);
  return s === undefined ? {} : { transition: s };
};

/**
 * A colour command keeps the light's on/off and level (Hearth's command carries them; Matter's does not):
 * a light that is off takes the colour for when it is switched on (Matter 1.3 §3.2.8, "ExecuteIfOff").
 */
function levelOf(b: ColorControlServer): { on: boolean; bri?: number } {
  if (!b.agent.get(HearthOnOffServer).state.onOff) return { on: false };
  const level = b.agent.get(HearthLevelControlServer).state.currentLevel;
  return level === null ? { on: true } : { on: true, bri: levelToBri(level) };
}
