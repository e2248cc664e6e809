/**
 * A sensor's measurements as Matter sensors: temperature, humidity and illuminance each as a bridged
 * endpoint of its own (Temperature Sensor 0x0302, Humidity Sensor 0x0307, Light Sensor 0x0106), made when
 * the sensor has reported that reading and updated with every new value (docs/matter.md#what-controllers-see).
 */
import { Endpoint } from '@matter/main';
import { BridgedDeviceBasicInformationServer } from '@matter/main/behaviors/bridged-device-basic-information';
import { IlluminanceMeasurementServer } from '@matter/main/behaviors/illuminance-measurement';
import { RelativeHumidityMeasurementServer } from '@matter/main/behaviors/relative-humidity-measurement';
import { TemperatureMeasurementServer } from '@matter/main/behaviors/temperature-measurement';
import { HumiditySensorDevice } from '@matter/main/devices/humidity-sensor';
import { LightSensorDevice } from '@matter/main/devices/light-sensor';
import { TemperatureSensorDevice } from '@matter/main/devices/temperature-sensor';
import type { SensorReadings } from '../../drivers/lighting/index.ts';
import type { SensorView } from '../lighting/types.ts';
import { celsiusToMatter, humidityToMatter, luxToMatter } from './convert.ts';
import { label } from './light-endpoints.ts';

export type MeasuredReading = 'temperature' | 'humidity' | 'illuminance';

/**
 * Each reading's endpoint: its id suffix (the bridged device's uniqueId is `<sensor id>-<suffix>`, within
 * Matter's 32 characters) and the Matter value.
 */
export const MEASURED: Record<MeasuredReading, { suffix: string; toMatter: (v: number) => number }> = {
  temperature: { suffix: 't', toMatter: celsiusToMatter },
  humidity: { suffix: 'h', toMatter: humidityToMatter },
  illuminance: { suffix: 'l', toMatter: luxToMatter },
};

export const MEASURED_READINGS = Object.keys(MEASURED) as MeasuredReading[];

/** The readings of a sensor Matter has a sensor for, with their current values. */
export function measuredReadings(s: SensorView): Array<[MeasuredReading, number]> {
  const readings = s.readings as SensorReadings | undefined;
  if (!readings) return [];
  return MEASURED_READINGS.flatMap((r) => {
    const v = readings[r];
    return typeof v === 'number' && Number.isFinite(v) ? [[r, v] as [MeasuredReading, number]] : [];
  });
}

export const readingKey = (sensorId: string, r: MeasuredReading): string =>
  `${sensorId}-${MEASURED[r].suffix}`;

export function readingEndpoint(
  id: string,
  s: SensorView,
  reading: MeasuredReading,
  value: number,
  reachable: boolean,
): Endpoint {
  const bridged = {
    id,
    bridgedDeviceBasicInformation: {
      nodeLabel: label(s.name),
      productLabel: label(`${s.vendor} ${reading} sensor`),
      vendorName: 'Hearth',
      reachable,
      uniqueId: readingKey(s._id, reading),
    },
  };
  const measuredValue = MEASURED[reading].toMatter(value);
  // Min/max unknown (null): Hearth does not know a sensor's range (Matter 1.3 §2.3.4.2 allows null).
  const range = { measuredValue, minMeasuredValue: null, maxMeasuredValue: null };
  switch (reading) {
    case 'temperature':
      return new Endpoint(
        TemperatureSensorDevice.with(BridgedDeviceBasicInformationServer, TemperatureMeasurementServer),
        { ...bridged, temperatureMeasurement: range },
      );
    case 'humidity':
      return new Endpoint(
        HumiditySensorDevice.with(BridgedDeviceBasicInformationServer, RelativeHumidityMeasurementServer),
        { ...bridged, relativeHumidityMeasurement: range },
      );
    case 'illuminance':
      return new Endpoint(
        LightSensorDevice.with(BridgedDeviceBasicInformationServer, IlluminanceMeasurementServer),
        { ...bridged, illuminanceMeasurement: range },
      );
  }
}

/** The behaviour (cluster) id each reading's value is in. */
const BEHAVIOR_ID: Record<MeasuredReading, string> = {
  temperature: 'temperatureMeasurement',
  humidity: 'relativeHumidityMeasurement',
  illuminance: 'illuminanceMeasurement',
};

/** Sets a reading's new value on its endpoint. */
export async function setReading(endpoint: Endpoint, reading: MeasuredReading, value: number): Promise<void> {
  await endpoint.setStateOf(BEHAVIOR_ID[reading], { measuredValue: MEASURED[reading].toMatter(value) });
}
