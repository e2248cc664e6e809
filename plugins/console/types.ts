/**
 * How a plugin adds pages to the operator console. A plugin that lists `console` in `optional` calls
 * `ctx.tryUse('console')?.addPage({...})` in its `start`; no plugin edits another's pages.
 *
 * A page is one ES module served by the console at `/admin/ui/pages/<id>.js`. It exports
 * `render(root, api)`: `root` is the page's empty `<section>`, `api` the console's helpers (web/shell.js:
 * `get`, `send`, `upload`, `qr`, `h`, `say`; web/kit.js: `run`, `button`, `table`, `label`, `checkbox`,
 * `textarea`, `saveCancel`, `editor`, `rename`, `words`). Admin API paths are given without `/admin`
 * (`api.get('/sites')` calls `GET /admin/sites`).
 */
export interface ConsolePage {
  /** Lower-case letters, digits and dashes; unique across plugins. */
  id: string;
  /** The navigation entry and the page's heading. */
  title: string;
  /** Absolute path of the page's ES module (in the contributing plugin's folder). */
  module: string;
  /** Sort key of the navigation (lower first; the console's own pages use 10 and 90). */
  order?: number;
  /**
   * For a plugin whose admin API is not under `/admin/` on the admin listener (translation's `/v2/admin`
   * on the main listener): the page's `api.own` calls `<listener><prefix>/<path>` with the admin key in
   * the given scheme (`Authorization: Bearer <key>` or `Authorization: DeepL-Auth-Key <key>`).
   */
  api?: { listener: string; prefix: string; scheme: 'Bearer' | 'DeepL-Auth-Key' };
}

export interface ConsoleExports {
  addPage(page: ConsolePage & { plugin: string }): void;
}

declare module '../../core/plugin/types.ts' {
  interface PluginExportsMap {
    console: ConsoleExports;
  }
}
