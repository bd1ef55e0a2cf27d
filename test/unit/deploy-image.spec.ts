import { existsSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { readmeConfigNames, readText, readYamlDocs, ROOT } from '../support/deploy';
import { validateEnv } from '../../src/config/env.schema';

/**
 * The Dockerfile, .dockerignore, docker-compose.yml and .env.example, checked by reading them (no container
 * daemon or registry here): pinned bases, a non-root user, a health check on a route that exists, COPY
 * sources that exist and are not ignored, and npm scripts and CLI commands that exist.
 */

interface Instruction {
  keyword: string;
  args: string;
}

function dockerfile(): Instruction[] {
  return readText('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [keyword, ...rest] = l.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The FROM images with `${ARG}` references replaced by the ARG defaults declared before them. */
function stages(): { image: string; name?: string; instructions: Instruction[] }[] {
  const args = new Map<string, string>();
  const result: { image: string; name?: string; instructions: Instruction[] }[] = [];
  for (const ins of dockerfile()) {
    if (ins.keyword === 'ARG' && result.length === 0) {
      const [name, value] = ins.args.split('=');
      args.set(name, value ?? '');
    } else if (ins.keyword === 'FROM') {
      const [ref, as, name] = ins.args.split(/\s+/);
      const image = ref.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string, b: string) => args.get(a ?? b) ?? '');
      result.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (result.length > 0) {
      result[result.length - 1].instructions.push(ins);
    }
  }
  return result;
}

const pkg = JSON.parse(readText('package.json')) as { scripts: Record<string, string> };

/** `.dockerignore` patterns (leading `!` re-includes), matched the simple way the file uses them. */
function dockerIgnored(path: string): boolean {
  let ignored = false;
  for (const raw of readText('.dockerignore').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    const pattern = negate ? line.slice(1) : line;
    const re = new RegExp(
      '^' +
        pattern
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]') +
        '(/.*)?$',
    );
    if (re.test(path)) ignored = !negate;
  }
  return ignored;
}

describe('Dockerfile', () => {
  it('builds in stages from a Node LTS glibc slim base pinned to an exact version', () => {
    const all = stages();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const nvmrcMajor = readText('.nvmrc').trim().split('.')[0];
    for (const { image } of all) {
      // node:22.x.y-bookworm-slim: exact version, Debian (glibc: sharp's and argon2's prebuilt binaries).
      const m = /^node:(\d+)\.(\d+)\.(\d+)-(bookworm|trixie)-slim(@sha256:[0-9a-f]{64})?$/.exec(image);
      expect(m).not.toBeNull();
      expect(m![1]).toBe(nvmrcMajor);
      expect(Number(m![1]) % 2).toBe(0); // LTS lines are even
    }
  });

  it('installs with npm ci, builds with the npm script, prunes dev dependencies', () => {
    const build = stages()[0]
      .instructions.filter((i) => i.keyword === 'RUN')
      .map((i) => i.args);
    const joined = build.join(' && ');
    expect(joined).toMatch(/npm ci\b/);
    expect(joined).toMatch(/npm prune --omit=dev/);
    for (const [, script] of joined.matchAll(/npm run ([\w:-]+)/g))
      expect(Object.keys(pkg.scripts)).toContain(script);
    expect(joined.indexOf('npm ci')).toBeLessThan(joined.indexOf('npm run build'));
    expect(joined.indexOf('npm run build')).toBeLessThan(joined.indexOf('npm prune'));
  });

  it('copies only sources that exist and that .dockerignore does not exclude', () => {
    const copies = stages()
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const parts = copy.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        expect({ source, exists: existsSync(join(ROOT, source)) }).toEqual({ source, exists: true });
        expect({ source, ignored: dockerIgnored(source) }).toEqual({ source, ignored: false });
      }
    }
    for (const never of ['node_modules', '.git', '.env', 'dist', 'var/storage/x.png']) {
      expect({ never, ignored: dockerIgnored(never) }).toEqual({ never, ignored: true });
    }
  });

  it('runs the final stage as a non-root user', () => {
    const users = stages()
      .at(-1)!
      .instructions.filter((i) => i.keyword === 'USER')
      .map((i) => i.args.split(':')[0]);
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0', '']).not.toContain(users.at(-1));
  });

  it('checks health on /health/ready, a route the health controller serves', () => {
    const check = stages()
      .at(-1)!
      .instructions.find((i) => i.keyword === 'HEALTHCHECK');
    expect(check).toBeDefined();
    const path = /127\.0\.0\.1:[^/]*(\/[\w/]+)/.exec(check!.args)?.[1];
    expect(path).toBe('/health/ready');
    const controller = readText('src/health/health.controller.ts');
    const [, base, route] = path!.split('/');
    expect(controller).toContain(`@Controller('${base}')`);
    expect(controller).toContain(`@Get('${route}')`);
  });

  it('needs no dev dependency at run time: every package src/ imports stays after npm prune --omit=dev', () => {
    // What `npm prune --omit=dev` keeps: the lockfile's top-level packages not marked dev-only.
    const lock = JSON.parse(readText('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
    const kept = (name: string) => {
      const entry = lock.packages[`node_modules/${name}`];
      return entry !== undefined && entry.dev !== true;
    };
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const full = join(dir, name);
        return statSync(full).isDirectory() ? walk(full) : /(?<!\.spec)\.ts$/.test(name) ? [full] : [];
      });
    const missing: string[] = [];
    for (const file of walk(join(ROOT, 'src'))) {
      const source = readText(relative(ROOT, file));
      // Type-only imports are erased by the compiler.
      const specifiers = [
        ...source.matchAll(/^import (?!type )[^;]*?from '([^']+)'/gms),
        ...source.matchAll(/\brequire\('([^']+)'\)|\bimport\('([^']+)'\)/g),
      ].map((m) => m[1] ?? m[2]);
      for (const spec of specifiers) {
        if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!kept(name)) missing.push(`${relative(ROOT, file)}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('starts dist/main.js by default, a file the build writes', () => {
    const cmd = stages()
      .at(-1)!
      .instructions.filter((i) => i.keyword === 'CMD')
      .at(-1);
    expect(JSON.parse(cmd!.args)).toEqual(['node', 'dist/main.js']);
    expect(pkg.scripts.build).toContain("'main'");
    expect(pkg.scripts.build).toContain("'cli'");
  });
});

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: unknown; disable?: boolean };
  deploy?: { replicas?: number };
  volumes?: (string | Record<string, unknown>)[];
  depends_on?: Record<string, { condition: string }>;
};

describe('docker-compose.yml', () => {
  const [compose] = readYamlDocs('docker-compose.yml') as [{ services: Record<string, Service> }];
  const services = compose.services;
  const cliCommands = [...readText('src/cli/ops.commands.ts').matchAll(/name: '([\w:-]+)'/g)].map(
    (m) => m[1],
  );

  it('pins every image to a tag (never latest); the service builds from the Dockerfile', () => {
    for (const [name, svc] of Object.entries(services)) {
      expect({ name, hasImage: typeof svc.image === 'string' }).toEqual({ name, hasImage: true });
      // As compose resolves it without a .env: ${VAR:-default} is the default.
      const image = svc.image!.replace(/\$\{\w+(?::?-([^}]*))?\}/g, (_, d?: string) => d ?? '');
      const tag = /:([^/:@]+)$/.exec(image)?.[1];
      expect({ name, image, tagged: tag !== undefined && tag !== 'latest' }).toEqual({
        name,
        image,
        tagged: true,
      });
      if (!svc.build) expect(svc.image).not.toMatch(/\$\{/);
    }
    expect(services.api.build).toBe('.');
  });

  it('runs PostgreSQL and Redis with health checks, an S3 server with a bucket init, and no minio/minio', () => {
    expect(services.postgres.healthcheck?.test).toBeDefined();
    expect(services.redis.healthcheck?.test).toBeDefined();
    expect(JSON.stringify(compose)).not.toContain('minio/minio');
    const init = services['storage-init'];
    expect(init.command).toEqual(['node', 'dist/cli.js', 'storage:init']);
    expect(cliCommands).toContain('storage:init');
    expect(init.environment?.S3_ENDPOINT).toMatch(/^http:\/\/seaweedfs:/);
  });

  it('migrates once in a one-shot service; the apps wait for it and never migrate themselves', () => {
    expect(services.migrate.command).toEqual(['node', 'dist/cli.js', 'migration:run']);
    expect(cliCommands).toContain('migration:run');
    for (const name of ['api', 'worker']) {
      expect(services[name].environment?.DB_MIGRATIONS_RUN).toBe('false');
      expect(services[name].depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
    }
  });

  it('runs two api replicas behind the load balancer and a worker, from one image', () => {
    expect(services.api.environment?.ROLE).toBe('api');
    expect(services.api.deploy?.replicas).toBe(2);
    expect(services.worker.environment?.ROLE).toBe('worker');
    expect(services.worker.image).toBe(services.api.image);
    expect(services.worker.healthcheck?.disable).toBe(true);
    const lbMounts = (services.lb.volumes ?? []).map(String);
    const conf = lbMounts.find((v) => v.includes('nginx.conf'))!.split(':')[0];
    expect(readText(conf)).toMatch(/server api:3000/);
    // Behind that one proxy the api trusts one hop, and nginx sets the headers it reads.
    expect(services.api.environment?.TRUST_PROXY).toBe('1');
    expect(readText(conf)).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(readText(conf)).toMatch(/proxy_set_header X-Forwarded-Proto \$scheme;/);
  });

  it('mounts only files that are committed', () => {
    for (const svc of Object.values(services)) {
      for (const volume of svc.volumes ?? []) {
        const source = String(volume).split(':')[0];
        if (source.startsWith('.'))
          expect({ source, exists: existsSync(join(ROOT, source)) }).toEqual({ source, exists: true });
      }
    }
  });
});

describe('.env.example', () => {
  // `docker run --env-file .env` with the file as shipped: `METRICS_TOKEN=` (empty) stopped every
  // process with "must be longer than or equal to 16 characters".
  it('is a configuration the service starts with once its two secrets are set', () => {
    const env = Object.fromEntries(
      readText('.env.example')
        .split('\n')
        .map((l) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1], m[2]]),
    );
    const secret = 'x'.repeat(40);
    expect(() => validateEnv({ ...env, API_KEY_PEPPER: secret, SESSION_SECRET: `${secret}y` })).not.toThrow();
  });

  it('lists every variable of the README configuration table', () => {
    const listed = new Set(
      readText('.env.example')
        .split('\n')
        .map((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l)?.[1])
        .filter(Boolean),
    );
    const table = readmeConfigNames();
    expect(table.length).toBeGreaterThan(20);
    expect(table.filter((name) => !listed.has(name))).toEqual([]);
  });
});
