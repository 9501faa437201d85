import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { revokeDevice } from '../api/client.ts';
import type { RememberedDevice, TfaDevicesResponse } from '../api/types.ts';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { useFocusBack } from '../components/use-focus-back.ts';
import { deviceName } from '../../../src/http/device-name.ts';
import { profileFailure } from './profile-errors.ts';
import { ReauthNotice, useReauthentication } from './reauth.tsx';
import { RELATIVE_TIME_KEYS, relativeTime } from './relative-time.ts';
import { useSessionExpired } from './session-expired.ts';
import type { Loaded } from './use-load.ts';

type Outcome = 'forgotten' | 'failed' | null;

/** Browsers that skip the authenticator code at sign-in ("remember this device"), each revocable. */
export function RememberedDevices({ email, devices }: { email: string; devices: Loaded<TfaDevicesResponse> }) {
  const { t } = useTranslation();
  const sessionExpired = useSessionExpired();
  const [forgetting, setForgetting] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const reauth = useReauthentication(email);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { state } = devices;

  const forget = async (device: RememberedDevice) => {
    setForgetting(device.id);
    setOutcome(null);
    try {
      await revokeDevice(device.id);
      devices.update((data) => ({ ...data, devices: data.devices.filter((item) => item.id !== device.id) }));
      setOutcome('forgotten');
      // Its button is gone: keep focus in the section.
      headingRef.current?.focus();
    } catch (error) {
      const failure = profileFailure(error);
      if (failure.kind === 'signed-out') sessionExpired();
      else if (failure.kind === 'reauth') reauth.require(failure.reason);
      else if (failure.kind === 'rejected' && failure.status === 404) devices.reload();
      else setOutcome('failed');
    } finally {
      setForgetting(null);
    }
  };

  return (
    <section className="profile-section" aria-labelledby="devices-title">
      <h2 id="devices-title" ref={headingRef} tabIndex={-1}>
        {t('profile.devices.title')}
      </h2>
      <p className="muted">{t('profile.devices.intro')}</p>
      {state.status === 'loading' && (
        <p className="page-loading" role="status">
          {t('app.loading')}
        </p>
      )}
      {state.status === 'failed' && (
        <>
          <ErrorAlert message={t('profile.devices.load_failed')} />
          <Button type="button" variant="secondary" onClick={devices.reload}>
            {t('app.retry')}
          </Button>
        </>
      )}
      {state.status === 'ready' && state.data.devices.length === 0 && <p>{t('profile.devices.empty')}</p>}
      {state.status === 'ready' && state.data.devices.length > 0 && (
        <ul className="profile-list">
          {state.data.devices.map((device) => (
            <DeviceItem
              key={device.id}
              device={device}
              pending={forgetting === device.id}
              disabled={forgetting !== null || reauth.required}
              onForget={() => void forget(device)}
            />
          ))}
        </ul>
      )}
      {reauth.required && <ReauthNotice email={email} reason={reauth.reason} />}
      {outcome === 'forgotten' && <Notice message={t('profile.devices.forgotten')} />}
      {outcome === 'failed' && <ErrorAlert message={t('profile.devices.forget_failed')} />}
    </section>
  );
}

interface DeviceItemProps {
  device: RememberedDevice;
  pending: boolean;
  disabled: boolean;
  onForget: () => void;
}

function DeviceItem({ device, pending, disabled, onForget }: DeviceItemProps) {
  const { t } = useTranslation();
  const forgetButton = useRef<HTMLButtonElement>(null);
  // Forgetting disables every Forget, which drops the focus: after a failure it comes back to this
  // one (after a success the item is gone and the section's heading has it).
  useFocusBack(pending, forgetButton);
  const { browser, os } = deviceName(device.user_agent);
  const browserName = browser ?? t('profile.devices.unknown_browser');
  const name = os ? t('profile.devices.name', { browser: browserName, os }) : browserName;
  const used = relativeTime(device.last_used_at ?? device.created_at, new Date());
  return (
    <li className="profile-item">
      <div className="item-main">
        <span className="item-name">
          {name}
          {device.current && <span className="badge">{t('profile.devices.current')}</span>}
        </span>
        {used && (
          <span className="muted">{t('profile.devices.last_used', { when: t(RELATIVE_TIME_KEYS[used.unit], { count: used.count }) })}</span>
        )}
      </div>
      <Button ref={forgetButton} type="button" variant="secondary" loading={pending} disabled={disabled} onClick={onForget}>
        {t('profile.devices.forget')}
        <span className="visually-hidden"> {name}</span>
      </Button>
    </li>
  );
}
