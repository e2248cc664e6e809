import type { Context } from 'koa';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML-escapes text and attribute values. */
export const esc = (v: string): string => v.replace(/[&<>"']/g, (c) => ESC[c]!);

const STYLE = `body{font:16px system-ui,sans-serif;background:#f4f1ec;color:#222;margin:0}
main{max-width:26rem;margin:8vh auto;background:#fff;padding:2rem;border-radius:.75rem;box-shadow:0 2px 8px #0002}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem}
input[type=email],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1.2rem;margin-right:.5rem}.error{color:#a00}.scope small{color:#666}`;

/**
 * Sends a server-rendered page with the headers every browser-facing page here carries
 * (RFC 9700 §4.16 clickjacking, §4.2 referrer leakage; no caching of pages holding codes or CSRF tokens).
 */
export function sendPage(ctx: Context, status: number, title: string, body: string): void {
  ctx.status = status;
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
  );
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)} · Hearth</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** An error page: used where redirecting to the client would make us an open redirector (RFC 9700 §4.11). */
export function sendErrorPage(ctx: Context, status: number, title: string, message: string): void {
  sendPage(ctx, status, title, `<h1>${esc(title)}</h1><p class="error">${esc(message)}</p>`);
}
