// Validation and publishing: the validation schedule (schedule.ts: when to validate, one run at
// a time, adaptive delay, warm-up) runs what is here; the diagnostics of a document's version are
// kept so code actions need no second validation. The messages of the last "Validate with
// nginx -t / haproxy -c" are kept per file until the next run or an edit, and published with the
// document's own.
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import type { ServiceSettings } from '../core/types';
import type { NginxBuildFacts } from '../host/binaryFacts';
import type { ServerContext } from './context';
import type { ClientSettings } from './settings';
import { OTHERS_DELAY_MS, ValidationSchedule, systemClock, type DocSchedule, type ValidationJob } from './schedule';
import { warmUpRuns } from './warmUp';

export class Publisher {
  /** Diagnostics of the last binary check, per uri (included files too, open or not). */
  private readonly binaryByUri = new Map<string, Diagnostic[]>();
  /** Which uris each checked document's last run gave diagnostics to. */
  private readonly binaryRuns = new Map<string, string[]>();
  private readonly schedule: ValidationSchedule;

  constructor(
    private readonly ctx: ServerContext,
    private readonly settings: ClientSettings,
  ) {
    this.schedule = new ValidationSchedule(
      {
        scheduleOf: (uri) => ctx.docs.stateOf(uri).schedule,
        isCurrent: (uri, s) => ctx.docs.peek(uri)?.schedule === s,
        delayFloor: (uri) => settings.delayOf(uri),
        prepare: (uri, s) => this.prepare(uri, s),
        onError: ctx.logError,
      },
      ctx.host.clock ?? systemClock,
    );
  }

  /** The local nginx's build (`nginx -V`), for the module notes diagnose() adds; undefined without a local nginx. */
  nginxBuild(): NginxBuildFacts | undefined {
    try {
      return this.ctx.host.probe.nginxBuild?.();
    } catch (err) {
      this.ctx.logError('nginx -V', err);
      return undefined;
    }
  }

  /** The diagnostics of a document's current version, and whether they had to be computed. */
  compute(doc: TextDocument, settings: ServiceSettings): { diagnostics: Diagnostic[]; computed: boolean } {
    const st = this.ctx.docs.stateOf(doc.uri);
    const hit = st.last;
    if (hit && hit.version === doc.version && hit.settings === settings) return { diagnostics: hit.diagnostics, computed: false };
    // a file the project config ignores gets none; a very large one only a syntax scan
    const diagnostics = service.diagnose(doc, this.ctx.docs.languageOf(doc), settings, this.ctx.wsIndex, {
      ignored: st.ignored,
      large: this.ctx.docs.isLarge(doc),
      cache: this.ctx.parses,
      nginxBuild: this.nginxBuild(),
    });
    st.last = { version: doc.version, settings, diagnostics };
    return { diagnostics, computed: true };
  }

  diagnosticsOf(doc: TextDocument, settings: ServiceSettings): Diagnostic[] {
    return this.compute(doc, settings).diagnostics;
  }

  /** Asks for a validation of `uri` (schedule.ts `request`). */
  request(uri: string, delay: number, debounce = false): void {
    this.schedule.request(uri, delay, debounce);
  }

  /** The delay after an edit (schedule.ts `editDelay`). */
  editDelay(uri: string): number {
    return this.schedule.editDelay(uri);
  }

  /** A closed document: its pending validation is dropped. */
  cancel(s: DocSchedule): void {
    this.schedule.cancel(s);
  }

  revalidateAll(): void {
    for (const doc of this.ctx.docs.all()) this.request(doc.uri, 0);
  }

  /**
   * An edit in one file can change another's diagnostics (an include, an upstream used elsewhere).
   * Their timers restart with each edit: validated once the typing elsewhere pauses, not every
   * 500 ms while it goes on.
   */
  revalidateOthers(uri: string, delay = OTHERS_DELAY_MS): void {
    for (const doc of this.ctx.docs.all()) {
      if (doc.uri === uri) continue;
      this.ctx.docs.stateOf(doc.uri).last = undefined;
      this.request(doc.uri, delay, true);
    }
  }

  /** An edit: the binary's lines no longer match the text. */
  forgetBinary(uri: string): void {
    this.binaryByUri.delete(uri);
  }

  /** The diagnostics of a binary run of `uri`, by the uris they are on; every uri touched is published again. */
  setBinaryRun(uri: string, byUri: Map<string, Diagnostic[]>): void {
    const previous = this.binaryRuns.get(uri) ?? [];
    for (const u of previous) this.binaryByUri.delete(u);
    for (const [u, diags] of byUri) this.binaryByUri.set(u, [...(this.binaryByUri.get(u) ?? []), ...diags]);
    this.binaryRuns.set(uri, [...byUri.keys()]);
    for (const u of new Set([...previous, ...byUri.keys(), uri])) this.republish(u);
  }

  private republish(uri: string): void {
    if (this.ctx.docs.get(uri)) {
      this.ctx.docs.stateOf(uri).last = undefined;
      this.request(uri, 0);
    } else {
      void this.ctx.connection
        .sendDiagnostics({ uri, diagnostics: this.binaryByUri.get(uri) ?? [] })
        .catch((err: unknown) => this.ctx.logError('binary diagnostics', err));
    }
  }

  private async prepare(uri: string, s: DocSchedule): Promise<ValidationJob | undefined> {
    const { docs } = this.ctx;
    const doc = docs.get(uri);
    if (!doc) return undefined;
    const version = doc.version;
    const settings = await this.settings.settingsFor(uri);
    // closed meanwhile (maybe reopened: a new schedule), or edited: the follow-up run takes it
    if (docs.peek(uri)?.schedule !== s || docs.get(uri) !== doc || doc.version !== version) return undefined;
    let all: Diagnostic[] = [];
    return {
      version,
      compute: () => {
        const { diagnostics, computed } = this.compute(doc, settings);
        const binary = this.binaryByUri.get(doc.uri) ?? [];
        all = [...diagnostics, ...service.applyRules(doc, docs.languageOf(doc), binary, settings)];
        return { computed };
      },
      publish: () => {
        void this.ctx.connection
          .sendDiagnostics({ uri, version: doc.version, diagnostics: all })
          .catch((err: unknown) => this.ctx.logError('publish diagnostics', err));
      },
      warmUp: () =>
        docs.isLarge(doc)
          ? undefined
          : {
              key: docs.languageOf(doc),
              resting: () => docs.get(uri) === doc && doc.version === version,
              run: warmUpRuns(doc, docs.languageOf(doc), settings, this.ctx.host.fs, () => this.nginxBuild()),
              prepare: () => service.prepareCompletion(docs.languageOf(doc), settings),
            },
    };
  }
}
