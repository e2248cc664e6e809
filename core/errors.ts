/**
 * Errors the core throws at plugins, drivers, the CLI and tests carry a stable `code` (the table in
 * docs/architecture.md#errors-of-the-core): callers branch on the code, never on the message, which may
 * be reworded at any time.
 */
export type KernelErrorCode =
  | 'config_invalid'
  | 'data_dir_locked'
  | 'hub_not_started'
  | 'hub_state'
  | 'hub_final_save_failed'
  | 'plugin_metadata_invalid'
  | 'plugin_required_failed'
  | 'plugin_undeclared'
  | 'plugin_not_running'
  | 'store_closed'
  | 'store_in_use'
  | 'store_bad_name'
  | 'backup_invalid'
  | 'admin_key_too_short'
  | 'listener_exists'
  | 'listener_unknown'
  | 'listener_not_bound'
  | 'admin_route_outside_admin'
  | 'metric_bad_name'
  | 'mqtt_bad_topic'
  | 'mqtt_bad_url'
  | 'mqtt_owner_stopped'
  | 'mqtt_broker_stopped'
  | 'mqtt_subscription_refused'
  | 'secret_unavailable'
  | 'secret_bad_name'
  | 'secrets_key_invalid'
  | 'cli_usage';

export class HearthError extends Error {
  readonly code: KernelErrorCode;

  constructor(code: KernelErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** True when `err` is a core error with this code (plugins use it instead of matching messages). */
export function isKernelError(err: unknown, code?: KernelErrorCode): err is HearthError {
  return err instanceof HearthError && (code === undefined || err.code === code);
}
