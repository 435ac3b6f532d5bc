// The tuning pass of one file: every check of checks.ts (CHECK_OF, one per tuning row) and then the
// security checks (security.ts), in that order. Here rather than in checks.ts so that neither of
// the two imports the other's runner (security.ts uses checks.ts's context and helpers).
import { CHECK_OF, type NginxCheck, type NginxCheckContext } from './checks';
import { runSecurityChecks, type NginxSecurityRuleId } from './security';
import type { NginxTuningRuleId } from './rules';
import type { NginxFinding as Finding } from '../rules';

/** The rows whose check is in CHECK_OF: every tuning row but the version's end of life (the service's) and the security ones. */
type CheckedRow = Exclude<NginxTuningRuleId, 'nginx/version-end-of-life' | NginxSecurityRuleId>;
// a tuning row without its check, or a check under a row that is not one of CheckedRow, does not compile
const complete: Record<CheckedRow, NginxCheck> = CHECK_OF;
const exact: Record<keyof typeof CHECK_OF, true> = {} as Record<CheckedRow, true>;
void complete;
void exact;

/** The checks in run order; the security checks last. */
const CHECKS: readonly NginxCheck[] = [...new Set<NginxCheck>(Object.values(CHECK_OF)), runSecurityChecks];

export function runNginxChecks(ctx: NginxCheckContext): Finding[] {
  for (let i = 0; i < CHECKS.length; i++) CHECKS[i](ctx);
  return ctx.out;
}
