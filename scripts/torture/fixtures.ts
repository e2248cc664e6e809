/** Real things to point requests at: a site with a light, scene, group and sensor; a client, user, keys. */

import { request } from './http.ts';
import type { HubProcess } from './hub.ts';
import { clientBody } from './writes.ts';

export interface Fixtures {
  siteid: string;
  sitekey: string;
  light: string;
  light2: string;
  scene: string;
  group: string;
  sensor: string;
  client: string;
  clientSecret: string;
  user: string;
  devkeyId: string;
  devkey: string;
  mqttUser: string;
  mqttPassword: string;
  mqttDevice: string;
}

const ok = (what: string, res: { status: number; text: string }) => {
  if (res.status >= 300) throw new Error(`fixture ${what}: ${res.status} ${res.text.slice(0, 300)}`);
};

export async function siteWithThings(
  h: HubProcess,
  name: string,
): Promise<Pick<Fixtures, 'siteid' | 'sitekey' | 'light' | 'light2' | 'scene' | 'group' | 'sensor'>> {
  const site = await h.admin('POST', '/admin/sites', { name });
  ok('site', site);
  const { siteid, sitekey } = site.body as { siteid: string; sitekey: string };
  const api = `/api/site/${sitekey}`;
  const light = await h.call('main', 'POST', `${api}/light`, {
    name: `${name} lamp`,
    type: 'dimmable',
    vendor: 'virtual',
    virtualid: `${name}-1`,
  });
  ok('light', light);
  const light2 = await h.call('main', 'POST', `${api}/light`, {
    name: `${name} spot`,
    type: 'binary',
    vendor: 'virtual',
    virtualid: `${name}-2`,
  });
  ok('light2', light2);
  const scene = await h.call('main', 'POST', `${api}/scene`, {
    name: `${name} evening`,
    state: [{ _id: light.body._id, on: true, bri: 100 }],
  });
  ok('scene', scene);
  const group = await h.call('main', 'POST', `${api}/light/group`, {
    name: `${name} all`,
    lights: [light.body._id, light2.body._id],
  });
  ok('group', group);
  const sensor = await h.call('main', 'POST', `${api}/sensor`, {
    name: `${name} switch`,
    vendor: 'virtual',
    virtualid: `${name}-s`,
    type: 'button',
    events: ['press'],
  });
  ok('sensor', sensor);
  return {
    siteid,
    sitekey,
    light: light.body._id,
    light2: light2.body._id,
    scene: scene.body._id,
    group: group.body._id,
    sensor: sensor.body._id,
  };
}

export async function fixtures(h: HubProcess): Promise<Fixtures> {
  const site = await siteWithThings(h, 'Fuzz');
  const client = await h.admin('POST', '/admin/clients', clientBody('fuzz client'));
  ok('client', client);
  const user = await h.admin('POST', '/admin/users', {
    email: 'fuzz@example.com',
    name: 'Fuzz',
    password: 'correct horse battery',
    role: 'user',
  });
  ok('user', user);
  const key = await h.call(
    'main',
    'POST',
    '/v2/admin/developer-keys',
    { label: 'fuzz' },
    { authorization: `DeepL-Auth-Key ${h.adminKey}` },
  );
  ok('developer key', key);
  const cred = await h.admin('POST', '/admin/mqtt/credentials', {
    username: 'fuzz-device',
    site: site.siteid,
  });
  ok('mqtt credential', cred);
  const device = await h.admin('POST', '/admin/mqtt/devices', {
    mqttid: 'tasmota:fuzz',
    site: site.siteid,
    kind: 'dimmable',
  });
  ok('mqtt device', device);
  return {
    ...site,
    client: client.body.client_id,
    clientSecret: client.body.client_secret,
    user: user.body.id,
    devkeyId: key.body.key_id,
    devkey: key.body.key,
    mqttUser: 'fuzz-device',
    mqttPassword: cred.body.password,
    mqttDevice: 'tasmota:fuzz',
  };
}

/** A client_credentials token for `clientId`, limited to `siteid`'s resource. */
export async function siteToken(
  h: HubProcess,
  clientId: string,
  secret: string,
  siteid: string,
  scope: string,
): Promise<string> {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString(
    'base64',
  );
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    resource: `urn:hearth:site:${siteid}`,
    scope,
  });
  const tok = await request(`${h.urls.auth}/oauth/token`, {
    method: 'POST',
    raw: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
  });
  ok('token', tok);
  return tok.body.access_token;
}
