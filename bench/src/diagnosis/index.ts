// The diagnosis of a run: a Probe samples the proxy during measurement, the config's facts come
// from the user's files, and diagnose() ties the two into findings (protocol/diagnosis.ts).
import * as os from 'node:os';
import type { Diagnosis, DiagnosisReadings } from '../../../protocol/diagnosis';
import { haproxyFacts, nginxFacts, type ConfigFacts } from './config';
import { diagnose, type RunFacts } from './findings';
import { Probe, type ProbeTarget } from './probe';

export { Probe, type ProbeTarget } from './probe';
export { diagnose, nginxKeepsAliveByDefault, type RunFacts } from './findings';
export { nginxFacts, haproxyFacts, type ConfigFacts } from './config';

/** The CPUs this process (and the proxy it starts) may run on. */
export function cpusAvailable(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

export function configFacts(kind: 'nginx' | 'haproxy', files: readonly string[]): ConfigFacts {
  const unique = [...new Set(files)];
  return kind === 'nginx' ? nginxFacts(unique) : haproxyFacts(unique);
}

/** Readings plus the run's own counts: the findings. */
export function makeDiagnosis(run: RunFacts, readings: DiagnosisReadings, config: ConfigFacts | null, backendStatus: number): Diagnosis {
  if (readings.listen && config?.kind === 'nginx' && config.listens.length) {
    // nginx's default backlog is 511; the kernel caps it at somaxconn
    const b = config.listens.find((l) => l.backlog !== undefined)?.backlog ?? 511;
    readings.listen.backlog = readings.listen.somaxconn ? Math.min(b, readings.listen.somaxconn) : b;
  }
  return { findings: diagnose({ run, readings, config, backendStatus }), readings };
}
