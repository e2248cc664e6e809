/**
 * The repository explains itself: comments and docs point only at files that exist in it (and at headings
 * that exist in those files), never at documents a clone does not have (notes kept outside the repository,
 * issue numbers of a tracker).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['core', 'plugins', 'drivers', 'scripts', 'test', 'docs', 'config', 'systemd'];
const TOP_FILES = ['README.md', 'CHANGELOG.md'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'data', 'output', 'vendor']);
const TEXT = /\.(ts|js|mjs|md|json|html|css|sh|service)$/;
const SELF = path.relative(root, import.meta.filename);

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (TEXT.test(name)) out.push(path.relative(root, full));
  }
  return out;
}

const files = [...SCANNED.flatMap((d) => walk(path.join(root, d), [])), ...TOP_FILES].filter(
  (f) => f !== SELF,
);
const text = new Map(files.map((f) => [f, readFileSync(path.join(root, f), 'utf8')] as const));

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (file: string): Set<string> =>
  new Set(
    [...(text.get(file) ?? readFileSync(path.join(root, file), 'utf8')).matchAll(/^#+\s+(.+)$/gm)].map((m) =>
      slug(m[1] ?? ''),
    ),
  );

const exists = (rel: string) => {
  try {
    statSync(path.join(root, rel));
    return true;
  } catch {
    return false;
  }
};

function lineOf(body: string, index: number): number {
  return body.slice(0, index).split('\n').length;
}

describe('references stay inside the repository', () => {
  it('no comment or doc points at notes outside the repository or at tracker issues', () => {
    const outside =
      /research (note |checklist )?§|shared\/(specs|research|design)\/|\.\.\/shared\/|\b[Ii]ssue #?\d+\b/g;
    const found: string[] = [];
    for (const [file, body] of text) {
      for (const m of body.matchAll(outside)) found.push(`${file}:${lineOf(body, m.index ?? 0)} ${m[0]}`);
    }
    expect(found).toEqual([]);
  });

  it('every repository path named in a comment or doc exists', () => {
    const pathLike =
      /(?<![\w./-])((?:core|plugins|drivers|scripts|test|docs|config|systemd)\/[\w.@-]+(?:\/[\w.@-]+)*\.(?:ts|json|mjs|js|md|html|css|sh|service)(?![\w]))(#[\w-]+)?/g;
    const missing: string[] = [];
    for (const [file, body] of text) {
      for (const m of body.matchAll(pathLike)) {
        const target = m[1] ?? '';
        if (target.includes('<') || !exists(target)) {
          missing.push(`${file}:${lineOf(body, m.index ?? 0)} ${target}`);
          continue;
        }
        const anchor = m[2]?.slice(1);
        if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) {
          missing.push(`${file}:${lineOf(body, m.index ?? 0)} ${target}#${anchor}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('every relative link in a Markdown file resolves, headings included', () => {
    const link = /\]\((?!https?:|mailto:|#)([^)\s]+?)(#[^)\s]+)?\)/g;
    const broken: string[] = [];
    for (const [file, body] of text) {
      if (!file.endsWith('.md')) continue;
      for (const m of body.matchAll(link)) {
        const target = path.normalize(path.join(path.dirname(file), m[1] ?? ''));
        const anchor = m[2]?.slice(1);
        if (!exists(target)) broken.push(`${file}: ${m[1]}`);
        else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) {
          broken.push(`${file}: ${m[1]}${m[2]}`);
        }
      }
      for (const m of body.matchAll(/\]\(#([^)\s]+)\)/g)) {
        if (!anchorsOf(file).has(m[1] ?? '')) broken.push(`${file}: #${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
