import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { setLanguageSource } from './api/client.ts';
import { App } from './app.tsx';
import { currentLanguage } from './i18n/index.ts';
import './styles.css';
import './components/components.css';
import './login/login.css';

// Every API call tells the server the UI language (reset emails, server messages).
setLanguageSource(currentLanguage);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
