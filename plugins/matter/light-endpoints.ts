/**
 * Which Matter device type a Hearth light is (by what it can show) and the attribute values of its state.
 * Device types and clusters: docs/matter.md#what-controllers-see.
 */
import { Endpoint } from '@matter/main';
import { BridgedDeviceBasicInformationServer } from '@matter/main/behaviors/bridged-device-basic-information';
import { ColorControl } from '@matter/main/clusters/color-control';
import { ColorTemperatureLightDevice } from '@matter/main/devices/color-temperature-light';
import { DimmableLightDevice } from '@matter/main/devices/dimmable-light';
import { ExtendedColorLightDevice } from '@matter/main/devices/extended-color-light';
import { OnOffLightDevice } from '@matter/main/devices/on-off-light';
import { OnOffPlugInUnitDevice } from '@matter/main/devices/on-off-plug-in-unit';
import { WHITE_XY } from '../../drivers/lighting/index.ts';
import type { LightView } from '../lighting/types.ts';
import { briToLevel, xyToMatter } from './convert.ts';
import {
  endpointId,
  HearthColorControlServer,
  HearthColorTemperatureServer,
  HearthLevelControlServer,
  HearthOnOffServer,
} from './light-behaviors.ts';

export type LightKind = 'onoff' | 'plug' | 'dimmable' | 'ct' | 'color';

/** Matter's colour temperature range when a light names none: 2000 K .. 6500 K. */
const DEFAULT_CT = { min: 153, max: 500 };

/**
 * A `binary` light is an On/Off Plug-in Unit when Hearth knows it is a plug (its `plug` field, from the
 * device or set on the light) or the config lists it (`plugins.matter.plugs`, an override).
 */
export function lightKind(light: LightView, plugs: ReadonlySet<string>): LightKind {
  if (light.type === 'binary') return light.plug === true || plugs.has(light._id) ? 'plug' : 'onoff';
  if (light.capabilities?.xy) return 'color';
  if (light.capabilities?.ct) return 'ct';
  return 'dimmable';
}

/** What makes two endpoints of one light interchangeable: same kind and same colour range. */
export const lightShape = (light: LightView, plugs: ReadonlySet<string>): string =>
  `${lightKind(light, plugs)}:${light.capabilities?.ct?.min ?? ''}-${light.capabilities?.ct?.max ?? ''}`;

const bridged = (light: LightView, reachable: boolean) => ({
  bridgedDeviceBasicInformation: {
    nodeLabel: label(light.name),
    productLabel: label(`${light.vendor} light`),
    vendorName: 'Hearth',
    reachable,
    uniqueId: light._id,
  },
});

/** Matter strings are at most 32 characters (BridgedDeviceBasicInformation NodeLabel). */
export const label = (s: string): string => (s.length <= 32 ? s : `${s.slice(0, 31)}…`);

/** The state attributes of a light as Matter shows them. */
export function lightAttributes(light: LightView, kind: LightKind) {
  const onOff = { onOff: light.on };
  if (kind === 'onoff' || kind === 'plug') return { onOff };
  // An off light keeps its last level in Matter: OnOff alone says it is off.
  const levelControl = light.on ? { currentLevel: briToLevel(light.bri) } : {};
  if (kind === 'dimmable') return { onOff, levelControl };
  const colorControl: Record<string, number> = {};
  if (typeof light.ct === 'number') colorControl.colorTemperatureMireds = light.ct;
  if (kind === 'color' && Array.isArray(light.xy)) {
    const [x, y] = xyToMatter(light.xy as [number, number]);
    colorControl.currentX = x;
    colorControl.currentY = y;
  }
  if (light.colormode === 'xy' && kind === 'color') {
    colorControl.colorMode = ColorControl.ColorMode.CurrentXAndCurrentY;
    colorControl.enhancedColorMode = ColorControl.EnhancedColorMode.CurrentXAndCurrentY;
  } else if (light.colormode === 'ct') {
    colorControl.colorMode = ColorControl.ColorMode.ColorTemperatureMireds;
    colorControl.enhancedColorMode = ColorControl.EnhancedColorMode.ColorTemperatureMireds;
  }
  return { onOff, levelControl, colorControl };
}

/** A new bridged endpoint for a light, its state set from Hearth's view. */
export function lightEndpoint(
  nodeId: string,
  light: LightView,
  kind: LightKind,
  reachable: boolean,
): Endpoint {
  const id = endpointId(nodeId, light._id);
  const attrs = lightAttributes(light, kind);
  const level = light.on ? briToLevel(light.bri) : 254;
  const levelControl = { currentLevel: level, minLevel: 1, maxLevel: 254, onLevel: null };
  const ct = light.capabilities?.ct ?? DEFAULT_CT;
  // Until Hearth knows the light's colour it shows white: D65 in xy, the warm end in colour temperature.
  const [whiteX, whiteY] = xyToMatter(WHITE_XY);
  const colour = {
    colorTempPhysicalMinMireds: ct.min,
    colorTempPhysicalMaxMireds: ct.max,
    coupleColorTempToLevelMinMireds: ct.min,
    colorTemperatureMireds: typeof light.ct === 'number' ? light.ct : ct.max,
    startUpColorTemperatureMireds: null,
  };
  switch (kind) {
    case 'onoff':
      return new Endpoint(OnOffLightDevice.with(BridgedDeviceBasicInformationServer, HearthOnOffServer), {
        id,
        ...bridged(light, reachable),
        onOff: attrs.onOff,
      });
    case 'plug':
      return new Endpoint(
        OnOffPlugInUnitDevice.with(BridgedDeviceBasicInformationServer, HearthOnOffServer),
        {
          id,
          ...bridged(light, reachable),
          onOff: attrs.onOff,
        },
      );
    case 'dimmable':
      return new Endpoint(
        DimmableLightDevice.with(
          BridgedDeviceBasicInformationServer,
          HearthOnOffServer,
          HearthLevelControlServer,
        ),
        { id, ...bridged(light, reachable), onOff: attrs.onOff, levelControl },
      );
    case 'ct':
      return new Endpoint(
        ColorTemperatureLightDevice.with(
          BridgedDeviceBasicInformationServer,
          HearthOnOffServer,
          HearthLevelControlServer,
          HearthColorTemperatureServer,
        ),
        {
          id,
          ...bridged(light, reachable),
          onOff: attrs.onOff,
          levelControl,
          colorControl: {
            ...colour,
            colorMode: ColorControl.ColorMode.ColorTemperatureMireds,
            enhancedColorMode: ColorControl.EnhancedColorMode.ColorTemperatureMireds,
          },
        },
      );
    case 'color':
      return new Endpoint(
        ExtendedColorLightDevice.with(
          BridgedDeviceBasicInformationServer,
          HearthOnOffServer,
          HearthLevelControlServer,
          HearthColorControlServer,
        ),
        {
          id,
          ...bridged(light, reachable),
          onOff: attrs.onOff,
          levelControl,
          colorControl: {
            colorMode: ColorControl.ColorMode.CurrentXAndCurrentY,
            enhancedColorMode: ColorControl.EnhancedColorMode.CurrentXAndCurrentY,
            currentX: whiteX,
            currentY: whiteY,
            ...colour,
            ...attrs.colorControl,
          },
        },
      );
  }
}
