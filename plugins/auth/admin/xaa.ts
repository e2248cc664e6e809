import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { newId } from '../domain/secrets.ts';
import { type AuthServices, findResource, nowIso } from '../services.ts';
import { own } from '../state/collections.ts';
import type { SubjectMapping, XaaPolicy } from '../state/model.ts';
import {
  auditAdmin,
  badInput,
  bool,
  conflict,
  jsonBody,
  missing,
  param,
  str,
  strArray,
  strQuery,
} from './util.ts';

/**
 * Cross-app access: `/admin/xaa/policies` (`{name, idp_id, client_ids, scopes, resources, enabled}`; empty
 * lists do not restrict) and `/admin/xaa/subject-mappings` (`{idp_id, idp_subject, local_user_id}`).
 */
export function mountAdminXaa(r: HearthRouter, s: AuthServices): void {
  const idpOf = (id: string) => {
    if (!own(s.data.data.idps, id)) throw badInput('unknown idp_id');
    return id;
  };
  const readPolicy = (b: Record<string, unknown>, cur?: XaaPolicy) => {
    const clientIds = strArray(b, 'client_ids', false) ?? [];
    const unknownClient = clientIds.find((c) => !own(s.data.data.clients, c));
    if (unknownClient !== undefined) throw badInput(`unknown client ${unknownClient.slice(0, 64)}`);
    const resources = strArray(b, 'resources', false) ?? [];
    const unknownResource = resources.find((x) => !findResource(s, x));
    if (unknownResource !== undefined) throw badInput(`unknown resource ${unknownResource.slice(0, 80)}`);
    return {
      name: str(b, 'name', true),
      idp_id: idpOf(str(b, 'idp_id', true)),
      client_ids: clientIds,
      scopes: strArray(b, 'scopes', false) ?? [],
      resources,
      enabled: bool(b, 'enabled', false) ?? cur?.enabled ?? true,
    };
  };
  const policyById = (ctx: Context): XaaPolicy => {
    const x = own(s.data.data.xaa_policies, param(ctx, 'id'));
    if (!x) throw missing('policy_not_found', 'unknown policy');
    return x;
  };

  r.get('/xaa/policies', (ctx) => {
    const idp = strQuery(ctx, 'idp_id');
    ctx.body = Object.values(s.data.data.xaa_policies).filter((p) => !idp || p.idp_id === idp);
  });
  r.post('/xaa/policies', async (ctx) => {
    const now = nowIso();
    const policy: XaaPolicy = { id: newId(), ...readPolicy(jsonBody(ctx)), created_at: now, updated_at: now };
    await s.data.commit((d) => {
      d.xaa_policies[policy.id] = policy;
    });
    auditAdmin(s, ctx, 'xaa_policy.created', { detail: policy.name });
    ctx.status = 201;
    ctx.body = policy;
  });
  r.get('/xaa/policies/:id', (ctx) => {
    ctx.body = policyById(ctx);
  });
  r.put('/xaa/policies/:id', async (ctx) => {
    const cur = policyById(ctx);
    const next: XaaPolicy = { ...cur, ...readPolicy(jsonBody(ctx), cur), updated_at: nowIso() };
    await s.data.commit((d) => {
      d.xaa_policies[cur.id] = next;
    });
    auditAdmin(s, ctx, 'xaa_policy.updated', { detail: next.name });
    ctx.body = next;
  });
  r.delete('/xaa/policies/:id', async (ctx) => {
    const cur = policyById(ctx);
    await s.data.commit((d) => {
      delete d.xaa_policies[cur.id];
    });
    auditAdmin(s, ctx, 'xaa_policy.deleted', { detail: cur.name });
    ctx.status = 204;
  });

  r.get('/xaa/subject-mappings', (ctx) => {
    const idp = strQuery(ctx, 'idp_id');
    ctx.body = Object.values(s.data.data.xaa_subject_mappings).filter((m) => !idp || m.idp_id === idp);
  });
  r.post('/xaa/subject-mappings', async (ctx) => {
    const b = jsonBody(ctx);
    const idpId = idpOf(str(b, 'idp_id', true));
    const subject = str(b, 'idp_subject', true);
    if (!subject || subject.length > 255) throw badInput('idp_subject must be 1–255 characters');
    const userId = str(b, 'local_user_id', true);
    if (!own(s.data.data.users, userId)) throw badInput('unknown local_user_id');
    if (
      Object.values(s.data.data.xaa_subject_mappings).some(
        (m) => m.idp_id === idpId && m.idp_subject === subject,
      )
    )
      throw conflict('mapping_exists', 'that subject is mapped already');
    const mapping: SubjectMapping = {
      id: newId(),
      idp_id: idpId,
      idp_subject: subject,
      local_user_id: userId,
      created_at: nowIso(),
    };
    await s.data.commit((d) => {
      d.xaa_subject_mappings[mapping.id] = mapping;
    });
    auditAdmin(s, ctx, 'xaa_subject_mapping.created', { detail: mapping.id });
    ctx.status = 201;
    ctx.body = mapping;
  });
  r.delete('/xaa/subject-mappings/:id', async (ctx) => {
    const cur = own(s.data.data.xaa_subject_mappings, param(ctx, 'id'));
    if (!cur) throw missing('mapping_not_found', 'unknown subject mapping');
    await s.data.commit((d) => {
      delete d.xaa_subject_mappings[cur.id];
    });
    auditAdmin(s, ctx, 'xaa_subject_mapping.deleted', { detail: cur.id });
    ctx.status = 204;
  });
}
