import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { parseAllDocuments } from 'yaml';
import { EnvDto } from '../../src/config/env.schema';

export const ROOT = join(__dirname, '..', '..');

export const readText = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every document of a YAML file (merge keys `<<` resolved), failing on any parse error. */
export function readYamlDocs(path: string): Record<string, unknown>[] {
  return parseAllDocuments(readText(path), { merge: true })
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJS() as Record<string, unknown> | null;
    })
    .filter((doc): doc is Record<string, unknown> => doc !== null);
}

/** The variables the service reads: every property of EnvDto (its class-validator metadata). */
export function serviceEnvNames(): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(EnvDto, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

/** The lines of the README section whose heading is `heading` (up to the next heading of its level or higher). */
export function readmeSection(heading: string): string[] {
  const lines = readText('README.md').split('\n');
  const start = lines.findIndex((l) => l.replace(/^#+\s*/, '') === heading && l.startsWith('#'));
  if (start === -1) throw new Error(`README has no section "${heading}"`);
  const level = lines[start].match(/^#+/)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+\s/.test(l) && l.match(/^#+/)![0].length <= level);
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

const NAME_RE = /`([A-Z][A-Z0-9_]+)`/g;

/** The variables of the README's configuration table (first column). */
export function readmeConfigNames(): string[] {
  const rows = readmeSection('Configuration').filter((l) => l.startsWith('|'));
  return [
    ...new Set(rows.flatMap((row) => [...row.split('|')[1].matchAll(NAME_RE)].map((m) => m[1]))),
  ].sort();
}

/**
 * The variables the README lists as left unset by the Kubernetes manifests: the paragraph of its
 * "Deploy" section that starts with "Left unset by the Kubernetes manifests".
 */
export function readmeOptionalInManifests(): string[] {
  const lines = readmeSection('Deploy');
  const start = lines.findIndex((l) => l.startsWith('Left unset by the Kubernetes manifests'));
  if (start === -1)
    throw new Error('README "Deploy" has no "Left unset by the Kubernetes manifests" paragraph');
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  const paragraph = lines.slice(start, end === -1 ? undefined : end).join(' ');
  return [...paragraph.matchAll(NAME_RE)].map((m) => m[1]);
}
