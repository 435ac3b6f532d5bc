// Descriptions and syntax strings, read at runtime from @nginx/reference-lib (nginx's own
// documentation text, Apache-2.0): we never copy them into our files. Loaded lazily, once.
import type * as RL from '@nginx/reference-lib' with { 'resolution-mode': 'import' };

interface RefEntry {
  description: string;
  syntax: string[];
}

let directiveIndex: Map<string, RefEntry> | undefined;
let variableIndex: Map<string, RefEntry> | undefined;

function load(): void {
  if (directiveIndex) return;
  directiveIndex = new Map();
  variableIndex = new Map();
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const lib = require('@nginx/reference-lib') as typeof RL;
    const md = 1 as RL.Format; // Format.Markdown
    for (const d of lib.getDirectives(md)) directiveIndex.set(`${d.module}\0${d.name}`, { description: d.description, syntax: d.syntax });
    for (const v of lib.getVariables(md)) {
      const name = v.name.replace(/^\$/, '').replace(/_NAME$/, '_');
      if (!variableIndex.has(`${v.module}\0${name}`)) variableIndex.set(`${v.module}\0${name}`, { description: v.description, syntax: [] });
    }
  } catch {
    // without the package, hover shows the facts from our own tables only
  }
}

export function directiveReference(module: string, name: string): RefEntry | undefined {
  load();
  return directiveIndex!.get(`${module}\0${name}`);
}

export function variableReference(module: string, name: string): RefEntry | undefined {
  load();
  return variableIndex!.get(`${module}\0${name}`);
}

/**
 * A directive's first sentence as plain text, at most 80 characters: the one line a completion
 * list shows beside the name (links, emphasis and code marks dropped).
 */
export function directiveSummary(module: string, name: string): string | undefined {
  const d = directiveReference(module, name)?.description;
  if (!d) return undefined;
  const text = d
    .split('```')[0]
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const end = text.search(/\.(\s|$)/);
  const sentence = end >= 0 ? text.slice(0, end) : text;
  return sentence.length > 80 ? `${sentence.slice(0, 79).trimEnd()}…` : sentence || undefined;
}
