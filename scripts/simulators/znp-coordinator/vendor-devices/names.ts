/** The vendor twins' names (kept apart so devices.ts can name them without importing the twins). */
export type VendorDeviceName =
  | 'aqaraMiniSwitch'
  | 'aqaraWallSwitch'
  | 'aqaraMotion'
  | 'aqaraContact'
  | 'aqaraWeather'
  | 'ikeaRemote'
  | 'ikeaOnOff'
  | 'ikeaStyrbar'
  | 'ikeaShortcut'
  | 'ikeaBulb';
