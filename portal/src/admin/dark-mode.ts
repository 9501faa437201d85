import { useEffect, useState } from 'react';

/** localStorage key of the console's dark mode: "true" or "false". */
export const DARK_MODE_KEY = 'dark_mode';

function readDarkMode(): boolean {
  try {
    return localStorage.getItem(DARK_MODE_KEY) === 'true';
  } catch {
    return false;
  }
}

/** The console's dark mode: stored locally, applied as data-theme="dark" on <html> while mounted. */
export function useDarkMode(): [boolean, (dark: boolean) => void] {
  const [dark, setDark] = useState(readDarkMode);
  useEffect(() => {
    const root = document.documentElement;
    if (dark) root.dataset.theme = 'dark';
    else delete root.dataset.theme;
    return () => {
      delete root.dataset.theme;
    };
  }, [dark]);
  const update = (next: boolean) => {
    setDark(next);
    try {
      localStorage.setItem(DARK_MODE_KEY, String(next));
    } catch {
      // Storage unavailable: the choice lasts for this page only.
    }
  };
  return [dark, update];
}
