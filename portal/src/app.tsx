import { Redirect, Route, Switch } from 'wouter';
import { AdminShell } from './admin/admin-shell.tsx';
import { LoginPage } from './login/login-page.tsx';
import { ResetPasswordPage } from './login/reset-password-page.tsx';
import { SelectTenantPage } from './login/select-tenant-page.tsx';
import { SetPasswordPage } from './login/set-password-page.tsx';
import { ConfirmEmailPage } from './login/confirm-email-page.tsx';
import { ProfilePage } from './profile/profile-page.tsx';
import { TotpSetupPage } from './profile/totp-setup-page.tsx';

/** Routes of the portal (spec section 2). The server answers index.html for each of them. */
export function App() {
  return (
    <Switch>
      <Route path="/">
        <Redirect to="/login" replace />
      </Route>
      <Route path="/login" component={LoginPage} />
      <Route path="/login/select-tenant" component={SelectTenantPage} />
      <Route path="/login/reset-password" component={ResetPasswordPage} />
      <Route path="/login/set-password/:token">{(params) => <SetPasswordPage key={params.token} token={params.token} />}</Route>
      <Route path="/login/confirm-email/:token">{(params) => <ConfirmEmailPage key={params.token} token={params.token} />}</Route>
      <Route path="/profile" component={ProfilePage} />
      <Route path="/profile/credentials/totp/setup" component={TotpSetupPage} />
      <Route path="/admin" nest>
        <AdminShell />
      </Route>
      <Route>
        <Redirect to="/login" replace />
      </Route>
    </Switch>
  );
}
