/** An upstream credential source (`BrokerProviderView` without `config_data`, which is kept sealed). */
export interface BrokerProvider {
  id: string;
  slug: string;
  display_name: string;
  protocol: string;
  /** The request's `config_data` JSON text exactly as sent, sealed (it may hold the upstream client secret). */
  config_sealed: string;
  created_at: string;
  updated_at: string;
}

/** A user's upstream credentials at one broker provider (one active grant per user and provider). */
export interface BrokerGrant {
  id: string;
  user_id: string;
  broker_provider_id: string;
  scopes_granted: string[];
  /** Incremented on every change of the credentials (connect again, upstream refresh). */
  version: number;
  /** How `credentials_sealed` is encrypted. */
  enc_backend: string;
  /** The credentials, each token sealed with the grant id (and its field) as context; removed on revocation. */
  credentials_sealed?: string;
  created_at: string;
  updated_at: string;
  revoked_at?: string;
}

/** What the upstream token endpoint gave us; never serialised in a response or log. */
export interface UpstreamCredentials {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  /** Epoch ms; absent when the upstream gave no lifetime. */
  expires_at?: number;
}

/** `auth.broker.json`. */
export interface BrokerData {
  providers: Record<string, BrokerProvider>;
  grants: Record<string, BrokerGrant>;
}
