// The site API as the page uses it: the key is the last path segment of /site/<key>.

export const siteKey = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
export const apiBase = `/api/site/${encodeURIComponent(siteKey)}`;

/** A refused call: `status` for the hub's answers, `offline` when the hub could not be reached at all. */
export class CallError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
    this.offline = status === 0;
  }
}

export async function call(method, path, body) {
  let res;
  try {
    res = await fetch(apiBase + path, {
      method,
      headers: body ? { 'Content-Type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new CallError(0, 'hub not reachable');
  }
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new CallError(res.status, data?.message ?? `HTTP ${res.status}`);
  return data;
}
