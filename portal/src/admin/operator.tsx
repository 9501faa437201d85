import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { getOperator, type OperatorRole } from '../api/admin.ts';
import { useAdminErrorHandler } from './admin-auth.ts';

/** null while unknown (or if the server cannot say): every action shows and the server decides. */
const OperatorRoleContext = createContext<OperatorRole | null>(null);

/**
 * Whether the operator may make changes (admin role). The API refuses a `support` operator
 * anyway; this only hides buttons that could not work.
 */
export function useCanChange(): boolean {
  return useContext(OperatorRoleContext) !== 'support';
}

/**
 * Asks who is operating on arrival: anyone without operator access (401, 403 `forbidden`, 403
 * `operator/mfa-required`) is sent to the console sign-in notice at once, rather than after a first
 * search. Skipped on the notice itself (`?from=`), which would otherwise wrap its own URL.
 */
export function OperatorProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const handleAdminError = useAdminErrorHandler();
  const [role, setRole] = useState<OperatorRole | null>(null);

  useEffect(() => {
    if (!enabled) return;
    let active = true;
    getOperator().then(
      (operator) => active && setRole(operator?.role ?? null),
      (error: unknown) => {
        if (active) handleAdminError(error);
      },
    );
    return () => {
      active = false;
    };
  }, [enabled, handleAdminError]);

  return <OperatorRoleContext value={role}>{children}</OperatorRoleContext>;
}
