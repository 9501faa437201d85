import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../components/button.tsx';
import { compactSecret, groupSecret } from './totp-secret.ts';

type CopyState = 'idle' | 'copied' | 'failed';

/** The setup key in blocks of four for typing into an app, with a copy button (copies it without spaces). */
export function SecretKey({ secret }: { secret: string }) {
  const { t } = useTranslation();
  const id = useId();
  const keyRef = useRef<HTMLElement>(null);
  const [copy, setCopy] = useState<CopyState>('idle');

  useEffect(() => setCopy('idle'), [secret]);

  const copyKey = async () => {
    try {
      await navigator.clipboard.writeText(compactSecret(secret));
      setCopy('copied');
    } catch {
      // No clipboard (insecure context, permission refused): select the key for a manual copy.
      const node = keyRef.current;
      if (node) window.getSelection()?.selectAllChildren(node);
      setCopy('failed');
    }
  };

  return (
    <div className="secret-key" role="group" aria-labelledby={`${id}-label`}>
      <p className="secret-label" id={`${id}-label`}>
        {t('profile.totp.secret_label')}
      </p>
      <div className="secret-row">
        <code ref={keyRef} className="totp-secret" translate="no">
          {groupSecret(secret)}
        </code>
        <Button type="button" variant="secondary" onClick={() => void copyKey()}>
          {t('profile.totp.copy')}
        </Button>
      </div>
      <p className="muted copy-status" role="status">
        {copy === 'copied' ? t('profile.totp.copied') : copy === 'failed' ? t('profile.totp.copy_failed') : ''}
      </p>
    </div>
  );
}
