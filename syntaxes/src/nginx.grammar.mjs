// Source of syntaxes/nginx.tmLanguage.json: run `npm run build:grammars` after editing (String.raw keeps the regexes readable).
const r = String.raw;
const TS = r`(?<![^\s;{}])`;          // at the start of an nginx token
const TE = r`(?=[\s;{}]|$)`;          // at the end of an nginx token
const DQ = r`"(?:[^"\\]|\\.)*"`;
const SQ = r`'(?:[^'\\]|\\.)*'`;
const BLOCK_NAMES = [
  'http', 'server', 'location', 'upstream', 'events', 'stream', 'mail', 'map', 'geo', 'if', 'types',
  'limit_except', 'split_clients', 'match', 'charset_map', 'otel_exporter', 'mgmt', 'oidc_provider',
].join('|');
// The rest of a line up to the '{' that opens a block, skipping `${var}` and quoted text.
// Possessive and atomic, so a line without a '{' is rejected in one pass.
const ARGS_TO_BRACE = r`(?:[^;{}#\n"'$]|\$(?!\{)|(?>\$\{\w*\}?)|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')*+`;
// A statement ends at ';', '}' or a '{' that is not the one of `${`.
const END_OF_STATEMENT = r`(?=[;}]|(?<!\$)\{)`;
const END_OF_BLOCK_DIRECTIVE = r`(?<=\})|(?=[;}])`;

const grammar = {
  $schema: 'https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json',
  name: 'nginx',
  scopeName: 'source.nginx',
  fileTypes: ['nginx', 'conf'],
  patterns: [{ include: '#statements' }],
  repository: {
    statements: {
      patterns: [
        { include: '#comment' },
        { include: '#lua-block-directive' },
        { include: '#location' },
        { include: '#if' },
        { include: '#table-directive' },
        { include: '#rewrite' },
        { include: '#quoted-directive' },
        { include: '#directive' },
        { include: '#block' },
        { include: '#terminator' },
        { match: r`\}`, name: 'invalid.illegal.unmatched-brace.nginx' },
      ],
    },
    comment: {
      match: TS + r`(#).*$`,
      name: 'comment.line.number-sign.nginx',
      captures: { 1: { name: 'punctuation.definition.comment.nginx' } },
    },
    terminator: { match: ';', name: 'punctuation.terminator.nginx' },
    block: {
      begin: r`\{`,
      beginCaptures: { 0: { name: 'punctuation.section.block.begin.nginx' } },
      end: r`\}`,
      endCaptures: { 0: { name: 'punctuation.section.block.end.nginx' } },
      name: 'meta.block.nginx',
      patterns: [{ include: '#statements' }],
    },
    directive: {
      // A block directive: a known block name not ended by ';' on its line, or any name with '{' later on its line.
      begin: TS + r`(?:(` + BLOCK_NAMES + r`)(?=[\s{]|$)(?![^;{}#\n]*;)|([A-Za-z_][\w.-]*)(?=` + ARGS_TO_BRACE + r`\{)|([A-Za-z_][\w.-]*))` + TE,
      beginCaptures: {
        1: { name: 'keyword.other.directive.block.nginx' },
        2: { name: 'keyword.other.directive.block.nginx' },
        3: { name: 'keyword.other.directive.nginx' },
      },
      end: END_OF_STATEMENT,
      name: 'meta.directive.nginx',
      patterns: [{ include: '#arguments' }],
    },
    'quoted-directive': {
      begin: TS + r`(["'])([A-Za-z_][\w.-]*)(\1)` + TE,
      beginCaptures: {
        1: { name: 'punctuation.definition.string.begin.nginx' },
        2: { name: 'keyword.other.directive.nginx' },
        3: { name: 'punctuation.definition.string.end.nginx' },
      },
      end: END_OF_STATEMENT,
      name: 'meta.directive.nginx',
      patterns: [{ include: '#arguments' }],
    },
    rewrite: {
      begin: TS + r`(rewrite)` + TE,
      beginCaptures: { 1: { name: 'keyword.other.directive.nginx' } },
      end: END_OF_STATEMENT,
      name: 'meta.directive.rewrite.nginx',
      patterns: [
        { match: r`\G\s+(` + DQ + '|' + SQ + r`|[^\s;{}]+)`, captures: { 1: { name: 'string.regexp.nginx' } } },
        { include: '#arguments' },
      ],
    },
    location: {
      begin: TS + r`(location)` + TE,
      beginCaptures: { 1: { name: 'keyword.other.directive.block.nginx' } },
      end: END_OF_BLOCK_DIRECTIVE,
      name: 'meta.directive.location.nginx',
      patterns: [
        { include: '#comment' },
        {
          match: r`(?<=\s)(~\*?)\s*(` + DQ + '|' + SQ + r`|[^\s;{}]+)`,
          captures: { 1: { name: 'keyword.operator.modifier.nginx' }, 2: { name: 'string.regexp.nginx' } },
        },
        {
          match: r`(?<=\s)(=|\^~)\s*(` + DQ + '|' + SQ + r`|[^\s;{}]+)`,
          captures: { 1: { name: 'keyword.operator.modifier.nginx' }, 2: { name: 'string.unquoted.path.nginx' } },
        },
        { include: '#named-location' },
        { include: '#strings' },
        { match: r`(?<=\s)[^\s;{}"'#]+`, name: 'string.unquoted.path.nginx' },
        { include: '#block' },
      ],
    },
    if: {
      begin: TS + r`(if)(?=[\s(]|$)`,
      beginCaptures: { 1: { name: 'keyword.other.directive.block.nginx keyword.control.conditional.nginx' } },
      end: END_OF_BLOCK_DIRECTIVE,
      name: 'meta.directive.if.nginx',
      patterns: [{ include: '#comment' }, { include: '#condition' }, { include: '#block' }],
    },
    condition: {
      begin: r`\(`,
      beginCaptures: { 0: { name: 'punctuation.section.condition.begin.nginx' } },
      // An unquoted ';' or '{' ends the statement in nginx, so a condition missing its ')' stops there.
      end: r`\)|` + END_OF_STATEMENT,
      endCaptures: { 0: { name: 'punctuation.section.condition.end.nginx' } },
      name: 'meta.condition.nginx',
      patterns: [
        {
          // The regex runs to the last ')' of its word when that ')' closes the condition.
          match: r`(?<=[\s(])(!?~\*?)\s+(` + DQ + '|' + SQ + r`|[^\s;{]+(?=\)(?:\s|\{|$))|[^\s;{]+)`,
          captures: { 1: { name: 'keyword.operator.regexp.nginx' }, 2: { name: 'string.regexp.nginx' } },
        },
        { match: r`(?<=[\s(])(!=|=|!?-[fdex])(?=\s)`, name: 'keyword.operator.comparison.nginx' },
        { include: '#strings' },
        { include: '#variables' },
        { include: '#escape' },
      ],
    },
    'lua-block-directive': {
      // nginx also reads a quoted directive name.
      begin: TS + r`(["']?)([A-Za-z0-9_]*by_lua_block)(\1)` + TE,
      beginCaptures: {
        1: { name: 'punctuation.definition.string.begin.nginx' },
        2: { name: 'keyword.other.directive.block.nginx' },
        3: { name: 'punctuation.definition.string.end.nginx' },
      },
      end: END_OF_BLOCK_DIRECTIVE,
      name: 'meta.directive.lua-block.nginx',
      patterns: [
        { include: '#comment' },
        {
          begin: r`\{`,
          beginCaptures: { 0: { name: 'punctuation.section.embedded.begin.nginx' } },
          end: r`\}`,
          endCaptures: { 0: { name: 'punctuation.section.embedded.end.nginx' } },
          contentName: 'meta.embedded.block.lua',
          patterns: [{ include: '#lua-body' }],
        },
        { include: '#arguments' },
      ],
    },
    // Lua strings, comments and braces are tracked here (as ngx_lua does) so that a '}' inside them
    // never closes the nginx block; everything else is left to the Lua grammar.
    'lua-body': {
      patterns: [
        {
          begin: r`--\[(=*)\[`,
          end: r`\]\1\]`,
          name: 'comment.block.lua',
          beginCaptures: { 0: { name: 'punctuation.definition.comment.begin.lua' } },
          endCaptures: { 0: { name: 'punctuation.definition.comment.end.lua' } },
        },
        {
          match: r`(--).*$`,
          name: 'comment.line.double-dash.lua',
          captures: { 1: { name: 'punctuation.definition.comment.lua' } },
        },
        {
          begin: r`\[(=*)\[`,
          end: r`\]\1\]`,
          name: 'string.quoted.other.multiline.lua',
          beginCaptures: { 0: { name: 'punctuation.definition.string.begin.lua' } },
          endCaptures: { 0: { name: 'punctuation.definition.string.end.lua' } },
        },
        {
          begin: '"',
          end: '"|$',
          name: 'string.quoted.double.lua',
          beginCaptures: { 0: { name: 'punctuation.definition.string.begin.lua' } },
          endCaptures: { 0: { name: 'punctuation.definition.string.end.lua' } },
          patterns: [{ include: '#lua-escape' }],
        },
        {
          begin: "'",
          end: "'|$",
          name: 'string.quoted.single.lua',
          beginCaptures: { 0: { name: 'punctuation.definition.string.begin.lua' } },
          endCaptures: { 0: { name: 'punctuation.definition.string.end.lua' } },
          patterns: [{ include: '#lua-escape' }],
        },
        {
          begin: r`\{`,
          beginCaptures: { 0: { name: 'punctuation.section.table.begin.lua' } },
          end: r`\}`,
          endCaptures: { 0: { name: 'punctuation.section.table.end.lua' } },
          patterns: [{ include: '#lua-body' }],
        },
        { include: 'source.lua' },
      ],
    },
    'lua-escape': {
      match: r`\\(?:\d{1,3}|x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]+\}|z|.)`,
      name: 'constant.character.escape.lua',
    },
    'table-directive': {
      // map, geo, split_clients, types and charset_map hold "key value;" tables instead of directives.
      begin: TS + r`(map|geo|split_clients|types|charset_map)` + TE,
      beginCaptures: { 1: { name: 'keyword.other.directive.block.nginx' } },
      end: END_OF_BLOCK_DIRECTIVE,
      name: 'meta.directive.$1.nginx',
      patterns: [
        { include: '#comment' },
        {
          begin: r`\{`,
          beginCaptures: { 0: { name: 'punctuation.section.block.begin.nginx' } },
          end: r`\}`,
          endCaptures: { 0: { name: 'punctuation.section.block.end.nginx' } },
          name: 'meta.block.table.nginx',
          patterns: [{ include: '#comment' }, { include: '#terminator' }, { include: '#table-entry' }],
        },
        { include: '#arguments' },
      ],
    },
    'table-entry': {
      begin: TS + r`(?:((?:default|hostnames|volatile|include|ranges|delete|proxy|proxy_recursive))(?=[\s;]|$)|("~\*?(?:[^"\\]|\\.)*"|'~\*?(?:[^'\\]|\\.)*'|~\*?[^\s;{}]+)|(` + DQ + '|' + SQ + r`)|([^\s;{}#"'][^\s;{}]*))`,
      beginCaptures: {
        1: { name: 'keyword.other.table.nginx' },
        2: { name: 'string.regexp.nginx' },
        3: { name: 'string.quoted.key.nginx', patterns: [{ include: '#escape' }] },
        4: { name: 'string.unquoted.key.nginx' },
      },
      end: END_OF_STATEMENT,
      name: 'meta.table.entry.nginx',
      patterns: [{ include: '#arguments' }],
    },
    arguments: {
      patterns: [
        { include: '#comment' },
        { include: '#strings' },
        {
          match: TS + r`(~\*?)([^\s;{}]*)`,
          captures: { 1: { name: 'keyword.operator.regexp.nginx' }, 2: { name: 'string.regexp.nginx' } },
        },
        { include: '#named-location' },
        { include: '#address' },
        { include: '#number' },
        { match: TS + r`(on|off)` + TE, name: 'constant.language.boolean.nginx' },
        { include: '#variables' },
        { include: '#escape' },
      ],
    },
    'named-location': {
      match: TS + r`(@)([\w.-]+)`,
      name: 'entity.name.function.named-location.nginx',
      captures: { 1: { name: 'punctuation.definition.named-location.nginx' } },
    },
    number: {
      match: TS + r`(\d+(?:\.\d+)?(?:(?:ms|[kKmMgGshdwy%])(?:\d+(?:ms|[smhdwMy]))*)?)` + TE,
      captures: {
        1: {
          name: 'constant.numeric.nginx',
          patterns: [{ match: r`ms|[A-Za-z%]`, name: 'keyword.other.unit.nginx' }],
        },
      },
    },
    address: {
      patterns: [
        {
          match: TS + r`((?:\d{1,3}\.){3}\d{1,3})(?:(/)(\d{1,2}))?(?:(:)(\d+))?` + TE,
          captures: {
            1: { name: 'constant.numeric.ip-address.nginx' },
            2: { name: 'punctuation.separator.cidr.nginx' },
            3: { name: 'constant.numeric.prefix-length.nginx' },
            4: { name: 'punctuation.separator.port.nginx' },
            5: { name: 'constant.numeric.port.nginx' },
          },
        },
        {
          match: TS + r`(\[[0-9A-Fa-f:.]*\])(?:(:)(\d+))?` + TE,
          captures: {
            1: { name: 'constant.numeric.ip-address.nginx' },
            2: { name: 'punctuation.separator.port.nginx' },
            3: { name: 'constant.numeric.port.nginx' },
          },
        },
      ],
    },
    variables: {
      patterns: [
        {
          match: r`(\$)(\{)(\w+)(\})`,
          name: 'variable.other.nginx',
          captures: {
            1: { name: 'punctuation.definition.variable.nginx' },
            2: { name: 'punctuation.definition.variable.begin.nginx' },
            4: { name: 'punctuation.definition.variable.end.nginx' },
          },
        },
        {
          match: r`(\$)(\w+)`,
          name: 'variable.other.nginx',
          captures: { 1: { name: 'punctuation.definition.variable.nginx' } },
        },
      ],
    },
    escape: { match: r`\\.`, name: 'constant.character.escape.nginx' },
    strings: {
      patterns: [
        {
          begin: r`(?<![^\s;{}(])"`,
          beginCaptures: { 0: { name: 'punctuation.definition.string.begin.nginx' } },
          end: '"',
          endCaptures: { 0: { name: 'punctuation.definition.string.end.nginx' } },
          name: 'string.quoted.double.nginx',
          patterns: [{ include: '#escape' }, { include: '#variables' }],
        },
        {
          begin: r`(?<![^\s;{}(])'`,
          beginCaptures: { 0: { name: 'punctuation.definition.string.begin.nginx' } },
          end: "'",
          endCaptures: { 0: { name: 'punctuation.definition.string.end.nginx' } },
          name: 'string.quoted.single.nginx',
          patterns: [{ include: '#escape' }, { include: '#variables' }],
        },
      ],
    },
  },
};
export default grammar;
