// A structural check of a SARIF 2.1.0 log: what the OASIS 2.1.0 JSON schema requires of the
// objects `check --format sarif` writes (required properties, types, enums, minimums, no
// properties the schema does not define on these objects), plus the references between them
// (ruleIndex to the rule table, regions that end after they start). Written for these tests
// from the specification's property lists; returns every problem found as a list of paths.

type Json = unknown;

interface Ctx {
  problems: string[];
}

const isObj = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: Json): v is number => typeof v === 'number' && Number.isInteger(v);

function obj(c: Ctx, v: Json, path: string, allowed: readonly string[], required: readonly string[] = []): v is Record<string, Json> {
  if (!isObj(v)) {
    c.problems.push(`${path}: not an object`);
    return false;
  }
  for (const k of required) if (!(k in v)) c.problems.push(`${path}: missing required "${k}"`);
  for (const k of Object.keys(v)) if (!allowed.includes(k)) c.problems.push(`${path}: "${k}" is not a property the schema defines here`);
  return true;
}

function str(c: Ctx, v: Json, path: string): void {
  if (typeof v !== 'string') c.problems.push(`${path}: not a string`);
}

function uri(c: Ctx, v: Json, path: string, absolute: boolean): void {
  if (typeof v !== 'string') {
    c.problems.push(`${path}: not a string`);
    return;
  }
  if (absolute) {
    try {
      new URL(v);
    } catch {
      c.problems.push(`${path}: not an absolute URI: ${v}`);
    }
  } else if (/[\s\\]/.test(v)) c.problems.push(`${path}: not a URI reference: ${v}`);
}

function intMin(c: Ctx, v: Json, path: string, min: number): void {
  if (v === undefined) return;
  if (!isInt(v) || v < min) c.problems.push(`${path}: must be an integer >= ${min} (got ${JSON.stringify(v)})`);
}

function message(c: Ctx, v: Json, path: string): void {
  if (!obj(c, v, path, ['text', 'markdown', 'id', 'arguments', 'properties'])) return;
  if (!('text' in v) && !('id' in v)) c.problems.push(`${path}: a message needs "text" or "id"`);
  if ('text' in v) str(c, v.text, `${path}.text`);
}

function multiformat(c: Ctx, v: Json, path: string): void {
  if (!obj(c, v, path, ['text', 'markdown', 'properties'], ['text'])) return;
  str(c, v.text, `${path}.text`);
  if ('markdown' in v) str(c, v.markdown, `${path}.markdown`);
}

function propertyBag(c: Ctx, v: Json, path: string): void {
  if (!isObj(v)) {
    c.problems.push(`${path}: not an object`);
    return;
  }
  if ('tags' in v) {
    const tags = v.tags;
    if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string') || new Set(tags).size !== tags.length)
      c.problems.push(`${path}.tags: must be unique strings`);
  }
}

function artifactLocation(c: Ctx, v: Json, path: string): void {
  if (!obj(c, v, path, ['uri', 'uriBaseId', 'index', 'description', 'properties'])) return;
  if ('uri' in v) uri(c, v.uri, `${path}.uri`, !('uriBaseId' in v));
  if ('uriBaseId' in v) str(c, v.uriBaseId, `${path}.uriBaseId`);
  intMin(c, v.index, `${path}.index`, -1);
}

function region(c: Ctx, v: Json, path: string): void {
  if (
    !obj(c, v, path, [
      'startLine',
      'startColumn',
      'endLine',
      'endColumn',
      'charOffset',
      'charLength',
      'byteOffset',
      'byteLength',
      'snippet',
      'message',
      'sourceLanguage',
      'properties',
    ])
  )
    return;
  if (!('startLine' in v) && !('charOffset' in v) && !('byteOffset' in v))
    c.problems.push(`${path}: needs startLine, charOffset or byteOffset`);
  for (const k of ['startLine', 'startColumn', 'endLine', 'endColumn']) intMin(c, v[k], `${path}.${k}`, 1);
  const sl = v.startLine as number;
  const el = (v.endLine ?? sl) as number;
  if (isInt(sl) && isInt(el) && el < sl) c.problems.push(`${path}: ends (line ${el}) before it starts (line ${sl})`);
  if (isInt(sl) && el === sl && isInt(v.startColumn) && isInt(v.endColumn) && v.endColumn < v.startColumn)
    c.problems.push(`${path}: end column before start column`);
}

const LEVELS = ['none', 'note', 'warning', 'error'];

function reportingDescriptor(c: Ctx, v: Json, path: string): void {
  const allowed = [
    'id',
    'deprecatedIds',
    'guid',
    'deprecatedGuids',
    'name',
    'deprecatedNames',
    'shortDescription',
    'fullDescription',
    'messageStrings',
    'defaultConfiguration',
    'helpUri',
    'help',
    'relationships',
    'properties',
  ];
  if (!obj(c, v, path, allowed, ['id'])) return;
  str(c, v.id, `${path}.id`);
  if ('name' in v) str(c, v.name, `${path}.name`);
  if ('shortDescription' in v) multiformat(c, v.shortDescription, `${path}.shortDescription`);
  if ('fullDescription' in v) multiformat(c, v.fullDescription, `${path}.fullDescription`);
  if ('help' in v) multiformat(c, v.help, `${path}.help`);
  if ('helpUri' in v) uri(c, v.helpUri, `${path}.helpUri`, true);
  if (
    'defaultConfiguration' in v &&
    obj(c, v.defaultConfiguration, `${path}.defaultConfiguration`, ['enabled', 'level', 'rank', 'parameters', 'properties'])
  ) {
    const level = (v.defaultConfiguration as Record<string, Json>).level;
    if (level !== undefined && !LEVELS.includes(level as string))
      c.problems.push(`${path}.defaultConfiguration.level: not one of ${LEVELS}`);
  }
  if ('properties' in v) propertyBag(c, v.properties, `${path}.properties`);
}

function result(c: Ctx, v: Json, path: string, rules: Record<string, Json>[]): void {
  const allowed = [
    'guid',
    'correlationGuid',
    'ruleId',
    'ruleIndex',
    'rule',
    'kind',
    'level',
    'message',
    'analysisTarget',
    'locations',
    'hostedViewerUri',
    'partialFingerprints',
    'fingerprints',
    'stacks',
    'codeFlows',
    'graphs',
    'graphTraversals',
    'relatedLocations',
    'suppressions',
    'baselineState',
    'rank',
    'attachments',
    'workItemUris',
    'provenance',
    'fixes',
    'taxa',
    'webRequest',
    'webResponse',
    'properties',
  ];
  if (!obj(c, v, path, allowed, ['message'])) return;
  message(c, v.message, `${path}.message`);
  if ('ruleId' in v) str(c, v.ruleId, `${path}.ruleId`);
  intMin(c, v.ruleIndex, `${path}.ruleIndex`, -1);
  if (isInt(v.ruleIndex) && v.ruleIndex >= 0) {
    const rule = rules[v.ruleIndex];
    if (!rule) c.problems.push(`${path}.ruleIndex: no rule ${v.ruleIndex} in the driver's rules`);
    else if (rule.id !== v.ruleId) c.problems.push(`${path}.ruleIndex: rule ${v.ruleIndex} is ${String(rule.id)}, not ${String(v.ruleId)}`);
  }
  if ('level' in v && !LEVELS.includes(v.level as string)) c.problems.push(`${path}.level: not one of ${LEVELS}`);
  if ('locations' in v) {
    if (!Array.isArray(v.locations)) c.problems.push(`${path}.locations: not an array`);
    else
      v.locations.forEach((loc, i) => {
        const p = `${path}.locations[${i}]`;
        if (!obj(c, loc, p, ['id', 'physicalLocation', 'logicalLocations', 'message', 'annotations', 'relationships', 'properties']))
          return;
        const pl = (loc as Record<string, Json>).physicalLocation;
        if (pl === undefined) return;
        if (!obj(c, pl, `${p}.physicalLocation`, ['address', 'artifactLocation', 'region', 'contextRegion', 'properties'])) return;
        if (!('address' in pl) && !('artifactLocation' in pl)) c.problems.push(`${p}.physicalLocation: needs address or artifactLocation`);
        if ('artifactLocation' in pl) artifactLocation(c, pl.artifactLocation, `${p}.physicalLocation.artifactLocation`);
        if ('region' in pl) region(c, pl.region, `${p}.physicalLocation.region`);
      });
  }
  if ('fixes' in v) {
    if (!Array.isArray(v.fixes)) c.problems.push(`${path}.fixes: not an array`);
    else
      v.fixes.forEach((fx, i) => {
        const p = `${path}.fixes[${i}]`;
        if (!obj(c, fx, p, ['description', 'artifactChanges', 'properties'], ['artifactChanges'])) return;
        if ('description' in fx) message(c, fx.description, `${p}.description`);
        const changes = fx.artifactChanges;
        if (!Array.isArray(changes) || changes.length < 1) {
          c.problems.push(`${p}.artifactChanges: needs at least one`);
          return;
        }
        changes.forEach((ch, j) => {
          const q = `${p}.artifactChanges[${j}]`;
          if (!obj(c, ch, q, ['artifactLocation', 'replacements', 'properties'], ['artifactLocation', 'replacements'])) return;
          artifactLocation(c, ch.artifactLocation, `${q}.artifactLocation`);
          const reps = ch.replacements;
          if (!Array.isArray(reps) || reps.length < 1) {
            c.problems.push(`${q}.replacements: needs at least one`);
            return;
          }
          reps.forEach((rep, k) => {
            const r = `${q}.replacements[${k}]`;
            if (!obj(c, rep, r, ['deletedRegion', 'insertedContent', 'properties'], ['deletedRegion'])) return;
            region(c, rep.deletedRegion, `${r}.deletedRegion`);
            if (
              'insertedContent' in rep &&
              obj(c, rep.insertedContent, `${r}.insertedContent`, ['text', 'binary', 'rendered', 'properties'])
            ) {
              str(c, (rep.insertedContent as Record<string, Json>).text, `${r}.insertedContent.text`);
            }
          });
        });
      });
  }
}

/** Every way `log` departs from the SARIF 2.1.0 structure (empty: none). */
export function sarifProblems(log: Json): string[] {
  const c: Ctx = { problems: [] };
  if (!obj(c, log, '$', ['$schema', 'version', 'runs', 'inlineExternalProperties', 'properties'], ['version', 'runs'])) return c.problems;
  if (log.version !== '2.1.0') c.problems.push('$.version: must be "2.1.0"');
  if ('$schema' in log) uri(c, log.$schema, '$.$schema', true);
  if (!Array.isArray(log.runs)) {
    c.problems.push('$.runs: not an array');
    return c.problems;
  }
  log.runs.forEach((run, i) => {
    const p = `$.runs[${i}]`;
    const allowed = [
      'tool',
      'invocations',
      'conversion',
      'language',
      'versionControlProvenance',
      'originalUriBaseIds',
      'artifacts',
      'logicalLocations',
      'graphs',
      'results',
      'automationDetails',
      'runAggregates',
      'baselineGuid',
      'redactionTokens',
      'defaultEncoding',
      'defaultSourceLanguage',
      'newlineSequences',
      'columnKind',
      'externalPropertyFileReferences',
      'threadFlowLocations',
      'taxonomies',
      'addresses',
      'translations',
      'policies',
      'webRequests',
      'webResponses',
      'specialLocations',
      'properties',
    ];
    if (!obj(c, run, p, allowed, ['tool'])) return;
    let rules: Record<string, Json>[] = [];
    if (obj(c, run.tool, `${p}.tool`, ['driver', 'extensions', 'properties'], ['driver'])) {
      const driver = (run.tool as Record<string, Json>).driver;
      const dAllowed = [
        'guid',
        'name',
        'organization',
        'product',
        'productSuite',
        'shortDescription',
        'fullDescription',
        'fullName',
        'version',
        'semanticVersion',
        'dottedQuadFileVersion',
        'releaseDateUtc',
        'downloadUri',
        'informationUri',
        'globalMessageStrings',
        'notifications',
        'rules',
        'taxa',
        'locations',
        'language',
        'contents',
        'isComprehensive',
        'localizedDataSemanticVersion',
        'minimumRequiredLocalizedDataSemanticVersion',
        'associatedComponent',
        'translationMetadata',
        'supportedTaxonomies',
        'properties',
      ];
      if (obj(c, driver, `${p}.tool.driver`, dAllowed, ['name'])) {
        str(c, driver.name, `${p}.tool.driver.name`);
        if ('informationUri' in driver) uri(c, driver.informationUri, `${p}.tool.driver.informationUri`, true);
        if ('rules' in driver) {
          if (!Array.isArray(driver.rules)) c.problems.push(`${p}.tool.driver.rules: not an array`);
          else {
            rules = driver.rules as Record<string, Json>[];
            const ids = new Set<string>();
            rules.forEach((r, j) => {
              reportingDescriptor(c, r, `${p}.tool.driver.rules[${j}]`);
              if (isObj(r) && typeof r.id === 'string') {
                if (ids.has(r.id)) c.problems.push(`${p}.tool.driver.rules[${j}]: duplicate id ${r.id}`);
                ids.add(r.id);
              }
            });
          }
        }
      }
    }
    if ('originalUriBaseIds' in run) {
      if (!isObj(run.originalUriBaseIds)) c.problems.push(`${p}.originalUriBaseIds: not an object`);
      else for (const [k, loc] of Object.entries(run.originalUriBaseIds)) artifactLocation(c, loc, `${p}.originalUriBaseIds.${k}`);
    }
    if ('columnKind' in run && !['utf16CodeUnits', 'unicodeCodePoints'].includes(run.columnKind as string))
      c.problems.push(`${p}.columnKind: not a column kind`);
    if ('results' in run) {
      if (!Array.isArray(run.results)) c.problems.push(`${p}.results: not an array`);
      else run.results.forEach((r, j) => result(c, r, `${p}.results[${j}]`, rules));
    }
  });
  return c.problems;
}
