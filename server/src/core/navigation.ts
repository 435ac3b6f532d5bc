// What both languages' go-to-definition does inside one file (the workspace index does the
// same across the files of a unit, server/src/service/workspaceIndex.ts).
import type { NavEntity } from './types';

/** The definitions in `entities` of the name under `offset` (same kind and name; scopes, when both have one, equal). */
export function definitionsInFile(entities: NavEntity[], offset: number): NavEntity[] {
  const at = entities.filter((e) => !e.dynamic && e.name && e.start <= offset && offset <= e.end);
  return entities.filter(
    (d) =>
      d.role === 'def' &&
      at.some((e) => e.kind === d.kind && e.name === d.name && (e.scope === undefined || d.scope === undefined || e.scope === d.scope)),
  );
}
