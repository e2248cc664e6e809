import { describe, expect, test } from 'vitest';
import { rawMember } from '../../plugins/auth/broker/raw-json.ts';
import { decodeIssuance, encodeIssuance } from '../../plugins/auth/state/issuance-codec.ts';
import type { Issuance } from '../../plugins/auth/state/model.ts';
import { checkUpstreamUrl, UpstreamError } from '../../plugins/auth/upstream/http.ts';

describe('rawMember: the source text of one member', () => {
  test('finds the value as written, whatever it holds', () => {
    const cases: Array<[string, string | undefined]> = [
      ['{"config_data": {"a" : [1, 2.50, "}\\"]"]}, "x": 1}', '{"a" : [1, 2.50, "}\\"]"]}'],
      ['{ "slug":"s" ,"config_data":123456789012345678901234567890 }', '123456789012345678901234567890'],
      ['{"config_data":"caf\\u00e9","config_data2":1}', '"caf\\u00e9"'],
      ['{"a":{"config_data":1},"config_data":null}', 'null'],
      ['{"config_data":1,"config_data":[true]}', '[true]'], // JSON.parse keeps the last one
      ['{"c\\u006fnfig_data":false}', 'false'], // an escaped key is still that key
      ['{"a":1}', undefined],
    ];
    for (const [json, want] of cases) {
      JSON.parse(json); // the routes only ever call it on valid JSON
      expect(rawMember(json, 'config_data'), json).toBe(want);
      if (want !== undefined)
        expect(JSON.parse(want)).toEqual((JSON.parse(json) as { config_data: unknown }).config_data);
    }
  });
});

describe('issuance codec: brokered tokens', () => {
  const base: Issuance = {
    id: 'j1',
    jti: 'j1',
    subject_user_id: 'u1',
    client_id: 'c1',
    resource_id: 'r1',
    scopes: ['photos:read'],
    backend_kind: 'mint',
    revocable: true,
    issued_at: new Date(1_700_000_000_000).toISOString(),
    t: 1_700_000_000_000,
    expires_at: new Date(1_700_000_900_000).toISOString(),
    agent_chain: ['c1'],
    consent_client_id: '',
    parent_jti: 'p1',
  };

  test('a brokered issuance keeps backend_kind broker and revocable false; minted lines are unchanged', () => {
    const minted = encodeIssuance(base);
    expect(minted.split('\t')).toHaveLength(15);
    expect(decodeIssuance(minted)).toMatchObject({
      backend_kind: 'mint',
      revocable: true,
      agent_chain: ['c1'],
    });
    const line = encodeIssuance({ ...base, backend_kind: 'broker', revocable: false });
    expect(line.split('\t')).toHaveLength(16);
    expect(decodeIssuance(line)).toMatchObject({
      backend_kind: 'broker',
      revocable: false,
      parent_jti: 'p1',
      agent_chain: ['c1'],
    });
    expect(decodeIssuance(`${minted}\tsomething-else`)).toBeNull();
  });
});

describe('upstream URLs', () => {
  test('https anywhere, http only on loopback, nothing else', () => {
    for (const ok of [
      'https://id.example.net/auth',
      'http://127.0.0.1:8080/token',
      'http://[::1]/x',
      'http://localhost:1/',
    ])
      expect(checkUpstreamUrl(ok).href, ok).toBe(new URL(ok).href);
    for (const bad of [
      'http://id.example.net/auth',
      'http://192.168.1.2/token',
      'ftp://127.0.0.1/',
      'javascript:alert(1)',
      'not a url',
      42,
    ])
      expect(() => checkUpstreamUrl(bad), String(bad)).toThrow(UpstreamError);
  });
});
