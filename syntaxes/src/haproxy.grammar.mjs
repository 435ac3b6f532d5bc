// Source of syntaxes/haproxy.tmLanguage.json: run `npm run build:grammars` after editing (String.raw keeps the regexes readable).
const r = String.raw;
const SECTIONS = [
  'global', 'defaults', 'frontend', 'backend', 'listen', 'resolvers', 'peers', 'userlist', 'mailers', 'program',
  'http-errors', 'ring', 'cache', 'log-forward', 'crt-store', 'fcgi-app', 'traces', 'acme',
].join('|');
const PREDEFINED_ACLS = [
  'FALSE', 'HTTP', 'HTTP_1\\.0', 'HTTP_1\\.1', 'HTTP_2\\.0', 'HTTP_3\\.0', 'HTTP_CONTENT', 'HTTP_URL_ABS', 'HTTP_URL_SLASH',
  'HTTP_URL_STAR', 'LOCALHOST', 'METH_CONNECT', 'METH_DELETE', 'METH_GET', 'METH_HEAD', 'METH_OPTIONS', 'METH_POST',
  'METH_PUT', 'METH_TRACE', 'RDP_COOKIE', 'REQ_CONTENT', 'TRUE', 'WAIT_END',
].join('|');
const BARE_FETCHES = [
  'src', 'dst', 'src_port', 'dst_port', 'path', 'pathq', 'base', 'base32', 'url', 'query', 'method', 'be_name',
  'fe_name', 'srv_name', 'ssl_fc_sni', 'req\\.ssl_sni', 'req\\.body', 'res\\.body', 'uuid', 'date', 'rand',
].join('|');
// Fetch and converter names (a few fetches have a '-', as unique-id).
const SAMPLE_NAME = r`[A-Za-z_][\w.-]*`;
const CALL_NAME = r`[A-Za-z_][\w.]*`;
const LINE_END = r`$`;

/** A line that starts with a keyword: `begin` captures what is special, the rest are arguments. */
function line(begin, beginCaptures, name, extra = []) {
  return { begin, beginCaptures, end: LINE_END, name, patterns: [...extra, { include: '#arguments' }] };
}

const grammar = {
  $schema: 'https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json',
  name: 'HAProxy',
  scopeName: 'source.haproxy',
  fileTypes: ['cfg', 'haproxy.cfg'],
  patterns: [
    { include: '#comment' },
    { include: '#conditional-directive' },
    { include: '#section-header' },
    { include: '#statement' },
  ],
  repository: {
    comment: {
      match: r`(#).*$`,
      name: 'comment.line.number-sign.haproxy',
      captures: { 1: { name: 'punctuation.definition.comment.haproxy' } },
    },
    'section-header': line(
      r`^\s*(` + SECTIONS + r`)(?=\s|$)`,
      { 1: { name: 'storage.type.section.haproxy' } },
      'meta.section.header.haproxy',
      [
        { match: r`\G\s+([^\s#]+)`, captures: { 1: { name: 'entity.name.section.haproxy' } } },
        {
          match: r`(?<=\s)(from)\s+([^\s#]+)`,
          captures: { 1: { name: 'keyword.other.from.haproxy' }, 2: { name: 'entity.name.section.haproxy' } },
        },
      ],
    ),
    'conditional-directive': {
      patterns: [
        line(
          r`^\s*(\.(?:if|elif))(?=\s|$)`,
          { 1: { name: 'keyword.control.conditional.haproxy' } },
          'meta.preprocessor.haproxy',
          [
            {
              match: r`\b(defined|feature|streq|strneq|version_atleast|version_before|enabled)(?=\()`,
              name: 'support.function.predicate.haproxy',
            },
            { match: r`&&|\|\||!`, name: 'keyword.operator.logical.haproxy' },
          ],
        ),
        {
          match: r`^\s*(\.(?:else|endif))(?=\s|$)`,
          captures: { 1: { name: 'keyword.control.conditional.haproxy' } },
        },
        line(
          r`^\s*(\.(?:notice|warning|alert|diag))(?=\s|$)`,
          { 1: { name: 'keyword.other.preprocessor.haproxy' } },
          'meta.preprocessor.haproxy',
        ),
      ],
    },
    statement: {
      patterns: [
        line(
          r`^\s*(?:(no|default)\s+)?(option)\s+([^\s#]+)`,
          {
            1: { name: 'storage.modifier.haproxy' },
            2: { name: 'keyword.other.haproxy' },
            3: { name: 'support.constant.option.haproxy' },
          },
          'meta.statement.option.haproxy',
        ),
        line(
          r`^\s*(acl)\s+([^\s#]+)(?:\s+(?=[A-Za-z_]))?`,
          { 1: { name: 'keyword.other.haproxy' }, 2: { name: 'entity.name.function.acl.haproxy' } },
          'meta.statement.acl.haproxy',
          [{ include: '#sample-at-anchor' }, { include: '#acl-values' }],
        ),
        line(
          r`^\s*(http-request|http-response|http-after-response|tcp-request|tcp-response|http-check|tcp-check|quic-initial)` +
            r`(?:\s+(connection|content|session|inspect-delay))?(?:\s+([a-z][\w-]*))?`,
          {
            1: { name: 'keyword.other.haproxy' },
            2: { name: 'keyword.other.haproxy' },
            3: { name: 'support.function.action.haproxy' },
          },
          'meta.statement.rule.haproxy',
        ),
        line(
          r`^\s*(server|server-template|peer|mailer|nameserver)\s+([^\s#]+)`,
          { 1: { name: 'keyword.other.haproxy' }, 2: { name: 'entity.name.tag.server.haproxy' } },
          'meta.statement.server.haproxy',
        ),
        line(
          r`^\s*(use_backend|default_backend)\s+(?![%"'])([^\s#]+)`,
          { 1: { name: 'keyword.other.haproxy' }, 2: { name: 'entity.name.section.haproxy' } },
          'meta.statement.haproxy',
        ),
        line(
          r`^\s*(?:(no|default)\s+)?([A-Za-z][\w.-]*)`,
          { 1: { name: 'storage.modifier.haproxy' }, 2: { name: 'keyword.other.haproxy' } },
          'meta.statement.haproxy',
        ),
      ],
    },
    arguments: {
      patterns: [
        { include: '#comment' },
        { include: '#escape' },
        { include: '#strings' },
        { include: '#condition' },
        { include: '#sample-expression' },
        { include: '#log-format-placeholder' },
        { include: '#env-variable-braced' },
        { include: '#sample-call' },
        { include: '#sample-chain' },
        { include: '#keyword-arguments' },
        { include: '#address' },
        { include: '#number' },
      ],
    },
    escape: { match: r`\\(?:x[0-9A-Fa-f]{2}|.)`, name: 'constant.character.escape.haproxy' },
    strings: {
      patterns: [
        {
          begin: '"',
          beginCaptures: { 0: { name: 'punctuation.definition.string.begin.haproxy' } },
          end: '"|$',
          endCaptures: { 0: { name: 'punctuation.definition.string.end.haproxy' } },
          name: 'string.quoted.double.haproxy',
          patterns: [
            { include: '#escape' },
            { include: '#env-variable' },
            { include: '#sample-expression' },
            { include: '#log-format-placeholder' },
          ],
        },
        {
          // Strong quoting: nothing is interpreted, but log-format expressions are read later.
          begin: "'",
          beginCaptures: { 0: { name: 'punctuation.definition.string.begin.haproxy' } },
          end: "'|$",
          endCaptures: { 0: { name: 'punctuation.definition.string.end.haproxy' } },
          name: 'string.quoted.single.haproxy',
          patterns: [{ include: '#sample-expression' }, { include: '#log-format-placeholder' }],
        },
      ],
    },
    'env-variable': {
      patterns: [
        { include: '#env-variable-braced' },
        {
          match: r`(\$)([A-Za-z_]\w*)`,
          name: 'variable.other.environment.haproxy',
          captures: { 1: { name: 'punctuation.definition.variable.haproxy' } },
        },
      ],
    },
    'env-variable-braced': {
      match: r`(\$)(\{)(\.?[A-Za-z_]\w*)(\[\*\])?(?:(-)([^}"]*))?(\})`,
      name: 'variable.other.environment.haproxy',
      captures: {
        1: { name: 'punctuation.definition.variable.haproxy' },
        2: { name: 'punctuation.definition.variable.begin.haproxy' },
        4: { name: 'keyword.operator.expansion.haproxy' },
        5: { name: 'keyword.operator.default.haproxy' },
        6: { name: 'string.unquoted.default.haproxy' },
        7: { name: 'punctuation.definition.variable.end.haproxy' },
      },
    },
    condition: {
      begin: r`(?<=\s)(if|unless)(?=\s|$)`,
      beginCaptures: { 1: { name: 'keyword.control.conditional.haproxy' } },
      end: r`(?=#)|$`,
      name: 'meta.condition.haproxy',
      patterns: [
        { include: '#anonymous-acl' },
        { match: r`(?<![^\s])(!)`, name: 'keyword.operator.logical.haproxy' },
        { match: r`(?<![^\s])(\|\||or)(?=\s|$)`, name: 'keyword.operator.logical.haproxy' },
        { match: r`(?<![^\s!])(?:` + PREDEFINED_ACLS + r`)(?=\s|$)`, name: 'support.constant.acl.haproxy' },
        { match: r`(?<![^\s!])[\w.:-]+`, name: 'variable.other.acl.haproxy' },
        { include: '#strings' },
      ],
    },
    'anonymous-acl': {
      begin: r`(?<![^\s!])(\{)\s*`,
      beginCaptures: { 1: { name: 'punctuation.section.acl.begin.haproxy' } },
      end: r`\}`,
      endCaptures: { 0: { name: 'punctuation.section.acl.end.haproxy' } },
      name: 'meta.acl.anonymous.haproxy',
      patterns: [{ include: '#sample-at-anchor' }, { include: '#acl-values' }],
    },
    'acl-values': {
      patterns: [
        {
          match: r`(?<=\s)(-m)\s+([a-z]+)(?=\s|$)`,
          captures: { 1: { name: 'storage.modifier.flag.haproxy' }, 2: { name: 'support.constant.match-method.haproxy' } },
        },
        { match: r`(?<=\s)(?:-[ifMnu]|--)(?=\s|$)`, name: 'storage.modifier.flag.haproxy' },
        { match: r`(?<=\s)(?:eq|ne|ge|gt|le|lt)(?=\s|$)`, name: 'keyword.operator.comparison.haproxy' },
        { include: '#arguments' },
      ],
    },
    // The first word where a sample is expected (after `acl NAME`, `{`, `%[`) is a fetch, followed by converters.
    'sample-at-anchor': {
      begin: r`\G(` + SAMPLE_NAME + ')',
      beginCaptures: { 1: { name: 'support.function.fetch.haproxy' } },
      end: r`(?=[\s#\]}]|$)`,
      name: 'meta.sample.haproxy',
      patterns: [{ include: '#sample-arguments' }, { include: '#converter' }],
    },
    // Elsewhere a word glued to '(' (and without a '-', unlike actions such as set-var) is a fetch call.
    'sample-call': {
      begin: r`(?<![^\s,!(])(` + CALL_NAME + r`)(?=\()`,
      beginCaptures: { 1: { name: 'support.function.fetch.haproxy' } },
      end: r`(?=[\s#\]}]|$)`,
      name: 'meta.sample.haproxy',
      patterns: [{ include: '#sample-arguments' }, { include: '#converter' }],
    },
    // A bare word glued to ,converter is a fetch too (src,ipmask(24)) when it is a common fetch
    // or when a converter of the chain takes arguments; plain lists such as users a,b are left alone.
    'sample-chain': {
      begin: r`(?<![^\s!(])(?:(` + BARE_FETCHES + r`)(?=,[a-z])|([a-z][\w.]*)(?=(?:,[a-z][\w.]*)+\())`,
      beginCaptures: { 1: { name: 'support.function.fetch.haproxy' }, 2: { name: 'support.function.fetch.haproxy' } },
      end: r`(?=[\s#\]}]|$)`,
      name: 'meta.sample.haproxy',
      patterns: [{ include: '#sample-arguments' }, { include: '#converter' }],
    },
    converter: {
      match: r`(,)(` + SAMPLE_NAME + ')',
      captures: {
        1: { name: 'punctuation.separator.converter.haproxy' },
        2: { name: 'support.function.converter.haproxy' },
      },
    },
    'sample-expression': {
      begin: r`(%)(\{[^}\s]*\})?(\[)`,
      beginCaptures: {
        1: { name: 'punctuation.definition.sample.begin.haproxy' },
        2: { name: 'storage.modifier.log-format.haproxy' },
        3: { name: 'punctuation.definition.sample.begin.haproxy' },
      },
      end: r`\]`,
      endCaptures: { 0: { name: 'punctuation.definition.sample.end.haproxy' } },
      name: 'meta.sample-expression.haproxy',
      patterns: [{ include: '#sample-at-anchor' }, { include: '#sample-arguments' }, { include: '#converter' }],
    },
    'sample-arguments': {
      begin: r`\(`,
      beginCaptures: { 0: { name: 'punctuation.section.arguments.begin.haproxy' } },
      end: r`\)`,
      endCaptures: { 0: { name: 'punctuation.section.arguments.end.haproxy' } },
      name: 'meta.arguments.haproxy',
      patterns: [{ include: '#argument-content' }],
    },
    // Arguments glued to a keyword or an action, as in set-var(txn.x) or track-sc0.
    'keyword-arguments': {
      begin: r`(?<=[\w.-])\(`,
      beginCaptures: { 0: { name: 'punctuation.section.arguments.begin.haproxy' } },
      end: r`\)|(?=\s|$)`,
      endCaptures: { 0: { name: 'punctuation.section.arguments.end.haproxy' } },
      name: 'meta.arguments.haproxy',
      patterns: [{ include: '#argument-content' }],
    },
    'argument-content': {
      patterns: [
        {
          // Quotes escaped at the top level are quotes for the argument parser.
          begin: r`\\"`,
          end: r`\\"`,
          name: 'string.quoted.double.haproxy',
        },
        { include: '#escape' },
        { include: '#strings' },
        { include: '#env-variable-braced' },
        { match: ',', name: 'punctuation.separator.arguments.haproxy' },
        { match: r`[^,()\\"'\s$]+`, name: 'variable.parameter.haproxy' },
      ],
    },
    'log-format-placeholder': {
      match: r`%%|(%)(\{[^}\s]*\})?([A-Za-z][A-Za-z_]*)`,
      name: 'constant.other.placeholder.haproxy',
      captures: { 2: { name: 'storage.modifier.log-format.haproxy' } },
    },
    address: {
      patterns: [
        {
          match: r`(?<![^\s,])([a-z][a-z0-9]*)(@)`,
          captures: { 1: { name: 'storage.type.address-family.haproxy' }, 2: { name: 'punctuation.separator.address-family.haproxy' } },
        },
        {
          match: r`(?<![^\s,@])((?:\d{1,3}\.){3}\d{1,3})(?:(/)(\d{1,2}))?(?:(:)(\d+(?:-\d+)?))?(?=[\s,#)]|$)`,
          captures: {
            1: { name: 'constant.numeric.ip-address.haproxy' },
            2: { name: 'punctuation.separator.cidr.haproxy' },
            3: { name: 'constant.numeric.prefix-length.haproxy' },
            4: { name: 'punctuation.separator.port.haproxy' },
            5: { name: 'constant.numeric.port.haproxy' },
          },
        },
        {
          match: r`(?<![^\s,@])(\*|::)?(:)(\d+(?:-\d+)?)(?=[\s,#]|$)`,
          captures: {
            1: { name: 'constant.numeric.ip-address.haproxy' },
            2: { name: 'punctuation.separator.port.haproxy' },
            3: { name: 'constant.numeric.port.haproxy' },
          },
        },
      ],
    },
    number: {
      match: r`(?<![^\s,(=])(\d+(?:\.\d+)?)(us|ms|[smhdkKmMgG])?(?=[\s,)#\]]|$)`,
      captures: {
        1: { name: 'constant.numeric.haproxy' },
        2: { name: 'constant.numeric.haproxy keyword.other.unit.haproxy' },
      },
    },
  },
};
export default grammar;
