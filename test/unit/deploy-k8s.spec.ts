import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { readmeOptionalInManifests, readText, readYamlDocs, ROOT, serviceEnvNames } from '../support/deploy';

/**
 * deploy/k8s: every manifest parses and every Kubernetes object validates against the API schemas of
 * `kubernetes-models`; the kustomize layout resolves; probes, autoscaler, disruption budgets and
 * selectors fit together; and every variable the service reads (EnvDto) is set by the ConfigMap, the
 * Secret or a container, or is listed in the README as left unset.
 */

type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
};
type Validator = new (data: object) => { validate(): void };

const K8S = join(ROOT, 'deploy', 'k8s');

/**
 * kubernetes-models ships ES modules only (its `exports` have no `require` condition); Node 22 loads an
 * ES module through `require` by its file path.
 */
function validatorFor(apiVersion: string, kind: string): Validator {
  const group = apiVersion.includes('/') ? apiVersion : `v1`;
  const file = join(ROOT, 'node_modules', 'kubernetes-models', group, `${kind}.js`);
  if (!existsSync(file)) throw new Error(`kubernetes-models has no ${apiVersion} ${kind}`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(file) as Record<string, Validator>)[kind];
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(name) ? [relative(ROOT, full)] : [];
  });
}

const files = yamlFiles(K8S);
const isKustomization = (doc: Record<string, unknown>) => doc.kind === 'Kustomization';

type Kustomization = {
  resources?: string[];
  patches?: { path: string }[];
  images?: { name: string; newName?: string; newTag?: string }[];
  secretGenerator?: { name: string; behavior?: string; envs?: string[] }[];
};

/** The objects a kustomization builds from its resources (files or directories), before patches. */
function resources(dir: string): K8sObject[] {
  const [k] = readYamlDocs(relative(ROOT, join(dir, 'kustomization.yaml'))) as Kustomization[];
  return (k.resources ?? []).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return resources(path);
    return readYamlDocs(relative(ROOT, path)) as K8sObject[];
  });
}

/** A strategic merge patch of maps only (no lists in the patches here), as kustomize applies it. */
function merge(base: unknown, patch: unknown): unknown {
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return patch;
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) out[key] = merge(out[key], value);
  return out;
}

const base = resources(join(K8S, 'base'));
const find = (kind: string, name: string) => base.find((o) => o.kind === kind && o.metadata.name === name);

type Container = {
  name: string;
  image: string;
  command?: string[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
};
type PodSpec = { containers: Container[]; securityContext?: { runAsNonRoot?: boolean; runAsUser?: number } };
type Workload = K8sObject & {
  spec: {
    selector?: { matchLabels: Record<string, string> };
    template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
  };
};

const workloads = base.filter((o) => o.kind === 'Deployment' || o.kind === 'Job') as Workload[];
const containers = workloads.flatMap((w) => w.spec.template.spec.containers);

describe('Kubernetes manifests (deploy/k8s)', () => {
  it('finds the base and an overlay', () => {
    expect(files).toContain('deploy/k8s/base/kustomization.yaml');
    expect(files).toContain('deploy/k8s/overlays/production/kustomization.yaml');
  });

  it.each(files)('%s parses and each object validates against the Kubernetes schema', (file) => {
    const docs = readYamlDocs(file);
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) {
      if (isKustomization(doc)) continue;
      const obj = doc as K8sObject;
      expect(typeof obj.apiVersion).toBe('string');
      expect(typeof obj.metadata?.name).toBe('string');
      // Overlay patches are partial objects: they are validated merged onto their target below.
      if (file.includes('/overlays/') && obj.kind !== 'Namespace') continue;
      const Model = validatorFor(obj.apiVersion, obj.kind);
      expect(() => new Model(obj).validate()).not.toThrow();
    }
  });

  it('the validators reject a broken object (the check can fail)', () => {
    const api = structuredClone(find('Deployment', 'taste-api')) as Workload;
    (api.spec.template.spec.containers[0].ports![0] as { containerPort: unknown }).containerPort = 'http';
    const Model = validatorFor(api.apiVersion, api.kind);
    expect(() => new Model(api).validate()).toThrow(/containerPort/);
  });

  it('every kustomization resource, patch and generator file exists; each patch targets a base object and validates merged', () => {
    for (const file of files.filter((f) => f.endsWith('kustomization.yaml'))) {
      const dir = dirname(join(ROOT, file));
      const [k] = readYamlDocs(file) as Kustomization[];
      for (const entry of k.resources ?? [])
        expect({ entry, exists: existsSync(join(dir, entry)) }).toEqual({ entry, exists: true });
      for (const { path } of k.patches ?? []) {
        const [patch] = readYamlDocs(relative(ROOT, join(dir, path))) as K8sObject[];
        const target = find(patch.kind, patch.metadata.name);
        expect({ path, target: target?.kind }).toEqual({ path, target: patch.kind });
        const merged = merge(target, patch) as K8sObject;
        const Model = validatorFor(merged.apiVersion, merged.kind);
        expect(() => new Model(merged).validate()).not.toThrow();
      }
      for (const gen of k.secretGenerator ?? []) {
        expect(find('Secret', gen.name)).toBeDefined();
        // The generator's env file holds secrets and is not committed; its example lists the base Secret's keys.
        for (const env of gen.envs ?? []) {
          const example = readText(relative(ROOT, join(dir, `${env}.example`)));
          const keys = example
            .split('\n')
            .map((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l)?.[1])
            .filter(Boolean)
            .sort();
          const secret = find('Secret', gen.name) as K8sObject & { stringData: Record<string, string> };
          expect(keys).toEqual(Object.keys(secret.stringData).sort());
        }
      }
      for (const image of k.images ?? []) {
        expect(containers.map((c) => c.image.split(':')[0])).toContain(image.name);
        expect(image.newTag).toMatch(/^\d+\.\d+\.\d+$/);
      }
    }
  });

  it('pins every container image to a version, never latest', () => {
    for (const c of containers) expect(c.image).toMatch(/:\d+\.\d+\.\d+$/);
  });

  it('api: readiness on /health/ready and liveness on /health/live, on the container port, behind the Service', () => {
    const api = find('Deployment', 'taste-api') as Workload;
    const [c] = api.spec.template.spec.containers;
    expect(c.env).toEqual(expect.arrayContaining([{ name: 'ROLE', value: 'api' }]));
    expect(c.readinessProbe?.httpGet?.path).toBe('/health/ready');
    expect(c.livenessProbe?.httpGet?.path).toBe('/health/live');
    const portNames = (c.ports ?? []).map((p) => p.name);
    expect(portNames).toContain(c.readinessProbe?.httpGet?.port);
    expect(portNames).toContain(c.livenessProbe?.httpGet?.port);
    const controller = readText('src/health/health.controller.ts');
    expect(controller).toContain("@Get('ready')");
    expect(controller).toContain("@Get('live')");

    const svc = find('Service', 'taste-api') as K8sObject & {
      spec: { selector: Record<string, string>; ports: { targetPort: string }[] };
    };
    expect(api.spec.template.metadata?.labels).toEqual(expect.objectContaining(svc.spec.selector));
    expect(portNames).toContain(svc.spec.ports[0].targetPort);
  });

  it('api is autoscaled; api and worker have disruption budgets that select their pods', () => {
    const hpa = find('HorizontalPodAutoscaler', 'taste-api') as K8sObject & {
      spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number };
    };
    expect(hpa.spec.scaleTargetRef).toEqual(
      expect.objectContaining({ kind: 'Deployment', name: 'taste-api' }),
    );
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    for (const name of ['taste-api', 'taste-worker']) {
      const deployment = find('Deployment', name) as Workload;
      const pdb = base.find(
        (o) =>
          o.kind === 'PodDisruptionBudget' &&
          Object.entries(
            (o as unknown as { spec: { selector: { matchLabels: Record<string, string> } } }).spec.selector
              .matchLabels,
          ).every(([k, v]) => deployment.spec.template.metadata?.labels?.[k] === v),
      );
      expect({ name, pdb: pdb?.metadata.name }).toEqual({ name, pdb: expect.any(String) });
    }
  });

  it('worker runs ROLE=worker; the migration Job runs migration:run; all three run as non-root from the same image', () => {
    const worker = (find('Deployment', 'taste-worker') as Workload).spec.template.spec.containers[0];
    expect(worker.env).toEqual(expect.arrayContaining([{ name: 'ROLE', value: 'worker' }]));
    const job = (find('Job', 'taste-migrate') as Workload).spec.template.spec.containers[0];
    expect(job.command).toEqual(['node', 'dist/cli.js', 'migration:run']);
    expect(readText('src/cli/ops.commands.ts')).toContain("name: 'migration:run'");
    expect(new Set(containers.map((c) => c.image)).size).toBe(1);
    for (const w of workloads) expect(w.spec.template.spec.securityContext?.runAsNonRoot).toBe(true);
    const config = find('ConfigMap', 'taste-config') as K8sObject & { data: Record<string, string> };
    expect(config.data.DB_MIGRATIONS_RUN).toBe('false');
  });

  it('every variable the service reads is set by the ConfigMap, the Secret or a container, or listed as left unset', () => {
    const config = find('ConfigMap', 'taste-config') as K8sObject & { data: Record<string, string> };
    const secret = find('Secret', 'taste-secrets') as K8sObject & { stringData: Record<string, string> };
    for (const w of workloads) {
      const refs = w.spec.template.spec.containers[0].envFrom ?? [];
      expect(refs).toEqual([
        { configMapRef: { name: 'taste-config' } },
        { secretRef: { name: 'taste-secrets' } },
      ]);
    }
    const set = new Set([
      ...Object.keys(config.data),
      ...Object.keys(secret.stringData),
      ...containers.flatMap((c) => (c.env ?? []).map((e) => e.name)),
    ]);
    const optional = new Set(readmeOptionalInManifests());
    const read = serviceEnvNames();
    expect(read.length).toBeGreaterThan(20);
    expect(read.filter((name) => !set.has(name) && !optional.has(name))).toEqual([]);
    // The other way round: no name the service does not read (a typo), and none both set and "unset".
    const known = new Set(read);
    expect([...set].filter((name) => !known.has(name) && !name.startsWith('OTEL_'))).toEqual([]);
    expect([...optional].filter((name) => set.has(name) || !known.has(name))).toEqual([]);
  });
});
