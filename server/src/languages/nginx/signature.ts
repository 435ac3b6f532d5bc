// Signature help for nginx: the syntax strings of the directive under the cursor (from
// @nginx/reference-lib, one signature per syntax and module variant), the argument being
// typed highlighted as its parameter.
import type { Position, SignatureHelp, SignatureInformation } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import type { NginxFile } from './ast';
import { blockContext, findNodeAt } from './ast';
import { DIRECTIVES, variantInVersion } from './data';
import { directiveReference } from './reference';
import { inferContext } from './inferContext';
import { activeParam, nginxParams, pickSignature, signatureOf, type SyntaxParam } from '../../core/signatures';
import { firstParagraph } from './hover';

export function nginxSignatureHelp(
  doc: TextDocument,
  file: NginxFile,
  pos: Position,
  settings: ServiceSettings,
  startContext?: string,
): SignatureHelp | null {
  try {
    const offset = doc.offsetAt(pos);
    const at = findNodeAt(file, offset);
    const d = at.directive;
    if (!d || at.comment || at.inRawBody || d.entry) return null;
    // on the name itself: no argument yet
    if (offset <= d.nameEnd) return null;
    if (d.block && offset > d.block.start) return null;
    if (d.semicolon !== undefined && offset > d.semicolon) return null;
    const index = at.argIndex !== undefined && at.argIndex >= 0 ? at.argIndex : d.args.filter((a) => a.end < offset).length;
    const ctx = blockContext(at.ancestors, startContext ?? inferContext(file));
    const all = DIRECTIVES.get(d.name) ?? [];
    const here = all.filter((v) => v.contexts.includes(ctx) || v.contexts.includes('*'));
    const variants = (here.length ? here : all).filter((v) => variantInVersion(v, settings.nginxVersion) === 'yes');
    const sigs: SignatureInformation[] = [];
    const params: SyntaxParam[][] = [];
    const seen = new Set<string>();
    for (const v of variants.length ? variants : here.length ? here : all) {
      const ref = directiveReference(v.module, d.name);
      const doc = [`${v.module}${v.default ? ` · default: \`${d.name} ${v.default.replace(/\s+/g, ' ').trim()};\`` : ''}`];
      const intro = ref?.description ? firstParagraph(ref.description) : '';
      if (intro) doc.push('', intro);
      for (const syntax of ref?.syntax ?? []) {
        const p = nginxParams(syntax);
        const sig = signatureOf(d.name, p, p.some((x) => x.block) ? '' : ';', doc.join('\n'));
        if (seen.has(sig.label)) continue;
        seen.add(sig.label);
        sigs.push(sig);
        params.push(p);
      }
    }
    if (!sigs.length) return null;
    const args = d.args.map((a) => a.value);
    if (index >= args.length) args[index] = '';
    const active = pickSignature(params, args, index);
    const ap = activeParam(params[active], args, index);
    const realIndex = params[active].filter((p, i) => !p.block && i <= ap).length - 1;
    return { signatures: sigs, activeSignature: active, activeParameter: Math.max(0, realIndex) };
  } catch {
    return null;
  }
}
