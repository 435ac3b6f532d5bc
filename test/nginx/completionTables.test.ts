// nginx completion's directive lists, built by the server's warm-up (service.prepareCompletion, all
// contexts in one pass over the table) or by the first request in a context: either way each
// context's list is, in table order, every directive with a variant written in that context (or
// anywhere) that exists at the target version, that variant's detail, snippet and kind; in a main
// file that loads no module (the empty file read in `main`), none of a loadable module's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextEdit } from 'vscode-languageserver-types';
import * as service from '../../server/src/service/languageService';
import { DIRECTIVES, variantInVersion } from '../../server/src/languages/nginx/data';
import { directiveSnippet } from '../../server/src/languages/nginx/completion';

const CONTEXTS = [...new Set([...DIRECTIVES.values()].flatMap((vs) => vs.flatMap((v) => v.contexts)))].filter((c) => c !== '*');

function expected(ctx: string, version: string | undefined) {
  const out = [];
  for (const [name, variants] of DIRECTIVES) {
    const v = variants.find((x) => (x.contexts.includes(ctx) || x.contexts.includes('*')) && variantInVersion(x, version) === 'yes');
    if (v && !(ctx === 'main' && v.load))
      out.push({
        label: name,
        kind: v.block ? 14 : 10,
        detail: v.module + (v.commercial ? ' (commercial)' : ''),
        newText: directiveSnippet(name, v),
        module: v.module,
        deprecated: !!v.deprecated,
      });
  }
  return out;
}

function offered(ctx: string, version: string | undefined) {
  // an empty file read in `ctx`: the cursor is where a directive of that context starts
  const doc = TextDocument.create('file:///tables.conf', 'nginx', 1, '');
  return service.complete(doc, 'nginx', { line: 0, character: 0 }, { nginxVersion: version, nginxContext: ctx }).items.map((i) => ({
    label: i.label,
    kind: i.kind,
    detail: i.detail,
    newText: (i.textEdit as TextEdit).newText,
    module: (i.data as { module: string }).module,
    deprecated: (i.tags ?? []).includes(1),
  }));
}

test('the directive lists the warm-up builds equal the rule, in every context', () => {
  assert.ok(CONTEXTS.length >= 20 && CONTEXTS.includes('location') && CONTEXTS.includes('stream/server'));
  // target versions no other test asks for, so nothing was built for them before this
  for (const version of ['1.9.5', '1.25.0']) {
    service.prepareCompletion('nginx', { nginxVersion: version });
    for (const ctx of CONTEXTS) assert.deepEqual(offered(ctx, version), expected(ctx, version), `${ctx} at ${version}`);
  }
});

test('the lists built by the first request in each context equal the rule too', () => {
  for (const version of ['1.11.3', '1.27.1']) {
    for (const ctx of CONTEXTS) assert.deepEqual(offered(ctx, version), expected(ctx, version), `${ctx} at ${version}`);
    // the warm-up afterwards finds them built and changes nothing
    service.prepareCompletion('nginx', { nginxVersion: version });
    for (const ctx of ['http', 'location', 'upstream']) assert.deepEqual(offered(ctx, version), expected(ctx, version));
  }
});

test('a directive is offered from the version that added it on', () => {
  const labels = (ctx: string, v: string) => offered(ctx, v).map((i) => i.label);
  const added = [...DIRECTIVES].find(
    ([, vs]) => vs.length === 1 && vs[0].contexts.includes('http') && vs[0].since && vs[0].since > '1.1' && !vs[0].knownIn && !vs[0].until,
  );
  assert.ok(added, 'some http directive has a first version');
  const [name, [v]] = added;
  assert.ok(!labels('http', '1.0.0').includes(name), `${name} before ${v.since}`);
  assert.ok(labels('http', v.since!).includes(name), `${name} at ${v.since}`);
});
