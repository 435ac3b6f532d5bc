// Signature help for HAProxy: the syntax lines of the keyword on the cursor's line (global,
// proxy and other-section keywords, from configuration.txt), the word being typed highlighted
// as its parameter. A condition (`if`/`unless` ...) is not a parameter of the keyword.
import type { Position, SignatureHelp, SignatureInformation } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceSettings } from '../../core/types';
import { findNodeAt, type HaproxyFile } from './ast';
import { GLOBAL, PROXY_KINDS, SECTION_KEYWORDS_MAP, matchProxyKeyword, type KeywordInfo } from './data';
import { activeParam, haproxyParams, pickSignature, signatureOf, type SyntaxParam } from '../../core/signatures';
import { versionLine } from './hover';
import { DESCRIPTIONS } from './overrides';
import actionSyntaxJson from './data/actionSyntax.json';

const ACTION_SYNTAX = (actionSyntaxJson as unknown as { actions: Record<string, string[]> }).actions;
/** Rule keywords whose first argument (after the rule set, for tcp-*) is an action. */
const RULE_SETS = new Set([
  'http-request',
  'http-response',
  'http-after-response',
  'tcp-request connection',
  'tcp-request session',
  'tcp-request content',
  'tcp-response content',
  'quic-initial',
]);

/** The syntax lines of an action as written (`set-var(txn.a)`, `track-sc1`): by its name, else with the sc number as the docs write it. */
function actionSyntax(word: string): string[] | undefined {
  const name = word.replace(/\(.*$/, '');
  return ACTION_SYNTAX[name] ?? ACTION_SYNTAX[name.replace(/\d+$/, '0')] ?? ACTION_SYNTAX[name.replace(/\d+$/, '')];
}

export function haproxySignatureHelp(
  doc: TextDocument,
  file: HaproxyFile,
  pos: Position,
  _settings: ServiceSettings,
): SignatureHelp | null {
  try {
    const offset = doc.offsetAt(pos);
    const at = findNodeAt(file, offset);
    const st = at.statement;
    if (!st || !st.keyword || at.comment || at.inHeader) return null;
    if (offset <= st.keyword.end) return null;
    if (st.condition && offset >= st.condition.start) return null;
    const words = st.words.filter((w) => w !== st.prefix);
    const kind = at.section?.keyword;
    let name: string;
    let info: KeywordInfo | undefined;
    let width = 1;
    if (!kind || kind === 'global') {
      name = st.keyword.value;
      info = GLOBAL.get(name);
    } else if (PROXY_KINDS.has(kind)) {
      const m = matchProxyKeyword(words.map((w) => w.value));
      if (!m) return null;
      name = m.name;
      info = m.info;
      width = m.width;
    } else {
      name = st.keyword.value;
      info = SECTION_KEYWORDS_MAP.get(kind)?.get(name);
    }
    if (!info?.syntax?.length) return null;
    // on the keyword's own words (`timeout cl|ient`): nothing to fill yet
    if (words[width - 1] && offset <= words[width - 1].end) return null;
    const args = words.slice(width).map((w) => w.value);
    let index = words.slice(width).findIndex((w) => offset >= w.start && offset <= w.end);
    if (index < 0) index = words.slice(width).filter((w) => w.end < offset).length;
    if (index >= args.length) args[index] = '';
    // past the action of a rule (`http-request set-header |`): the action's own syntax
    const forms = index > 0 && RULE_SETS.has(name) ? actionSyntax(args[0]) : undefined;
    if (forms) {
      const sigs: SignatureInformation[] = [];
      const params: SyntaxParam[][] = [];
      for (const form of forms) {
        const p = haproxyParams(form, 1);
        sigs.push(signatureOf(`${name} ${form.split(' ')[0]}`, p, ' [ { if | unless } <condition> ]'));
        params.push(p);
      }
      const rest = args.slice(1);
      const active = pickSignature(params, rest, index - 1);
      if (!params[active].length) return { signatures: sigs, activeSignature: active, activeParameter: 0 };
      return { signatures: sigs, activeSignature: active, activeParameter: Math.max(0, activeParam(params[active], rest, index - 1)) };
    }
    const docText = [versionLine(info) ? `Versions: ${versionLine(info)}` : '', DESCRIPTIONS[name] ?? ''].filter(Boolean).join('\n\n');
    const sigs: SignatureInformation[] = [];
    const params: SyntaxParam[][] = [];
    for (const syntax of info.syntax) {
      const p = haproxyParams(syntax, width);
      if (!p.length && info.syntax.length > 1) continue; // `option httpchk` alone: the forms with arguments say more
      sigs.push(signatureOf(name, p, '', docText || undefined));
      params.push(p);
    }
    if (!sigs.length) return null;
    const active = pickSignature(params, args, index);
    const ap = activeParam(params[active], args, index);
    return { signatures: sigs, activeSignature: active, activeParameter: Math.max(0, ap) };
  } catch {
    return null;
  }
}
