/** The clusters, attributes and commands the driver uses (ZCL r7, chapters 3 to 8). */

export const Cluster = {
  BASIC: 0x0000,
  POWER_CFG: 0x0001,
  IDENTIFY: 0x0003,
  GROUPS: 0x0004,
  SCENES: 0x0005,
  ON_OFF: 0x0006,
  LEVEL: 0x0008,
  MULTISTATE_INPUT: 0x0012,
  COLOR: 0x0300,
  ILLUMINANCE: 0x0400,
  TEMPERATURE: 0x0402,
  PRESSURE: 0x0403,
  HUMIDITY: 0x0405,
  OCCUPANCY: 0x0406,
  IAS_ZONE: 0x0500,
} as const;

export const Attr = {
  BASIC_MANUFACTURER: 0x0004,
  BASIC_MODEL: 0x0005,
  /** Power configuration: battery voltage in 100 mV, remaining percentage in half percent (ZCL r7 §3.3.2.2.3). */
  BATTERY_VOLTAGE: 0x0020,
  BATTERY_PERCENT: 0x0021,
  /** Multistate input `PresentValue` (ZCL r7 §3.14.8). */
  PRESENT_VALUE: 0x0055,
  /** Every measurement cluster's `MeasuredValue` (ZCL r7 §4.2 to §4.7). */
  MEASURED_VALUE: 0x0000,
  ON_OFF: 0x0000,
  LEVEL_CURRENT: 0x0000,
  COLOR_X: 0x0003,
  COLOR_Y: 0x0004,
  COLOR_TEMP: 0x0007,
  COLOR_MODE: 0x0008,
  COLOR_CAPABILITIES: 0x400a,
  COLOR_TEMP_MIN: 0x400b,
  COLOR_TEMP_MAX: 0x400c,
  OCCUPANCY: 0x0000,
  IAS_ZONE_STATE: 0x0000,
  IAS_ZONE_TYPE: 0x0001,
  IAS_ZONE_STATUS: 0x0002,
  IAS_CIE_ADDRESS: 0x0010,
  IAS_ZONE_ID: 0x0011,
} as const;

/** Profile-wide commands (ZCL r7 §2.5). */
export const Global = {
  READ: 0x00,
  READ_RSP: 0x01,
  WRITE: 0x02,
  WRITE_RSP: 0x04,
  CONFIGURE_REPORTING: 0x06,
  CONFIGURE_REPORTING_RSP: 0x07,
  REPORT: 0x0a,
  DEFAULT_RSP: 0x0b,
} as const;

export const OnOffCmd = { OFF: 0x00, ON: 0x01, TOGGLE: 0x02 } as const;
export const LevelCmd = {
  MOVE_TO_LEVEL: 0x00,
  MOVE: 0x01,
  STEP: 0x02,
  STOP: 0x03,
  MOVE_TO_LEVEL_ON_OFF: 0x04,
  MOVE_ON_OFF: 0x05,
  STEP_ON_OFF: 0x06,
  STOP_ON_OFF: 0x07,
} as const;
export const ColorCmd = { MOVE_TO_XY: 0x07, MOVE_TO_COLOR_TEMP: 0x0a } as const;
export const ScenesCmd = { RECALL: 0x05 } as const;
/** Groups cluster (ZCL r7 §3.6.2.3): requests, and the same ids for their responses. */
export const GroupsCmd = { ADD: 0x00, REMOVE: 0x03 } as const;
/** Groups and Scenes status codes a response can carry (ZCL r7 §2.6.3). */
export const ZclStatus = {
  SUCCESS: 0x00,
  INSUFFICIENT_SPACE: 0x89,
  DUPLICATE_EXISTS: 0x8a,
  NOT_FOUND: 0x8b,
} as const;
/**
 * IAS Zone (ZCL r7 §8.2.2): the device (server) sends status changes (0x00) and enroll requests (0x01);
 * the CIE (client) answers an enroll request, or sends one unasked, with an enroll response (0x00).
 */
export const IasZoneCmd = { STATUS_CHANGE: 0x00, ENROLL_REQUEST: 0x01, ENROLL_RESPONSE: 0x00 } as const;
/** IAS zone types Hearth names events for (ZCL r7 §8.2.2.2.1.2). */
export const IasZoneType = { MOTION: 0x000d, CONTACT: 0x0015, WATER: 0x002a } as const;

/** Home Automation profile; endpoint 1 of the coordinator speaks it. */
export const HA_PROFILE = 0x0104;
