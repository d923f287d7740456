/**
 * The repository explains itself: no tracked file points at a document outside it, every relative link of the
 * Markdown docs (and every `docs/<page>.md#<section>` a comment cites) reaches a file and a heading that exist, and every
 * repository path and code name the README, the architecture and the conventions pages mention is really there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import MarkdownIt from 'markdown-it';

const root = resolve(__dirname, '..');
const markdown = new MarkdownIt();

/** Tracked files, as git lists them (what a clone holds), without the ones that are not text. */
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && existsSync(join(root, file)));
const textOf = new Map<string, string>();
const read = (file: string): string => {
  let text = textOf.get(file);
  if (text === undefined) {
    text = readFileSync(join(root, file), 'utf8');
    textOf.set(file, text);
  }
  return text;
};
const isText = (file: string): boolean => !read(file).includes('\0');

/**
 * GitHub's anchor of a heading: lower case, punctuation dropped (letters, marks, digits, connectors, spaces and hyphens
 * stay), spaces to hyphens, a repeated slug numbered. Hand-written: github-slugger, which does exactly this, is ESM only
 * and jest here loads CommonJS.
 */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const tokens = markdown.parse(read(file), {});
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const text = (tokens[index + 1]?.children ?? [])
      .filter((child) => child.type === 'text' || child.type === 'code_inline')
      .map((child) => child.content)
      .join('');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  });
  return anchors;
}

/** Why `target` (a repository path, `#anchor` optional) does not resolve, or undefined when it does. */
function brokenTarget(target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  if (relative(root, join(root, path)).startsWith('..')) return 'outside the repository';
  if (!existsSync(join(root, path))) return 'no such file';
  if (anchor === undefined || anchor === '') return undefined;
  if (!path.endsWith('.md') || statSync(join(root, path)).isDirectory())
    return 'an anchor on a file that has none';
  return anchorsOf(path).has(anchor) ? undefined : `no heading #${anchor}`;
}

/** The relative links of one Markdown file, as repository paths (`#x` alone means the file itself). */
function linksOf(file: string): string[] {
  const links: string[] = [];
  const visit = (tokens: ReturnType<typeof markdown.parse>) => {
    for (const token of tokens) {
      if (token.children) visit(token.children);
      const raw = token.type === 'link_open' ? token.attrGet('href') : null;
      if (raw === null) continue;
      const href = String(raw);
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
      const [path = '', anchor] = href.split('#');
      const target = path === '' ? file : relative(root, resolve(root, dirname(file), decodeURI(path)));
      links.push(anchor === undefined ? target : `${target}#${anchor}`);
    }
  };
  visit(markdown.parse(read(file), {}));
  return links;
}

/** What the pages name on purpose although no tracked file holds it. */
const NOT_IN_THE_REPOSITORY: Record<string, string> = {
  'k8s/overlays/prod/secrets.env': 'the operator creates it from secrets.env.example; git-ignored',
  'trusted-documents.json': 'the build writes it beside the gateway bundle',
  GATEWAY_METRICS_PORT: 'the launcher reads <APP>_METRICS_PORT for each app',
  OTEL_PROPAGATORS: 'a standard variable the OpenTelemetry SDK reads itself',
};

const DOCS = tracked.filter(
  (file) => file === 'README.md' || (file.startsWith('docs/') && file.endsWith('.md')),
);

describe('the repository explains itself', () => {
  it('when any tracked file is read, then none points at a document outside the repository', () => {
    // Built from parts, so that this file does not name them itself.
    const outside = [
      ['..', 'shared'].join('/'),
      ['CONTRACT', 'md'].join('.'),
      ['STYLE', 'md'].join('.'),
      ['interface-spec', 'md'].join('.'),
    ];
    const offenders = tracked
      .filter(isText)
      .flatMap((file) =>
        outside.filter((name) => read(file).includes(name)).map((name) => `${file}: ${name}`),
      );
    expect(offenders).toEqual([]);
  });

  it('when the README and the docs link to a file or a section, then the file and the heading exist', () => {
    expect(DOCS).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/interface.md',
        'docs/conventions.md',
        'docs/architecture.md',
      ]),
    );
    const broken = DOCS.flatMap((file) =>
      linksOf(file).flatMap((target) => {
        const why = brokenTarget(target);
        return why ? [`${file} -> ${target}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('when a file cites a section of the docs (docs/<page>.md#<section>, README.md#<section>), then that heading exists', () => {
    const CITATION = /(?<![\w./-])((?:docs\/[\w./-]+|README)\.md)#([\w-]+)/g;
    const cited = tracked
      .filter((file) => isText(file) && !file.endsWith('.md'))
      .flatMap((file) =>
        [...read(file).matchAll(CITATION)].map((m) => ({ file, target: `${m[1]}#${m[2]}` })),
      );
    expect(cited.length).toBeGreaterThan(20);
    const broken = cited.flatMap(({ file, target }) => {
      const why = brokenTarget(target);
      return why ? [`${file}: ${target}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  describe.each(['docs/architecture.md', 'docs/conventions.md', 'README.md'])('%s', (page) => {
    const named = (name: string) => name in NOT_IN_THE_REPOSITORY;
    /** The content of every token of one type on the page (read when a test asks, so a missing page fails it). */
    const all = (type: string) => {
      const found: string[] = [];
      const visit = (list: ReturnType<typeof markdown.parse>) => {
        for (const token of list) {
          if (token.children) visit(token.children);
          if (token.type === type) found.push(token.content);
        }
      };
      visit(markdown.parse(read(page), {}));
      return found;
    };
    /** Code spans, where the page names files and code. */
    const codeSpans = () => all('code_inline');
    /** Every word of the text too (table cells name files without backticks), and the code spans. */
    const words = () =>
      [...all('inline').flatMap((text) => text.split(/[\s,;()`]+/)), ...codeSpans()].map((word) =>
        word.trim().replace(/[.:]$/, ''),
      );
    const basenames = new Set(tracked.map((file) => basename(file)));

    it('when it names a repository path, then the path exists', () => {
      const ROOTS = /^(apps|libs|tools|bench|docs|k8s|schema)\/[\w./-]+$/;
      const paths = [...new Set(words().filter((word) => ROOTS.test(word)))];
      expect(paths.length).toBeGreaterThan(10);
      expect(paths.filter((path) => !existsSync(join(root, path)) && !named(path))).toEqual([]);
    });

    it('when it names a file without its folder, then a file of that name exists', () => {
      const FILE = /^[\w.-]+\.(ts|mjs|cjs|js|json|ya?ml|graphql|md)$/;
      const names = [...new Set(codeSpans().filter((span) => FILE.test(span)))];
      expect(
        names.filter((name) => !basenames.has(name) && !existsSync(join(root, name)) && !named(name)),
      ).toEqual([]);
    });

    it('when it names a function, class or setting in code style, then the code has it', () => {
      const source = tracked
        .filter(
          (file) =>
            /^(apps|libs|tools|bench|k8s)\/.*\.(ts|mjs|cjs|graphql|ya?ml)$/.test(file) ||
            file.endsWith('.json'),
        )
        .map(read)
        .join('\n');
      const inCode = new Set(source.match(/[A-Za-z_$][\w$]*/g));
      // `findVisible`, `AccessTokenStatus.check`, `Query.user`, `TOKEN_STATUS_CACHE_TTL_MS`: names, not prose.
      const CODE_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
      const names = [
        ...new Set(codeSpans().filter((span) => CODE_NAME.test(span) && /[A-Z_]|[a-z][A-Z]/.test(span))),
      ];
      expect(names.length).toBeGreaterThan(10);
      expect(
        names.filter((name) => !name.split('.').every((part) => inCode.has(part)) && !named(name)),
      ).toEqual([]);
    });
  });
});
